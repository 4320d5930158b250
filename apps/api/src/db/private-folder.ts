import { chmodSync, lstatSync, mkdirSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';

// P8: the embedded defaults keep API key hashes, the audit trail, the embedded cluster's objects
// (Secret values among them), its CA key and the admin kubeconfig in one data folder. Only the
// product's own user may open any of it: the folder is 0700, what is inside 0600 (folders 0700).
// A folder another user could write (or one owned by someone else) is refused with the fix; one
// merely readable by others, as earlier releases left it, is tightened and said so.

export class DataFolderNotPrivateError extends Error {
  override name = 'DataFolderNotPrivateError';
}

export interface PrivateFolderReport {
  /** Paths whose mode was tightened (relative to the folder), at most the first 20. */
  tightened: string[];
  tightenedCount: number;
}

const OTHERS_WRITE = 0o022;
const OTHERS_ANY = 0o077;

/**
 * Makes `folder` (created 0700 if missing) and everything under it private to this process's user.
 * Refuses, before anything is read from it, a folder that group or others may write or that another
 * user owns: its contents could have been replaced, and chmod would not undo that.
 */
export async function ensurePrivateFolder(folder: string): Promise<PrivateFolderReport> {
  return ensurePrivateFolderNow(folder);
}

// Synchronous file calls: this runs at start-up, when nothing else waits on the thread. Walked with
// asynchronous calls, the ~1,000 files of PGlite's folder took turns with the product's module
// loading (start.ts runs this while serve.ts loads) and held the database's start back by a second.
function ensurePrivateFolderNow(folder: string): PrivateFolderReport {
  let existing: Stats | null;
  try {
    existing = lstatSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    existing = null;
  }
  if (existing && !existing.isDirectory()) throw new DataFolderNotPrivateError(`The data folder ${folder} is not a folder; set OCC_DATA_DIR to a folder, or move the file away.`);
  if (!existing) mkdirSync(folder, { recursive: true, mode: 0o700 });
  const uid = process.getuid?.();
  const top = existing ?? lstatSync(folder);
  if (uid !== undefined && top.uid !== uid) {
    throw new DataFolderNotPrivateError(
      `The data folder ${folder} belongs to uid ${top.uid}, not to this process's user (uid ${uid}); others could have changed what is in it. Run as its owner, or move it away and start again (a new installation).`,
    );
  }
  if (top.mode & OTHERS_WRITE) {
    throw new DataFolderNotPrivateError(
      `The data folder ${folder} is writable by other users (mode ${(top.mode & 0o777).toString(8)}); what is in it could have been replaced. If you trust its contents, run \`chmod -R go-rwx ${folder}\` and start again; otherwise move it away (a new installation).`,
    );
  }
  const report: PrivateFolderReport = { tightened: [], tightenedCount: 0 };
  const tighten = (file: string, mode: number, wanted: number) => {
    if ((mode & OTHERS_ANY) === 0) return;
    chmodSync(file, wanted);
    report.tightenedCount++;
    if (report.tightened.length < 20) report.tightened.push(path.relative(folder, file) || '.');
  };
  tighten(folder, top.mode, 0o700);
  // Iterative walk: the folder's depth is PGlite's and the emulator's, but nothing here recurses.
  const pending = [folder];
  while (pending.length) {
    const dir = pending.pop()!;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) continue; // chmod would follow it out of the folder
      const stat = lstatSync(file);
      if (entry.isDirectory()) {
        tighten(file, stat.mode, 0o700);
        pending.push(file);
      } else if (entry.isFile()) {
        tighten(file, stat.mode, 0o600);
      }
      // Sockets (the embedded database's) live in a 0700 folder; their own mode is not what guards them.
    }
  }
  return report;
}
