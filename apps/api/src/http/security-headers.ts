import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// P2: headers every response carries (set before routing, so 404, 413 and 500 have them too), and
// the Content-Security-Policy each kind of response needs.

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  // strict-origin rather than no-referrer: under no-referrer a browser sends `Origin: null` on
  // same-origin form posts, which the cross-origin check (origin.ts) would then refuse.
  'referrer-policy': 'strict-origin',
  'cross-origin-opener-policy': 'same-origin',
  // Another origin's page may not embed our answers as scripts, images or the like (no-cors
  // reads); CORS reads by listed origins are not affected.
  'cross-origin-resource-policy': 'same-origin',
  'x-frame-options': 'DENY', // for browsers that predate frame-ancestors
};

/** For everything that is not an HTML page: JSON, scripts, styles, images. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The console's service worker (apps/console/service-worker): a script that runs no other script
 * and fetches from this origin only (the console's pages and files, which it keeps for when the
 * server cannot be reached).
 */
export const SERVICE_WORKER_CSP = "default-src 'none'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/**
 * A dedicated worker's entry script (Turbopack names it `turbopack-worker-<hash>.js`): it loads its
 * own chunks with importScripts, which the API's default-src 'none' would refuse (the console's
 * reference graph lays itself out in one, apps/console/components/references/layout.worker.ts).
 */
export const WORKER_SCRIPT_CSP = "default-src 'none'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const WORKER_ENTRY = /^_next[/\\]static[/\\]chunks[/\\]turbopack-worker-[^/\\]+\.js$/;

/** The sha256 sources of the inline scripts of one HTML document (CSP hashes cover the element's text exactly). */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\bsrc\s*=/i.test(match[1]!)) continue;
    hashes.add(`'sha256-${createHash('sha256').update(match[2]!, 'utf8').digest('base64')}'`);
  }
  return [...hashes];
}

/**
 * A console page: Next.js' static export boots from inline scripts, allowed one by one by hash,
 * never by 'unsafe-inline'.
 */
export function consolePageCsp(html: string): string {
  return [
    "default-src 'self'",
    ['script-src', "'self'", ...inlineScriptHashes(html)].join(' '),
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** GraphiQL (served outside production only) loads its editor from unpkg and starts Monaco workers from blobs. */
export function graphiqlCsp(html: string): string {
  const cdn = 'https://unpkg.com';
  return [
    "default-src 'none'",
    ['script-src', cdn, ...inlineScriptHashes(html)].join(' '),
    `style-src ${cdn} 'unsafe-inline'`,
    `font-src ${cdn} data:`,
    "img-src 'self' data: https://raw.githubusercontent.com",
    `connect-src 'self' ${cdn}`,
    'worker-src blob:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The policy of every HTML file of the console's export, by absolute path, computed once at start
 * (the files do not change while the process runs). An absent directory has no pages.
 */
export function consolePagePolicies(consoleDir: string): Map<string, string> {
  const policies = new Map<string, string>();
  let files: string[];
  try {
    files = readdirSync(consoleDir, { recursive: true, encoding: 'utf8' });
  } catch {
    return policies;
  }
  for (const file of files) {
    // A worker's own CSP governs what it may fetch: the API's default-src 'none' would refuse it every request.
    if (file === 'sw.js') policies.set(path.join(consoleDir, file), SERVICE_WORKER_CSP);
    if (WORKER_ENTRY.test(file)) policies.set(path.join(consoleDir, file), WORKER_SCRIPT_CSP);
    if (!file.endsWith('.html')) continue;
    const absolute = path.join(consoleDir, file);
    policies.set(absolute, consolePageCsp(readFileSync(absolute, 'utf8')));
  }
  return policies;
}
