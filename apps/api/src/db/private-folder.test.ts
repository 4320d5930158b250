import { chmod, lstat, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DataFolderNotPrivateError, ensurePrivateFolder } from './private-folder.ts';

// P8 at the level of the folder walk: which modes are tightened, which are refused, and that nothing
// outside the folder is touched. The product's start (embedded-privacy.test.ts) runs it for real.

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});
async function scratch(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'occ-private-'));
  roots.push(root);
  return root;
}
const modeOf = async (file: string) => (await lstat(file)).mode & 0o777;

describe('P8 the data folder is private to the product', () => {
  it('P8 a missing folder is made 0700', async () => {
    const folder = path.join(await scratch(), 'a', 'data');
    await ensurePrivateFolder(folder);
    expect(await modeOf(folder)).toBe(0o700);
  });

  it('P8 for generated trees of files and folders readable by others, every folder ends 0700 and every file 0600, and the count says how many were changed', async () => {
    const entry = fc.record({
      depth: fc.integer({ min: 0, max: 3 }),
      name: fc.stringMatching(/^[a-z]{1,8}$/),
      // Modes an earlier release or a user's umask leaves: never writable by others (that is refused).
      mode: fc.constantFrom(0o600, 0o640, 0o644, 0o604, 0o700, 0o750, 0o755),
    });
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(entry, { minLength: 1, maxLength: 12, selector: (e) => `${e.depth}/${e.name}` }), fc.constantFrom(0o700, 0o750, 0o755), async (entries, topMode) => {
        const folder = path.join(await scratch(), 'data');
        await mkdir(folder, { mode: 0o700 });
        let dir = folder;
        const files: Array<{ file: string; mode: number }> = [];
        for (const [i, e] of entries.entries()) {
          dir = path.join(folder, ...Array.from({ length: e.depth }, (_, d) => `d${d}`));
          await mkdir(dir, { recursive: true });
          const file = path.join(dir, `${e.name}-${i}`);
          await writeFile(file, 'x');
          await chmod(file, e.mode);
          files.push({ file, mode: e.mode });
        }
        await chmod(folder, topMode);
        const expectedChanges = files.filter((f) => f.mode & 0o077).length + (topMode & 0o077 ? 1 : 0);
        const report = await ensurePrivateFolder(folder);
        expect(await modeOf(folder)).toBe(0o700);
        for (const f of files) expect(await modeOf(f.file), f.file).toBe(f.mode & 0o077 ? 0o600 : f.mode);
        // Sub-folders made by mkdir under this process's umask count too; at least the files and the top.
        expect(report.tightenedCount).toBeGreaterThanOrEqual(expectedChanges);
        expect(report.tightened.length).toBe(Math.min(report.tightenedCount, 20));
        expect(await ensurePrivateFolder(folder)).toEqual({ tightened: [], tightenedCount: 0 });
      }),
      { numRuns: 25 },
    );
  });

  it.each([0o777, 0o775, 0o757, 0o722, 0o702, 0o720])('P8 a folder others may write (mode %o) is refused with the fix, and nothing in it is changed', async (mode) => {
    const folder = path.join(await scratch(), 'data');
    await mkdir(folder);
    await writeFile(path.join(folder, 'kubeconfig.yaml'), 'x');
    await chmod(path.join(folder, 'kubeconfig.yaml'), 0o644);
    await chmod(folder, mode);
    const refusal = await ensurePrivateFolder(folder).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(DataFolderNotPrivateError);
    expect((refusal as Error).message).toContain(`chmod -R go-rwx ${folder}`);
    expect((refusal as Error).message).toContain(`mode ${mode.toString(8)}`);
    expect(await modeOf(folder)).toBe(mode);
    expect(await modeOf(path.join(folder, 'kubeconfig.yaml'))).toBe(0o644);
  });

  it('P8 a path that is a file, not a folder, is refused', async () => {
    const file = path.join(await scratch(), 'data');
    await writeFile(file, 'x');
    await expect(ensurePrivateFolder(file)).rejects.toBeInstanceOf(DataFolderNotPrivateError);
  });

  it('P8 a symbolic link inside the folder is not followed: what it points at keeps its mode', async () => {
    const root = await scratch();
    const outside = path.join(root, 'outside.txt');
    await writeFile(outside, 'x');
    await chmod(outside, 0o644);
    const folder = path.join(root, 'data');
    await mkdir(folder, { mode: 0o700 });
    await symlink(outside, path.join(folder, 'link'));
    await ensurePrivateFolder(folder);
    expect(await modeOf(outside)).toBe(0o644);
  });

  it.runIf(process.getuid?.() === 0)('P8 a folder another user owns is refused (run as root: the folder is handed to nobody)', async () => {
    const folder = path.join(await scratch(), 'data');
    await mkdir(folder, { mode: 0o700 });
    const { chown } = await import('node:fs/promises');
    await chown(folder, 65534, 65534);
    await expect(ensurePrivateFolder(folder)).rejects.toThrow(/belongs to uid 65534/);
  });
});
