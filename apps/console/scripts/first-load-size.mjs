// Prints the first-load JavaScript of every route of the static export, gzip-compressed as served,
// and exits non-zero when a route exceeds its budget (scripts/size-budgets.json, the one place the
// budgets live). First load = the scripts each page's HTML loads (its <script src> and script
// preloads), each counted once per route. A `<script nomodule>` is not counted: every browser that
// runs this console supports modules and so never downloads it (Next's legacy polyfills, ~38 kB).
// Next's own build output no longer prints route sizes, and the console is judged by what a browser
// downloads before the first screen.
//
//   node scripts/first-load-size.mjs [--out DIR] [--budgets FILE]   (defaults: ../out, ./size-budgets.json)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
function arg(name, fallback) {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] ? path.resolve(process.argv[at + 1]) : fallback;
}
const out = arg('--out', path.resolve(here, '../out'));
const budgets = JSON.parse(readFileSync(arg('--budgets', path.join(here, 'size-budgets.json')), 'utf8'));
const DEFAULT_BUDGET_KB = budgets['*'];

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
  for (const match of html.matchAll(/<script([^>]*)\ssrc="([^"]+\.js[^"]*)"([^>]*)>/gi)) {
    if (/\snomodule\b/i.test(match[1] + ' ' + match[3])) continue;
    scripts.add(match[2]);
  }
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
const over = [];
for (const row of rows) {
  const budget = budgets[row.route] ?? DEFAULT_BUDGET_KB;
  const flag = row.kb > budget ? '  OVER' : '';
  if (row.kb > budget) over.push(row.route);
  console.log(row.route.padEnd(22) + String(row.scripts).padStart(8) + row.kb.toFixed(1).padStart(10) + String(budget).padStart(8) + flag);
}
for (const route of Object.keys(budgets)) {
  if (route !== '*' && route !== '$comment' && !rows.some((row) => row.route === route)) over.push(`${route} (no such page)`);
}
if (over.length > 0) {
  console.error(`\nOVER BUDGET: ${over.join(', ')} (budgets: scripts/size-budgets.json).`);
  process.exitCode = 1;
}
