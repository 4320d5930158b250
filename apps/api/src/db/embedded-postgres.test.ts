// The embedded database (PGlite) as `npm start` runs it, on a worker thread of its own
// (embedded-postgres.ts, `thread: true`): PGlite executes each statement synchronously in
// WebAssembly, so on the product's thread a long statement would stop every request, timer and
// Kubernetes watch for as long as it runs.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Runs `sql` on the database at `url`; meanwhile a 5 ms timer in this thread records its longest wait. */
async function longestStall(url: string, sql: string): Promise<{ tookMs: number; stallMs: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT 1');
    let last = performance.now();
    let stallMs = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      stallMs = Math.max(stallMs, now - last);
      last = now;
    }, 5);
    const began = performance.now();
    await client.query(sql);
    const tookMs = performance.now() - began;
    clearInterval(tick);
    return { tookMs, stallMs: Math.max(stallMs, performance.now() - last) };
  } finally {
    await client.end();
  }
}

describe('the embedded database on a thread of its own', () => {
  it("a long statement in PGlite stops the product's event loop only when PGlite runs on it, and the data is the same either way", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'occ-pglite-thread-'));
    dirs.push(dataDir);
    const heavy = 'SELECT count(*) FROM generate_series(1, 3000000)';
    const measured: Record<'here' | 'thread', { tookMs: number; stallMs: number }> = { here: { tookMs: 0, stallMs: 0 }, thread: { tookMs: 0, stallMs: 0 } };
    for (const where of ['here', 'thread'] as const) {
      const db = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pglite'), thread: where === 'thread' });
      try {
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        // Written by the first, read by the second: the same folder, opened both ways.
        if (where === 'here') await client.query('CREATE TABLE kept (v text); INSERT INTO kept VALUES ($$written in this thread$$)');
        else expect((await client.query('SELECT v FROM kept')).rows).toEqual([{ v: 'written in this thread' }]);
        await client.end();
        measured[where] = await longestStall(db.url, heavy);
      } finally {
        await db.close();
      }
    }
    // In this thread the statement holds the loop for most of its run; on its own thread the
    // timer keeps ticking (a loaded machine's scheduling aside).
    expect(measured.here.stallMs).toBeGreaterThan(measured.here.tookMs * 0.6);
    expect(measured.thread.stallMs).toBeLessThan(Math.max(60, measured.thread.tookMs * 0.3));
  }, 120_000);
});
