// Writes a brotli (.br) and a gzip (.gz) copy beside every compressible file of the static export
// (`npm run build` runs it after `next build`), so the API process serves them without compressing
// per request (apps/api/src/http/static-files.ts picks one by Accept-Encoding). The pages' JavaScript
// is 0.5-0.6 MB uncompressed. A copy that would not be smaller is not written.
//
//   node scripts/precompress.mjs [dir]   (default: out)
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.txt', '.map', '.xml', '.ico']);
const MIN_BYTES = 1024;

const root = path.resolve(process.argv[2] ?? 'out');
let files = 0;
let before = 0;
let after = 0;
for (const name of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
  const file = path.join(root, name);
  if (!COMPRESSIBLE.has(path.extname(file)) || !statSync(file).isFile()) continue;
  const data = readFileSync(file);
  if (data.length < MIN_BYTES) continue;
  const br = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
  const gz = gzipSync(data, { level: 9 });
  if (br.length < data.length) writeFileSync(`${file}.br`, br);
  if (gz.length < data.length) writeFileSync(`${file}.gz`, gz);
  files++;
  before += data.length;
  after += Math.min(br.length, data.length);
}
console.log(`precompressed ${files} files in ${path.relative(process.cwd(), root) || '.'}: ${(before / 1024).toFixed(0)} kB, ${(after / 1024).toFixed(0)} kB as brotli`);
