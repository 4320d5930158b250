// The on-disk format of the embedded cluster's state, shared by the server (persistence.ts) and the
// compaction worker (persistence-compactor.ts). Two kinds of file beside each other:
//
// - the snapshot, `<dataFile>`: `{"format":"occ.kube-emulator/v1","resourceVersion":"N",
//   "collections":{"<storageKey>":[object, …]}}`, collections and objects in namespace/name order
//   (the format every earlier release wrote, so their data files load unchanged);
// - log segments, `<dataFile>.wal-000001` …: one JSON line per write after the snapshot,
//   `{"rv":N,"op":"put","key":"secrets","object":{…}}` or
//   `{"rv":N,"op":"delete","key":"secrets","namespace":"ns","name":"n"}`.
//
// The state is the snapshot with every record newer than its resourceVersion applied in order, so
// a segment folded into a snapshot but not yet removed (a crash between the two) changes nothing.
// Only Node's own modules are imported and only erasable TypeScript is written here: the worker
// thread loads this file without the dev toolchain (Node's type stripping, or dist/*.js).

import { open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export const FORMAT = 'occ.kube-emulator/v1';

// Structural copies of store.ts's and types.ts's types, so this file needs nothing else.
interface StoredObject {
  metadata: { namespace?: string; name?: string; resourceVersion?: string };
}
export type Collections = Map<string, Map<string, StoredObject>>;

export type LogRecord =
  | { rv: number; op: 'put'; key: string; object: StoredObject }
  | { rv: number; op: 'delete'; key: string; namespace?: string; name: string };

export interface LoadedState {
  resourceVersion: number;
  collections: Collections;
  /** Size of the snapshot file in bytes (0 when there is none). */
  snapshotBytes: number;
  /** Segments found, oldest first, with their sequence numbers and sizes. */
  segments: { path: string; seq: number; bytes: number }[];
  /** Records applied from the segments (newer than the snapshot). */
  replayed: number;
}

const SEGMENT = /\.wal-(\d{6,})$/;

export function segmentPath(dataFile: string, seq: number): string {
  return `${dataFile}.wal-${String(seq).padStart(6, '0')}`;
}

export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/** Segments of `dataFile` on disk, oldest first. */
export async function listSegments(dataFile: string): Promise<{ path: string; seq: number }[]> {
  let names: string[];
  try {
    names = await readdir(dirname(dataFile));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const prefix = `${basename(dataFile)}.wal-`;
  const found: { path: string; seq: number }[] = [];
  for (const name of names) {
    const match = name.startsWith(prefix) ? SEGMENT.exec(name) : null;
    if (match?.[1]) found.push({ path: join(dirname(dataFile), name), seq: Number(match[1]) });
  }
  return found.sort((a, b) => a.seq - b.seq);
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Collections keyed as the store keys them, from lists of objects by storage key. */
export function collectionsOf(lists: Record<string, StoredObject[]>): Collections {
  const collections: Collections = new Map();
  for (const [key, objects] of Object.entries(lists)) {
    const collection = new Map<string, StoredObject>();
    for (const object of objects) collection.set(objectKey(object.metadata.namespace, object.metadata.name ?? ''), object);
    collections.set(key, collection);
  }
  return collections;
}

function parseSnapshot(file: string, text: string): { resourceVersion: number; collections: Collections } {
  const parsed = JSON.parse(text) as { format?: unknown; resourceVersion?: unknown; collections?: unknown };
  if (typeof parsed !== 'object' || parsed === null || parsed.format !== FORMAT || typeof parsed.collections !== 'object' || parsed.collections === null) {
    throw new Error(`${file} is not a kube-emulator data file (expected format ${FORMAT})`);
  }
  return { resourceVersion: Number(parsed.resourceVersion), collections: collectionsOf(parsed.collections as Record<string, StoredObject[]>) };
}

/**
 * Applies a segment's records newer than `floor`. A last line that does not parse is a write the
 * process did not finish (it stopped mid-append) and is left out; any other such line is damage
 * and fails the load, naming the file and line.
 */
function applySegment(file: string, text: string, floor: number, collections: Collections): { applied: number; last: number } {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let applied = 0;
  let last = floor;
  for (const [index, line] of lines.entries()) {
    let record: LogRecord;
    try {
      record = JSON.parse(line) as LogRecord;
    } catch {
      if (index === lines.length - 1) break;
      throw new Error(`${file} line ${index + 1} is not a log record; the file is damaged`);
    }
    if (record.rv <= last) continue;
    last = record.rv;
    applied += 1;
    let collection = collections.get(record.key);
    if (!collection) {
      collection = new Map();
      collections.set(record.key, collection);
    }
    if (record.op === 'put') collection.set(objectKey(record.object.metadata.namespace, record.object.metadata.name ?? ''), record.object);
    else collection.delete(objectKey(record.namespace, record.name));
  }
  return { applied, last };
}

/** The snapshot with the given segments (all found when not given) applied; undefined when neither exists. */
export async function loadState(dataFile: string, only?: string[]): Promise<LoadedState | undefined> {
  const text = await readIfPresent(dataFile);
  const found = only ? only.map((path) => ({ path, seq: Number(SEGMENT.exec(path)?.[1] ?? 0) })) : await listSegments(dataFile);
  if (text === undefined && found.length === 0) return undefined;
  const base = text === undefined ? { resourceVersion: 0, collections: new Map() as Collections } : parseSnapshot(dataFile, text);
  let resourceVersion = base.resourceVersion;
  let replayed = 0;
  const segments: LoadedState['segments'] = [];
  for (const segment of found) {
    const body = (await readIfPresent(segment.path)) ?? '';
    const { applied, last } = applySegment(segment.path, body, resourceVersion, base.collections);
    resourceVersion = last;
    replayed += applied;
    segments.push({ ...segment, bytes: Buffer.byteLength(body) });
  }
  return { resourceVersion, collections: base.collections, snapshotBytes: text === undefined ? 0 : Buffer.byteLength(text), segments, replayed };
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The snapshot file's text for this state: collections by key, objects by namespace/name. */
export function snapshotText(resourceVersion: number, collections: Collections): string {
  const out: Record<string, StoredObject[]> = {};
  for (const key of [...collections.keys()].sort(compareKeys)) {
    const collection = collections.get(key);
    if (!collection || collection.size === 0) continue;
    out[key] = [...collection.entries()].sort(([a], [b]) => compareKeys(a, b)).map(([, object]) => object);
  }
  return `${JSON.stringify({ format: FORMAT, resourceVersion: String(resourceVersion), collections: out }, null, 1)}\n`;
}

/** Writes `text` to `file` whole or not at all: a private temp file, flushed to disk, then renamed over it. */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const temp = `${file}.${process.pid}.${Math.random().toString(16).slice(2, 10)}.tmp`;
  try {
    const handle = await open(temp, 'w', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Folds `segments` into the snapshot: reads both from disk, writes the new snapshot atomically and
 * removes the segments. Answers the new snapshot's resourceVersion and size.
 */
export async function compact(dataFile: string, segments: string[]): Promise<{ resourceVersion: number; bytes: number; objects: number }> {
  const state = await loadState(dataFile, segments);
  const resourceVersion = state?.resourceVersion ?? 0;
  const collections = state?.collections ?? new Map();
  const text = snapshotText(resourceVersion, collections);
  await writeAtomically(dataFile, text);
  for (const segment of segments) await rm(segment, { force: true });
  let objects = 0;
  for (const collection of collections.values()) objects += collection.size;
  return { resourceVersion, bytes: Buffer.byteLength(text), objects };
}
