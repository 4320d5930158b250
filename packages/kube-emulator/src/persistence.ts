// The data file: the store's snapshot as JSON, read at start and written back atomically (temp
// file + rename) a little after each burst of writes and once more on close.

import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { StoreSnapshot } from './store.ts';
import { isObject, type KubeObject } from './types.ts';

const FORMAT = 'occ.kube-emulator/v1';

interface DataFile {
  format: typeof FORMAT;
  resourceVersion: string;
  collections: Record<string, KubeObject[]>;
}

export async function loadSnapshot(file: string): Promise<StoreSnapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = JSON.parse(text) as unknown;
  if (!isObject(parsed) || parsed.format !== FORMAT || !isObject(parsed.collections)) {
    throw new Error(`${file} is not a kube-emulator data file (expected format ${FORMAT})`);
  }
  const data = parsed as unknown as DataFile;
  return { resourceVersion: Number(data.resourceVersion), collections: data.collections };
}

async function writeAtomically(file: string, snapshot: StoreSnapshot): Promise<void> {
  const data: DataFile = {
    format: FORMAT,
    resourceVersion: String(snapshot.resourceVersion),
    collections: snapshot.collections,
  };
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(data, null, 1)}\n`, { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Debounced writer: `schedule` after each change, `flush` to write now and wait. */
export class SnapshotWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(
    private readonly file: string,
    private readonly snapshot: () => StoreSnapshot,
    private readonly delayMs = 100,
    private readonly onError: (error: unknown) => void = (error) => console.error('kube-emulator: writing data file failed', error),
  ) {}

  schedule(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write().catch(this.onError);
    }, this.delayMs);
  }

  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    await this.write();
  }

  private write(): Promise<void> {
    // Writes run one after another so a slow older write never lands after a newer one.
    this.writing = this.writing
      .catch(() => undefined)
      .then(async () => {
        if (!this.dirty) return;
        this.dirty = false;
        await writeAtomically(this.file, this.snapshot());
      });
    return this.writing;
  }
}
