// Every piece of the request line or of a header that is percent-decoded goes through here, so a
// malformed encoding is an answer (null), never an exception out of a handler (P4).

/** decodeURIComponent that answers null instead of throwing on a malformed sequence. */
export function decodePercent(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

export interface RequestTarget {
  /** The path as sent (still percent-encoded): routes match on it. */
  path: string;
  /** The path decoded: static files are looked up by it. */
  decodedPath: string;
  /** `?…` or ''. */
  search: string;
}

/**
 * Splits the request target without `new URL(target, base)`, which throws on targets such as
 * `//[` (read as a host). Absolute-form targets (`http://host/path`, allowed by RFC 9112) are
 * parsed in a try. Answers null when the target has no path or a malformed percent-encoding.
 */
export function parseRequestTarget(raw: string | undefined): RequestTarget | null {
  let target = raw ?? '/';
  if (!target.startsWith('/')) {
    try {
      const url = new URL(target);
      target = url.pathname + url.search;
    } catch {
      return null;
    }
  }
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  const search = q === -1 ? '' : target.slice(q);
  const decodedPath = decodePercent(path);
  if (decodedPath === null || decodedPath.includes('\0')) return null;
  return { path, decodedPath, search };
}
