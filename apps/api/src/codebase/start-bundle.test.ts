import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../../../scripts/rules-index.ts';
import { bundle, consoleHash, ensureConsole, inputsHash, type Stamp } from '../../../../scripts/start.ts';

// scripts/start.ts (`npm start`'s last step) runs the product from a bundle it builds only when
// what the bundle is built from changed. A stale bundle would run code the developer has already
// changed, and a bundle whose paths (from import.meta.url) point elsewhere would run on the wrong
// folders; so this builds in a copy of the workspace's layout (never the tree's own cache, which a
// running `npm start` uses), changes one thing at a time, and starts the bundle there.

const root = repositoryRoot();
const work = mkdtempSync(path.join(tmpdir(), 'occ-start-bundle-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The workspace's sources and the files the product reads at run time; node_modules linked entry by entry (its own .cache stays apart). */
function copyWorkspace(): void {
  for (const file of ['package.json', 'prisma.config.ts', 'scripts/start.ts', 'scripts/db-generate.mjs']) cpSync(path.join(root, file), path.join(work, file));
  for (const dir of ['prisma', 'deploy']) cpSync(path.join(root, dir), path.join(work, dir), { recursive: true });
  for (const pkg of ['apps/api', 'packages/domain', 'packages/kube-emulator']) {
    cpSync(path.join(root, pkg, 'package.json'), path.join(work, pkg, 'package.json'));
    cpSync(path.join(root, pkg, 'src'), path.join(work, pkg, 'src'), { recursive: true });
  }
  mkdirSync(path.join(work, 'node_modules/@occ'), { recursive: true });
  for (const entry of readdirSync(path.join(root, 'node_modules'))) {
    if (entry === '.cache' || entry === '@occ') continue;
    symlinkSync(path.join(root, 'node_modules', entry), path.join(work, 'node_modules', entry));
  }
  symlinkSync(path.join(work, 'packages/domain'), path.join(work, 'node_modules/@occ/domain'));
  symlinkSync(path.join(work, 'packages/kube-emulator'), path.join(work, 'node_modules/@occ/kube-emulator'));
  symlinkSync(path.join(work, 'apps/api'), path.join(work, 'node_modules/@occ/api'));
}

const stamp = (): Stamp => JSON.parse(readFileSync(path.join(work, 'node_modules/.cache/occ-start.json'), 'utf8')) as Stamp;

/** `node scripts/start.ts` in the copy, on its embedded defaults, until it says it is running; then Ctrl-C. */
async function startAndStop(extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, OCC_PORT: '0', NO_COLOR: '1', ...extraEnv };
  for (const name of ['DATABASE_URL', 'KUBECONFIG', 'OCC_DATA_DIR', 'OCC_CONSOLE_DIR', 'NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE']) delete env[name];
  const child = spawn(process.execPath, ['scripts/start.ts'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (/is running/.test(output)) resolve();
      else if (child.exitCode !== null) reject(new Error(`the bundle exited ${child.exitCode} before it was running:\n${output.slice(-3000)}`));
      else return;
      clearInterval(check);
    }, 20);
  });
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  return output;
}

describe('npm start runs the product from a bundle built once per content (scripts/start.ts)', () => {
  it('builds once, reuses the bundle while nothing changed (a touched file included), and builds again when a source it holds changes', async () => {
    copyWorkspace();
    const first = await bundle(work);
    expect(first.built).toBe(true);
    // The entry and the three modules the product starts on threads, side by side.
    for (const entry of ['start.js', 'thread-main.js', 'persistence-compactor.js', 'embedded-postgres-thread.js']) expect(existsSync(path.join(first.dir, entry)), entry).toBe(true);
    // What it was built from: the workspace's sources reached from the entries, never node_modules.
    const inputs = stamp().inputs;
    expect(inputs).toContain('apps/api/src/cli/start.ts');
    expect(inputs).toContain('packages/domain/src/errors.ts');
    expect(inputs).toContain('apps/api/src/generated/prisma/client.ts');
    expect(inputs.filter((f) => f.includes('node_modules'))).toEqual([]);

    expect(await bundle(work)).toEqual({ dir: first.dir, built: false });
    const touched = path.join(work, 'packages/kube-emulator/src/store.ts');
    utimesSync(touched, new Date(), new Date(Date.now() + 60_000));
    expect(await bundle(work)).toEqual({ dir: first.dir, built: false });

    // A changed text the product prints (the last test sees it printed by the bundle).
    const serve = path.join(work, 'apps/api/src/cli/serve.ts');
    writeFileSync(serve, readFileSync(serve, 'utf8').replace('control plane is running.', 'control plane is running (changed).'));
    const second = await bundle(work);
    expect(second.built).toBe(true);
    expect(second.dir).not.toBe(first.dir);
    // Older bundles stay, two of them, for starts still running from them; the oldest beyond goes.
    expect(existsSync(first.dir)).toBe(true);
    const older: string[] = [first.dir, second.dir];
    for (const round of [1, 2]) {
      writeFileSync(serve, readFileSync(serve, 'utf8').replace(/control plane is running \((changed|round \d)\)\./, `control plane is running (round ${round}).`));
      const next = await bundle(work);
      expect(next.built).toBe(true);
      older.push(next.dir);
    }
    expect(older.map((dir) => existsSync(dir))).toEqual([false, true, true, true]);
    writeFileSync(serve, readFileSync(serve, 'utf8').replace(/control plane is running \(round \d\)\./, 'control plane is running (changed).'));
    const again = await bundle(work);
    // The same content as a bundle that is still there: that folder is the bundle again.
    expect(again).toEqual({ dir: second.dir, built: true });

    // A stamp whose bundle folder is gone (removed by hand): built again.
    rmSync(second.dir, { recursive: true });
    expect((await bundle(work)).built).toBe(true);
  }, 120_000);

  it('the hash covers each file the bundle was built from, one at a time, and the installed packages', () => {
    const { hash, inputs } = stamp();
    expect(inputsHash(work, inputs)).toBe(hash);
    for (const file of inputs) {
      const full = path.join(work, file);
      const before = readFileSync(full);
      writeFileSync(full, Buffer.concat([before, Buffer.from(' ')]));
      const changed = inputsHash(work, inputs);
      writeFileSync(full, before);
      expect(changed, file).not.toBe(hash);
    }
    expect(inputsHash(work, [...inputs, 'apps/api/src/removed.ts'])).toBeNull();
    const lock = path.join(work, 'node_modules/.package-lock.json');
    rmSync(lock);
    writeFileSync(lock, '{"changed": true}');
    expect(inputsHash(work, inputs)).not.toBe(hash);
  }, 60_000);

  it('the bundle runs the product on the folders of its own tree: its data folder, migrations and manifests from paths it computes from its own location', async () => {
    const output = await startAndStop();
    expect(output).toMatch(/Built the product for `npm start`/); // the lock file changed above
    expect(output).toContain('control plane is running (changed).');
    // REPO_ROOT as the bundle computes it is the copy: the default data folder is made there.
    const state = JSON.parse(readFileSync(path.join(work, '.data/state.json'), 'utf8')) as { pid: number };
    expect(state.pid).toBeGreaterThan(0);
    expect(output).toContain(`embedded PGlite (${path.join(work, '.data/pglite')})`);
    // The first start left V8's code cache beside its bundle.
    const dir = path.join(work, 'node_modules/.cache', stamp().dir);
    expect(readdirSync(path.join(dir, '.compile-cache')).length).toBeGreaterThan(0);
    // A second start: the bundle is current, nothing is built, and the product's entry and the
    // modules of its two threads (the cluster's, PGlite's) are compiled from that cache (Node's
    // own report of it: NODE_DEBUG_NATIVE=COMPILE_CACHE).
    const second = await startAndStop({ NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(second).not.toMatch(/Built the product/);
    for (const entry of ['start.js', 'thread-main.js', 'embedded-postgres-thread.js']) {
      expect(second, entry).toContain(`V8 code cache for ESM ${pathToFileURL(path.join(dir, entry)).href} was accepted`);
    }
  }, 180_000);

  it('the console is built again exactly when a file it is built from changed, never for its outputs, caches or installs', () => {
    // A copy of the console's tree without its installs and outputs, plus the root files the hash reads.
    const consoleRoot = path.join(work, 'console-copy');
    cpSync(path.join(root, 'apps/console'), path.join(consoleRoot, 'apps/console'), {
      recursive: true,
      filter: (src) => !/\/apps\/console\/(node_modules|out|\.next|\.turbo)(\/|$)/.test(src),
    });
    for (const file of ['package.json', 'package-lock.json', 'turbo.json']) cpSync(path.join(root, file), path.join(consoleRoot, file));
    const built: string[] = [];
    const build = () => {
      built.push('console');
      mkdirSync(path.join(consoleRoot, 'apps/console/out'), { recursive: true });
      writeFileSync(path.join(consoleRoot, 'apps/console/out/index.html'), '<!doctype html>');
    };
    expect(ensureConsole(consoleRoot, build)).toEqual({ built: true });
    expect(ensureConsole(consoleRoot, build)).toEqual({ built: false });

    // Every file it is built from, one at a time.
    const inputs: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(path.join(consoleRoot, dir), { withFileTypes: true })) {
        const rel = `${dir}/${entry.name}`;
        if (entry.isDirectory()) {
          if (rel !== 'apps/console/out' && !entry.name.startsWith('.schema-drift-')) walk(rel);
        } else if (!['next-env.d.ts', 'tsconfig.tsbuildinfo'].includes(entry.name)) inputs.push(rel);
      }
    };
    walk('apps/console');
    expect(inputs.length).toBeGreaterThan(50);
    const hash = consoleHash(consoleRoot);
    for (const file of [...inputs, 'package.json', 'package-lock.json', 'turbo.json']) {
      const full = path.join(consoleRoot, file);
      const before = readFileSync(full);
      writeFileSync(full, Buffer.concat([before, Buffer.from(' ')]));
      const changed = consoleHash(consoleRoot);
      writeFileSync(full, before);
      expect(changed, file).not.toBe(hash);
    }
    // A new file in it counts too; outputs, caches and installs do not.
    writeFileSync(path.join(consoleRoot, 'apps/console/lib/new-module.ts'), 'export {};\n');
    expect(consoleHash(consoleRoot)).not.toBe(hash);
    rmSync(path.join(consoleRoot, 'apps/console/lib/new-module.ts'));
    for (const output of ['out/page.html', '.next/cache/x', 'node_modules/x/index.js', '.turbo/turbo-build.log', 'next-env.d.ts', 'tsconfig.tsbuildinfo', '.schema-drift-1/schema.graphql']) {
      mkdirSync(path.dirname(path.join(consoleRoot, 'apps/console', output)), { recursive: true });
      writeFileSync(path.join(consoleRoot, 'apps/console', output), 'x');
    }
    expect(consoleHash(consoleRoot)).toBe(hash);
    expect(ensureConsole(consoleRoot, build)).toEqual({ built: false });

    // The export removed by hand: built again.
    rmSync(path.join(consoleRoot, 'apps/console/out'), { recursive: true });
    expect(ensureConsole(consoleRoot, build)).toEqual({ built: true });
    expect(built).toEqual(['console', 'console']);
  }, 60_000);
});
