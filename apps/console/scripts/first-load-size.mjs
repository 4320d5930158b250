// Prints the first-load JavaScript of every route of the static export, gzip-compressed as served:
// the scripts each page's HTML loads (its <script src> and script preloads), each counted once per
// route. Next's own build output no longer prints route sizes, and the console is judged by what a
// browser downloads before the first screen. A route over its budget is marked, not failed: the
// framework alone (React, Next's router) is most of it today, see README.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../out');
const BUDGET_KB = { '/agents': 150 };
const DEFAULT_BUDGET_KB = 200;

function htmlFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === '_next' ? [] : htmlFiles(full);
    return name.endsWith('.html') ? [full] : [];
  });
}

const gzipped = new Map();
function gzipSize(src) {
  if (!gzipped.has(src)) {
    const file = path.join(out, src.split('?')[0]);
    gzipped.set(src, gzipSync(readFileSync(file), { level: 9 }).length);
  }
  return gzipped.get(src);
}

const rows = [];
for (const file of htmlFiles(out)) {
  const html = readFileSync(file, 'utf8');
  const scripts = new Set();
  for (const match of html.matchAll(/<script[^>]*\ssrc="([^"]+\.js[^"]*)"/g)) scripts.add(match[1]);
  for (const match of html.matchAll(/<link[^>]*rel="preload"[^>]*as="script"[^>]*href="([^"]+)"|<link[^>]*href="([^"]+\.js)"[^>]*rel="preload"/g)) {
    scripts.add(match[1] ?? match[2]);
  }
  const local = [...scripts].filter((src) => src.startsWith('/'));
  const bytes = local.reduce((sum, src) => sum + gzipSize(src), 0);
  const route = '/' + path.relative(out, file).replace(/\\/g, '/').replace(/(index)?\.html$/, '').replace(/\/$/, '');
  rows.push({ route: route === '/' ? '/' : route.replace(/\/$/, ''), scripts: local.length, kb: bytes / 1024 });
}
rows.sort((a, b) => a.route.localeCompare(b.route));

console.log('\nFirst-load JavaScript per route (gzip -9, as the browser downloads it):');
console.log('Route'.padEnd(22) + 'Scripts'.padStart(8) + 'gzip kB'.padStart(10) + 'Budget'.padStart(8));
let over = false;
for (const row of rows) {
  const budget = BUDGET_KB[row.route] ?? DEFAULT_BUDGET_KB;
  const flag = row.kb > budget ? '  OVER' : '';
  if (row.kb > budget) over = true;
  console.log(row.route.padEnd(22) + String(row.scripts).padStart(8) + row.kb.toFixed(1).padStart(10) + String(budget).padStart(8) + flag);
}
if (over) console.log('\nOVER: a route passes its first-load budget (marked above).');
