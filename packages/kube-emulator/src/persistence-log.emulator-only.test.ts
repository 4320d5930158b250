// The data files against a model: generated sequences of writes go to a real ObjectStore whose
// events a DataFileWriter logs (real files, real compaction worker threads, budgets small enough
// that compaction runs during the sequence). At generated points the files are copied as a crash
// would leave them (segments first, then the snapshot: whatever a running compaction has done by
// then, the copy is a state some instant had), sometimes with half a record appended as a process
// stopped mid-append leaves it, and loaded: the loaded state must be the store's at that point.

import { appendFile, copyFile, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSegments, segmentPath } from './persistence-format.ts';
import { DataFileWriter, loadDataFile } from './persistence.ts';
import { ObjectStore, type StoreSnapshot } from './store.ts';
import type { KubeObject } from './types.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kube-emulator-log-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const KEYS = ['secrets', 'configmaps', 'openclaw.rocks/instances'];
const NAMESPACES = [undefined, 'a', 'b'];
const NAMES = ['x', 'y', 'z'];

type Op =
  | { op: 'write'; key: string; namespace: string | undefined; name: string; payload: string }
  | { op: 'delete'; key: string; namespace: string | undefined; name: string }
  | { op: 'crash'; torn: boolean };

const target = { key: fc.constantFrom(...KEYS), namespace: fc.constantFrom(...NAMESPACES), name: fc.constantFrom(...NAMES) };
const ops = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.record({ op: fc.constant('write' as const), ...target, payload: fc.string({ maxLength: 300 }) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), ...target }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('crash' as const), torn: fc.boolean() }) },
  ),
  { maxLength: 120 },
);

function apply(store: ObjectStore, op: Exclude<Op, { op: 'crash' }>): void {
  const existing = store.get(op.key, op.namespace, op.name);
  if (op.op === 'delete') {
    if (existing) store.delete(op.key, op.namespace, op.name);
    return;
  }
  const object: KubeObject = { apiVersion: 'v1', kind: 'Thing', metadata: { name: op.name, ...(op.namespace ? { namespace: op.namespace } : {}) }, data: { payload: op.payload } };
  if (existing) store.update(op.key, { ...object, metadata: { ...existing.metadata, ...object.metadata } });
  else store.create(op.key, object);
}

/** The state as a crash would leave it: segments copied first, then the snapshot. */
async function crashCopy(dataFile: string, into: string): Promise<string> {
  await mkdir(into, { recursive: true });
  const copied = join(into, 'objects.json');
  for (const segment of await listSegments(dataFile)) {
    await copyFile(segment.path, segmentPath(copied, segment.seq)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error; // folded and removed meanwhile: the snapshot read next has it
    });
  }
  await copyFile(dataFile, copied).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  return copied;
}

function normalized(snapshot: StoreSnapshot | undefined): StoreSnapshot {
  const collections: StoreSnapshot['collections'] = {};
  for (const [key, objects] of Object.entries(snapshot?.collections ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (objects.length === 0) continue;
    collections[key] = [...objects].sort((a, b) => (`${a.metadata.namespace}/${a.metadata.name}` < `${b.metadata.namespace}/${b.metadata.name}` ? -1 : 1));
  }
  return { resourceVersion: snapshot?.resourceVersion ?? 0, collections };
}

let run = 0;

describe('data file log', () => {
  it('E1 after any sequence of writes, deletes and compactions, a crash copy (also one with a half-written last record) loads as the state of that moment, and a clean close leaves one snapshot holding it', async () => {
    await fc.assert(
      fc.asyncProperty(ops, fc.integer({ min: 200, max: 4000 }), async (sequence, budget) => {
        const base = join(dir, `run-${run++}`);
        const dataFile = join(base, 'live', 'objects.json');
        const errors: unknown[] = [];
        const store = new ObjectStore();
        const writer = new DataFileWriter(dataFile, undefined, { compactAfterBytes: budget, onError: (e) => errors.push(e) });
        store.subscribe((event) => writer.record(event));
        let crashes = 0;
        for (const op of sequence) {
          if (op.op !== 'crash') {
            apply(store, op);
            continue;
          }
          await writer.flush();
          const copied = await crashCopy(dataFile, join(base, `crash-${crashes++}`));
          if (op.torn) {
            const last = (await listSegments(copied)).at(-1);
            if (last) await appendFile(last.path, '{"rv":999999,"op":"put","key":"secrets","obj');
          }
          expect(normalized((await loadDataFile(copied))?.snapshot)).toEqual(normalized(store.snapshot()));
        }
        await writer.close();
        expect(errors).toEqual([]);
        expect(await listSegments(dataFile)).toEqual([]);
        const reloaded = await loadDataFile(dataFile);
        expect(normalized(reloaded?.snapshot ?? { resourceVersion: 0, collections: {} })).toEqual(normalized(store.snapshot()));
        await rm(base, { recursive: true, force: true });
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it('E1 the log is compacted by a worker thread as it passes its budget, so it stays bounded, and the files are private (0600)', async () => {
    const dataFile = join(dir, 'bounded', 'objects.json');
    const store = new ObjectStore();
    const writer = new DataFileWriter(dataFile, undefined, { compactAfterBytes: 8 * 1024 });
    store.subscribe((event) => writer.record(event));
    const logBytes = async () => {
      let bytes = 0;
      for (const segment of await listSegments(dataFile)) bytes += (await stat(segment.path)).size;
      return bytes;
    };
    for (let burst = 0; burst < 20; burst++) {
      let burstBytes = 0;
      for (let i = 0; i < 100; i++) {
        const before = writer.stats().log;
        apply(store, { op: 'write', key: 'configmaps', namespace: 'a', name: `cm-${i}`, payload: 'p'.repeat(100) + String(burst) });
        burstBytes += Math.max(0, writer.stats().log - before);
      }
      await writer.idle();
      const { snapshot } = writer.stats();
      // What is left in the log is at most one budget plus what one burst adds.
      expect(await logBytes()).toBeLessThanOrEqual(Math.max(8 * 1024, snapshot / 2) + burstBytes + 1024);
    }
    // 2,000 records of ~250 bytes is ~500 KB: without compaction the log would hold all of it.
    expect(writer.stats().compactions).toBeGreaterThan(5);
    expect((await stat(dataFile)).mode & 0o777).toBe(0o600);
    for (const segment of await listSegments(dataFile)) expect((await stat(segment.path)).mode & 0o777).toBe(0o600);
    await writer.close();
    expect(normalized((await loadDataFile(dataFile))?.snapshot)).toEqual(normalized(store.snapshot()));
  }, 60_000);

  it('E1 a damaged record that is not the last one fails the load naming the file and line; a data file of an earlier release (a snapshot alone) loads as it was', async () => {
    const dataFile = join(dir, 'damaged', 'objects.json');
    await mkdir(join(dir, 'damaged'), { recursive: true });
    await writeFile(dataFile, JSON.stringify({ format: 'occ.kube-emulator/v1', resourceVersion: '5', collections: { secrets: [{ metadata: { name: 's', namespace: 'a', resourceVersion: '5' } }] } }));
    expect((await loadDataFile(dataFile))?.snapshot).toEqual({ resourceVersion: 5, collections: { secrets: [{ metadata: { name: 's', namespace: 'a', resourceVersion: '5' } }] } });
    await writeFile(segmentPath(dataFile, 1), `{"rv":6,"op":"delete","key":"secrets","namespace":"a","name":"s"}\nnot json\n{"rv":8,"op":"delete","key":"secrets","name":"t"}\n`);
    await expect(loadDataFile(dataFile)).rejects.toThrow(`${segmentPath(dataFile, 1)} line 2 is not a log record`);
    expect((await readdir(join(dir, 'damaged'))).sort()).toEqual(['objects.json', 'objects.json.wal-000001']);
  });
});
