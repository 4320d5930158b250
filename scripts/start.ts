// `npm start`: builds the console's export when its sources changed (below, ensureConsole), then runs the product (apps/api/src/cli/start.ts) from a bundle that esbuild
// writes once per content of what it is built from, instead of loading about 2,000 TypeScript and
// JavaScript modules through tsx's loader hooks on every start (1.7–2.0 s of a 3.3 s start;
// the bundle loads in about 0.4 s; README: Performance, start-up).
//
// - What is bundled: start.ts and the three modules the product runs on threads of their own (the
//   embedded cluster, its compactor, the embedded database), with the workspace packages and the
//   npm packages they import. Kept outside: PGlite, Prisma's runtime and pg, which load files
//   (WebAssembly, engines) from beside their own modules.
// - Where: node_modules/.cache/occ-start-<hash>/, three folders below the repository as the sources
//   are (apps/api/src, packages/*/src), so paths the product computes from import.meta.url
//   (REPO_ROOT, deploy/) hold, and a thread's module is found beside the module that starts it.
// - When it is built again: when the content of any workspace file it was built from changed (the
//   list comes from esbuild's metafile), or the installed packages (node_modules/.package-lock.json),
//   or this file. A current bundle costs reading those files (about 270, 10 ms). A changed source
//   costs one esbuild run (about 2 s) on the next start, not a tsc build.
// - Source maps are on, so a stack trace names the TypeScript file and line.
// - OCC_START_FROM_SOURCE=1 runs start.ts through tsx as before, for a developer who wants that.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import module from 'node:module';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensurePrismaClient } from './db-generate.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheOf = (root: string) => path.join(root, 'node_modules', '.cache');
const stampOf = (root: string) => path.join(cacheOf(root), 'occ-start.json');
const ENTRY = 'apps/api/src/cli/start.ts';
/** The product's modules that run on threads of their own; each is found beside its starter. */
const THREADS = ['packages/kube-emulator/src/thread-main.ts', 'packages/kube-emulator/src/persistence-compactor.ts', 'apps/api/src/db/embedded-postgres-thread.ts'];
/** Loaded from their own folders: they read files (WebAssembly, engines) that sit beside their modules. */
const EXTERNAL = ['@electric-sql/*', '@prisma/*', 'pg', 'pg-native'];
/** How many older bundles stay beside the current one (about 30 MB each). */
const KEEP = 2;

/** What `npm start` finds in node_modules/.cache: the current bundle's folder and what it was built from. */
export interface Stamp {
  hash: string;
  dir: string;
  /** Workspace files, relative to the repository (esbuild's metafile less node_modules). */
  inputs: string[];
}

/** The hash of everything a bundle is built from: the listed workspace files, the installed packages, this file; null when a listed file is gone. */
export function inputsHash(root: string, files: readonly string[]): string | null {
  const hash = createHash('sha256');
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  const installed = path.join(root, 'node_modules', '.package-lock.json');
  hash.update(existsSync(installed) ? readFileSync(installed) : '');
  for (const file of [...files].sort()) {
    let content: Buffer;
    try {
      content = readFileSync(path.join(root, file));
    } catch {
      return null; // a file the bundle was built from is gone: build again
    }
    hash.update(`\0${file}\0`).update(content);
  }
  return hash.digest('hex');
}

/** A stamp file's JSON, or null when there is none or it is unreadable. */
function readJson<T>(file: string): Partial<T> | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Partial<T>;
  } catch {
    return null;
  }
}

/** Written whole or not at all: a start beside this one reads the old file or the new one. */
function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(`${file}.${process.pid}`, JSON.stringify(value));
  renameSync(`${file}.${process.pid}`, file);
}

/** The stamp of the current bundle, or null when there is none or it is unreadable. */
function readStamp(root: string): Stamp | null {
  const stamp = readJson<Stamp>(stampOf(root));
  return stamp && typeof stamp.hash === 'string' && Array.isArray(stamp.inputs) && typeof stamp.dir === 'string' ? (stamp as Stamp) : null;
}

/** Bundles into a folder named by the hash of its inputs; returns that folder. Older bundles beyond the newest KEEP are removed. */
async function build(root: string): Promise<string> {
  const { build: esbuild } = await import('esbuild');
  const began = performance.now();
  const cache = cacheOf(root);
  const building = path.join(cache, `occ-start-building-${process.pid}`);
  rmSync(building, { recursive: true, force: true });
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: [ENTRY, ...THREADS],
    outdir: building,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]', // beside the entries: a thread's module is found beside its starter's
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    external: EXTERNAL,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'error',
    // CommonJS packages inside an ES module bundle: `require` of Node's own modules and __dirname.
    banner: {
      js: [
        "import { createRequire as __occCreateRequire } from 'node:module';",
        "import { fileURLToPath as __occFileURLToPath } from 'node:url';",
        'const require = __occCreateRequire(import.meta.url);',
        'const __filename = __occFileURLToPath(import.meta.url);',
        "const __dirname = __occFileURLToPath(new URL('.', import.meta.url));",
      ].join('\n'),
    },
  });
  const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.split('/').includes('node_modules'));
  const hash = inputsHash(root, inputs);
  if (!hash) throw new Error('scripts/start.ts: a file esbuild just read is gone; start again');
  const dir = path.join(cache, `occ-start-${hash.slice(0, 16)}`);
  // A folder of that name is whole (it only ever appears by a rename): another start built the
  // same content meanwhile, and may be running from it.
  if (existsSync(path.join(dir, 'start.js'))) rmSync(building, { recursive: true, force: true });
  else {
    rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
  }
  const stamp: Stamp = { hash, dir: path.basename(dir), inputs };
  writeJson(stampOf(root), stamp);
  // Older bundles: the newest KEEP stay, since a start still running from one loads modules from
  // it later (the cluster's compactor thread) and maps its stack traces through it.
  const older = readdirSync(cache)
    .filter((name) => name.startsWith('occ-start-') && !name.startsWith('occ-start-building-') && name !== stamp.dir)
    .map((name) => ({ name, at: statSync(path.join(cache, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { name } of older.slice(KEEP)) rmSync(path.join(cache, name), { recursive: true, force: true });
  process.stderr.write(`Built the product for \`npm start\` in ${((performance.now() - began) / 1000).toFixed(1)} s from ${inputs.length} of the workspace's files.\n`);
  return dir;
}

/** The current bundle's folder under `root`, built first when what it is built from changed. */
export async function bundle(root: string = ROOT): Promise<{ dir: string; built: boolean }> {
  const stamp = readStamp(root);
  if (stamp) {
    const dir = path.join(cacheOf(root), stamp.dir);
    if (existsSync(path.join(dir, 'start.js')) && inputsHash(root, stamp.inputs) === stamp.hash) return { dir, built: false };
  }
  return { dir: await build(root), built: true };
}

/** Folders and files under apps/console that are outputs, caches or installs, never what the export is built from. */
const CONSOLE_NOT_INPUTS = new Set(['node_modules', 'out', '.next', '.turbo', 'next-env.d.ts', 'tsconfig.tsbuildinfo']);

/** The hash of what the console's export is built from: every file under apps/console but its outputs, and the root's package files and turbo.json. */
export function consoleHash(root: string): string {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json', 'turbo.json']) hash.update(`\0${file}\0`).update(readFileSync(path.join(root, file)));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (CONSOLE_NOT_INPUTS.has(entry.name) || entry.name.startsWith('.schema-drift-')) continue;
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile()) hash.update(`\0${rel}\0`).update(readFileSync(path.join(root, rel)));
    }
  };
  walk('apps/console');
  return hash.digest('hex');
}

/**
 * The console's static export, built by turbo when what it is built from changed since the last
 * build this script saw succeed. turbo answers a current build from its cache too, but starting it
 * costs more than this check, which reads the console's files (about 10 ms).
 */
export function ensureConsole(root: string = ROOT, buildConsole: () => void = () => turboBuildConsole(root)): { built: boolean } {
  const stampFile = path.join(cacheOf(root), 'occ-console.json');
  const hash = consoleHash(root);
  if (readJson<{ hash: string }>(stampFile)?.hash === hash && existsSync(path.join(root, 'apps/console/out/index.html'))) return { built: false };
  buildConsole();
  writeJson(stampFile, { hash });
  return { built: true };
}

/** turbo's build of the console (its cache answers when it built the same content before); exits with turbo's status when it fails. */
function turboBuildConsole(root: string): void {
  const turbo = spawnSync(path.join(root, 'node_modules/.bin/turbo'), ['run', 'build', '--filter=@occ/console', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
  if (turbo.status !== 0) process.exit(turbo.status ?? 1);
}

/**
 * V8's code cache for the bundle, on disk beside it (Node's module compile cache): a second start
 * compiles the bundle's few large modules from the cache instead of from their text, in this thread
 * and in the product's threads, which inherit the folder through NODE_COMPILE_CACHE. The cache is
 * keyed by each module's content, so it goes with its bundle. NODE_COMPILE_CACHE, when set, names
 * another folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off. Returns the folder, or null when off.
 */
export function enableBundleCompileCache(bundleDir: string): string | null {
  const folder = process.env.NODE_COMPILE_CACHE || path.join(bundleDir, '.compile-cache');
  const enabled = module.enableCompileCache(folder);
  if (!enabled.directory) return null;
  process.env.NODE_COMPILE_CACHE = enabled.directory;
  return enabled.directory;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Prisma's client first (the bundle holds it), in this process rather than a Node of its own.
  const prisma = ensurePrismaClient(ROOT);
  if (prisma !== 0) process.exit(prisma);
  if (process.argv.includes('--with-console')) ensureConsole();
  if (process.env.OCC_START_FROM_SOURCE === '1') {
    const { register } = await import('tsx/esm/api');
    register();
    await import(pathToFileURL(path.join(ROOT, ENTRY)).href);
  } else {
    const { dir } = await bundle();
    process.setSourceMapsEnabled(true);
    const compileCache = enableBundleCompileCache(dir);
    await import(pathToFileURL(path.join(dir, 'start.js')).href);
    // Running: what this thread compiled so far is written now, not only at exit.
    if (compileCache) module.flushCompileCache();
  }
}
