// The data files (format in persistence-format.ts): a snapshot and a write-ahead log of the writes
// since it. A write costs its own object: its record is appended to the current log segment, the
// records of one event-loop turn in one append, written by libuv off the event loop. When the log
// outgrows its budget (half the snapshot, at least `compactAfterBytes`), a new segment is started
// and a worker thread folds the older ones into a new snapshot from the files alone; closing folds
// what is left, so a cleanly closed data file is one snapshot, as every earlier release wrote.
// Appends are not fsynced (a process crash loses nothing the kernel was handed; a machine crash can
// lose the last writes); snapshots are, before they replace the old one.

import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { loadState, segmentPath } from './persistence-format.ts';
import type { StoreEvent, StoreSnapshot } from './store.ts';
import type { KubeObject } from './types.ts';

export const DEFAULT_COMPACT_AFTER_BYTES = 4 * 1024 * 1024;

export interface LoadedDataFile {
  snapshot: StoreSnapshot;
  snapshotBytes: number;
  segments: string[];
  lastSeq: number;
}

/** The stored state (snapshot plus log), or undefined when there is none yet. */
export async function loadDataFile(file: string): Promise<LoadedDataFile | undefined> {
  const state = await loadState(file);
  if (!state) return undefined;
  const collections: Record<string, KubeObject[]> = {};
  for (const [key, objects] of state.collections) collections[key] = [...objects.values()] as KubeObject[];
  return {
    snapshot: { resourceVersion: state.resourceVersion, collections },
    snapshotBytes: state.snapshotBytes,
    segments: state.segments.map((s) => s.path),
    lastSeq: state.segments.at(-1)?.seq ?? 0,
  };
}

function recordOf(event: StoreEvent): string {
  const { type, storageKey: key, resourceVersion: rv, object } = event;
  const record =
    type === 'DELETED'
      ? { rv, op: 'delete', key, ...(object.metadata.namespace === undefined ? {} : { namespace: object.metadata.namespace }), name: object.metadata.name }
      : { rv, op: 'put', key, object };
  return `${JSON.stringify(record)}\n`;
}

/** Where the compaction worker's module is: beside this one, .ts in development and tests, .js when built. */
function compactorUrl(): URL {
  return new URL(import.meta.url.endsWith('.ts') ? './persistence-compactor.ts' : './persistence-compactor.js', import.meta.url);
}

function compactInWorker(dataFile: string, segments: string[]): Promise<{ resourceVersion: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(compactorUrl(), { workerData: { dataFile, segments } });
    let answered = false;
    worker.once('message', (message: { ok: true; resourceVersion: number; bytes: number } | { ok: false; message: string }) => {
      answered = true;
      if (message.ok) resolve(message);
      else reject(new Error(`kube-emulator: compacting ${dataFile} failed: ${message.message}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`kube-emulator: the compaction worker for ${dataFile} exited with ${code} before answering`));
    });
  });
}

export interface DataFileWriterOptions {
  /** The log's budget before compaction: at least this many bytes, or half the snapshot when larger. */
  compactAfterBytes?: number;
  onError?: (error: unknown) => void;
}

/** Appends every store write to the log and keeps the log compacted; `close` leaves one snapshot. */
export class DataFileWriter {
  private readonly minBytes: number;
  private readonly onError: (error: unknown) => void;
  private snapshotBytes: number;
  /** Segments written and closed, waiting to be folded into the snapshot. */
  private sealed: string[];
  private seq: number;
  private handle: Promise<FileHandle> | undefined;
  private currentBytes = 0;
  private pending: string[] = [];
  private flushScheduled = false;
  /** Appends and segment closes, in order. */
  private appending: Promise<void> = Promise.resolve();
  private compacting: Promise<void> | undefined;
  private closed = false;
  private compactions = 0;

  constructor(
    private readonly file: string,
    loaded: LoadedDataFile | undefined,
    options: DataFileWriterOptions = {},
  ) {
    this.minBytes = options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES;
    this.onError = options.onError ?? ((error) => console.error('kube-emulator: writing the data files failed', error));
    this.snapshotBytes = loaded?.snapshotBytes ?? 0;
    this.sealed = [...(loaded?.segments ?? [])];
    this.seq = (loaded?.lastSeq ?? 0) + 1;
    // Segments left by a process that stopped without closing are folded in now, off the event loop.
    if (this.sealed.length > 0) this.startCompaction();
  }

  /** Queues the write's record; the records of one turn of the event loop go out in one append. */
  record(event: StoreEvent): void {
    if (this.closed) return;
    const line = recordOf(event);
    this.pending.push(line);
    this.currentBytes += Buffer.byteLength(line);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flushPending());
    }
    if (this.currentBytes >= Math.max(this.minBytes, this.snapshotBytes / 2) && !this.compacting) {
      this.flushPending();
      this.seal();
      this.startCompaction();
    }
  }

  /** Waits until every record so far has been handed to the kernel. */
  async flush(): Promise<void> {
    this.flushPending();
    await this.appending;
  }

  /** Waits for the appends so far and for a running compaction (one started meanwhile too). */
  async idle(): Promise<void> {
    await this.flush();
    while (this.compacting) await this.compacting;
  }

  /** The current segment's bytes, the snapshot's size and how many compactions have finished. */
  stats(): { log: number; snapshot: number; compactions: number } {
    return { log: this.currentBytes, snapshot: this.snapshotBytes, compactions: this.compactions };
  }

  /** Appends what is queued, closes the log and folds it into the snapshot. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flushPending();
    this.closed = true;
    if (this.currentBytes > 0) this.seal();
    await this.appending;
    await this.compacting;
    if (this.sealed.length > 0) {
      this.startCompaction();
      await this.compacting;
    }
  }

  private flushPending(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    const path = segmentPath(this.file, this.seq);
    this.handle ??= mkdir(dirname(this.file), { recursive: true }).then(() => open(path, 'a', 0o600));
    const handle = this.handle;
    this.appending = this.appending.then(async () => {
      await (await handle).appendFile(text);
    });
    this.appending.catch(this.onError);
  }

  /** Ends the current segment (after its appends) and starts the next. */
  private seal(): void {
    const handle = this.handle;
    if (handle) this.appending = this.appending.then(async () => (await handle).close());
    this.appending.catch(this.onError);
    this.sealed.push(segmentPath(this.file, this.seq));
    this.seq += 1;
    this.handle = undefined;
    this.currentBytes = 0;
  }

  private startCompaction(): void {
    const segments = [...this.sealed];
    this.compacting = (async () => {
      try {
        await this.appending.catch(() => undefined);
        const result = await compactInWorker(this.file, segments);
        this.snapshotBytes = result.bytes;
        this.compactions += 1;
        this.sealed = this.sealed.filter((s) => !segments.includes(s));
      } catch (error) {
        // The segments stay; the next compaction (or the next start) folds them in.
        this.onError(error);
      } finally {
        this.compacting = undefined;
      }
    })();
  }
}
