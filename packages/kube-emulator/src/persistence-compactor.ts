// The compaction worker thread (persistence.ts starts one per compaction): folds log segments into
// the snapshot from the files alone, so the server's event loop never serialises the whole store.
// Loaded without the dev toolchain: see persistence-format.ts.

import { parentPort, workerData } from 'node:worker_threads';
import { compact } from './persistence-format.ts';

const { dataFile, segments } = workerData as { dataFile: string; segments: string[] };
compact(dataFile, segments).then(
  (result) => parentPort?.postMessage({ ok: true, ...result }),
  (error: unknown) => parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) }),
);
