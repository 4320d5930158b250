// Content hashes for names that follow content (RC2: the gateway's ConfigMap is immutable and named by
// the hash of the document it holds, so a new document is a new object and an unchanged one is the
// same object). Pure and synchronous, without node:crypto: the domain runs in the console too.

/** JSON with object keys sorted at every level: equal values give equal text, whatever their key order. */
export function canonicalJson(value: unknown): string {
  return writeSorted(value, '');
}

/** canonicalJson laid out as JSON.stringify(…, null, 2) lays it out: the gateway's openclaw.json. */
export function canonicalJsonIndented(value: unknown): string {
  return writeSorted(value, '  ');
}

// Only ever given an object's keys, which are distinct: never 0.
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : 1);
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;
const isIndex = (key: string) => ARRAY_INDEX.test(key) && Number(key) < 2 ** 32 - 1;
/**
 * The order of the keys of an object JSON.parse made from canonical text: array-index keys first,
 * ascending, then the rest as inserted (sorted). The indented form was once written by
 * JSON.stringify(JSON.parse(canonicalJson(…)), null, 2), and the ConfigMap's name is the hash of
 * this text: an unchanged document must keep its bytes.
 */
function inParsedOrder(a: string, b: string): number {
  const ia = isIndex(a);
  const ib = isIndex(b);
  if (ia && ib) return Number(a) - Number(b);
  if (ia !== ib) return ia ? -1 : 1;
  return byCodeUnit(a, b);
}

/**
 * The one writer of both, iterative (SG5: instance documents can nest as deep as a server accepts,
 * 10,000 levels on a real one, and neither recursion nor JSON.stringify survives that): a stack of
 * text to emit and values still to write, each container pushing its parts in reverse.
 */
function writeSorted(value: unknown, indent: string): string {
  type Work = { text: string } | { value: unknown; depth: number };
  const out: string[] = [];
  const work: Work[] = [{ value, depth: 0 }];
  const newline = (depth: number) => (indent === '' ? '' : `\n${indent.repeat(depth)}`);
  while (work.length > 0) {
    const item = work.pop()!;
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const { value: v, depth } = item;
    if (v === null || typeof v !== 'object') {
      out.push(JSON.stringify(v) ?? 'null');
      continue;
    }
    const parts: Work[] = [];
    if (Array.isArray(v)) {
      if (v.length === 0) {
        out.push('[]');
        continue;
      }
      parts.push({ text: '[' });
      v.forEach((element, i) => {
        parts.push({ text: `${i > 0 ? ',' : ''}${newline(depth + 1)}` });
        // An undefined element is written as null, as JSON.stringify writes it (below).
        parts.push({ value: element, depth: depth + 1 });
      });
      parts.push({ text: `${newline(depth)}]` });
    } else {
      const entries = Object.entries(v as Record<string, unknown>)
        .filter(([, e]) => e !== undefined)
        .sort(([a], [b]) => (indent === '' ? byCodeUnit(a, b) : inParsedOrder(a, b)));
      if (entries.length === 0) {
        out.push('{}');
        continue;
      }
      parts.push({ text: '{' });
      entries.forEach(([k, e], i) => {
        parts.push({ text: `${i > 0 ? ',' : ''}${newline(depth + 1)}${JSON.stringify(k)}:${indent === '' ? '' : ' '}` });
        parts.push({ value: e, depth: depth + 1 });
      });
      parts.push({ text: `${newline(depth)}}` });
    }
    for (let i = parts.length - 1; i >= 0; i--) work.push(parts[i]!);
  }
  return out.join('');
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 (FIPS 180-4) of the UTF-8 encoding of `text`, as lowercase hex. */
export function sha256Hex(text: string): string {
  const message = new TextEncoder().encode(text);
  const bitLength = message.length * 8;
  const padded = new Uint8Array((((message.length + 9 + 63) >> 6) << 6));
  padded.set(message);
  padded[message.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLength / 2 ** 32));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!;
      const b = w[i - 2]!;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = [h[0]!, h[1]!, h[2]!, h[3]!, h[4]!, h[5]!, h[6]!, h[7]!];
    for (let i = 0; i < 64; i++) {
      const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + s1 + ch + K[i]! + w[i]!) >>> 0;
      const s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (s0 + maj) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] = (h[0]! + a) >>> 0;
    h[1] = (h[1]! + b) >>> 0;
    h[2] = (h[2]! + c) >>> 0;
    h[3] = (h[3]! + d) >>> 0;
    h[4] = (h[4]! + e) >>> 0;
    h[5] = (h[5]! + f) >>> 0;
    h[6] = (h[6]! + g) >>> 0;
    h[7] = (h[7]! + hh) >>> 0;
  }
  return Array.from(h, (x) => x.toString(16).padStart(8, '0')).join('');
}

/** A short content hash for object names: the first `length` hex digits of the SHA-256 of the canonical JSON. */
export function contentHash(value: unknown, length = 16): string {
  return sha256Hex(canonicalJson(value)).slice(0, length);
}
