import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The build fails when a route's first-load JavaScript passes its budget (scripts/size-budgets.json).
// These run the size script on a small fake static export: random bytes do not compress, so a chunk
// of N kB counts as (about) N kB gzip.

const script = path.resolve(__dirname, '../scripts/first-load-size.mjs');
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function fakeExport(pages: Record<string, string[]>, chunks: Record<string, number>, noModule: string[] = []) {
  const out = mkdtempSync(path.join(tmpdir(), 'first-load-'));
  dirs.push(out);
  mkdirSync(path.join(out, '_next/static/chunks'), { recursive: true });
  for (const [name, kb] of Object.entries(chunks)) writeFileSync(path.join(out, '_next/static/chunks', name), randomBytes(kb * 1024));
  for (const [page, scripts] of Object.entries(pages)) {
    const tags = scripts.map((name) => `<script src="/_next/static/chunks/${name}" async=""></script>`);
    tags.push(...noModule.map((name) => `<script src="/_next/static/chunks/${name}" noModule=""></script>`));
    writeFileSync(path.join(out, page), `<!DOCTYPE html><html><head>${tags.join('')}</head><body></body></html>`);
  }
  return out;
}

function run(out: string, budgets: Record<string, number>) {
  const file = path.join(out, 'budgets.json');
  writeFileSync(file, JSON.stringify(budgets));
  return spawnSync(process.execPath, [script, '--out', out, '--budgets', file], { encoding: 'utf8' });
}

describe('first-load size budget', () => {
  const pages = { 'index.html': ['framework.js'], 'agents.html': ['framework.js', 'agents.js'] };
  const chunks = { 'framework.js': 100, 'agents.js': 30 };

  it('passes when every route is inside its budget', () => {
    const result = run(fakeExport(pages, chunks), { '/agents': 150, '*': 120 });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/\/agents\s+2\s+130\.\d\s+150\n/);
  });

  it('exits non-zero and names the route when one route passes its budget', () => {
    const result = run(fakeExport(pages, chunks), { '/agents': 125, '*': 120 });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/\/agents\s+2\s+130\.\d\s+125 {2}OVER/);
    expect(result.stderr).toContain('OVER BUDGET: /agents (budgets');
  });

  it('applies the default budget to a route without its own', () => {
    const result = run(fakeExport(pages, chunks), { '/agents': 150, '*': 90 });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('OVER BUDGET: / (budgets');
  });

  it('does not count a nomodule script, which module-capable browsers never download', () => {
    const out = fakeExport(pages, { ...chunks, 'polyfills.js': 40 }, ['polyfills.js']);
    const result = run(out, { '/agents': 150, '*': 120 });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/\/agents\s+2\s+130\.\d/);
  });

  it('fails when a budgeted route no longer exists (a renamed page would escape its budget)', () => {
    const result = run(fakeExport(pages, chunks), { '/agents': 150, '/gone': 150, '*': 120 });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('/gone (no such page)');
  });

  // 150 until the layout's PageErrorBoundary (every route +0.3 kB) took it to 150.0x; 161 since its
  // list, the page's first screen, is counted in its first load (it was a chunk fetched right after);
  // 172 since the lists became one table on TanStack Table (+11.4 kB): see the budgets file's comment.
  it('keeps the agents page at 172 kB in the one budgets file the build reads', () => {
    const budgets = JSON.parse(readFileSync(path.resolve(__dirname, '../scripts/size-budgets.json'), 'utf8')) as Record<string, number>;
    expect(budgets['/agents']).toBe(172);
  });
});
