// Writes out/sw.js, the console's service worker, for the static export in `out` (`npm run build`
// runs it after `next build`): the manifest of this build (its pages by route, its other files by
// path, and a version that is the hash of their contents), then policy.mjs and runtime.js.
//
//   node service-worker/build.mjs [out]
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Never listed: the worker itself, and the compressed twins of files (the server picks those by Accept-Encoding). */
const SKIP = /(^|\/)sw\.js$|\.(br|gz|map)$/;

/** The manifest of a static export: `pages` (routes, from the .html files) and `files` (every other file), with the version of their contents. */
export function manifestOf(out) {
  const hash = createHash('sha256');
  const pages = [];
  const files = [];
  for (const name of readdirSync(out, { recursive: true, encoding: 'utf8' }).sort()) {
    const file = path.join(out, name);
    const rel = name.split(path.sep).join('/');
    if (SKIP.test(rel) || !statSync(file).isFile()) continue;
    hash.update(rel).update('\0').update(readFileSync(file)).update('\0');
    if (rel.endsWith('.html')) {
      const route = `/${rel.slice(0, -'.html'.length)}`.replace(/\/index$/, '') || '/';
      pages.push(route);
    } else {
      files.push(`/${rel}`);
    }
  }
  return { version: hash.digest('hex').slice(0, 16), pages, files };
}

/** The worker's source for a manifest: the manifest, the policy without its exports, the runtime. */
export function workerSource(manifest) {
  const policy = readFileSync(path.join(here, 'policy.mjs'), 'utf8').replace(/^export /gm, '');
  const runtime = readFileSync(path.join(here, 'runtime.js'), 'utf8');
  return `// Built by apps/console/service-worker/build.mjs: do not edit.\nconst MANIFEST = ${JSON.stringify(manifest)};\n\n${policy}\n${runtime}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = path.resolve(process.argv[2] ?? 'out');
  const manifest = manifestOf(out);
  writeFileSync(path.join(out, 'sw.js'), workerSource(manifest));
  console.log(`service worker: ${manifest.pages.length} pages and ${manifest.files.length} files, version ${manifest.version}`);
}
