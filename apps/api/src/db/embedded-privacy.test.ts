import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../log.ts';
import { startRuntime, type Runtime } from '../runtime.ts';
import { DataFolderNotPrivateError } from './private-folder.ts';

// P8, as another user of the same machine meets `npm start`'s embedded defaults: the database answers
// no one but the product (no TCP listener speaks PostgreSQL; its Unix socket is in a 0700 folder), and
// the data folder, the kubeconfig with the admin token and every file PGlite and the emulator write
// cannot be opened. The folder is made inside a 0755 parent, as a home folder or a checkout is, so
// the parent does not hide anything the product leaves open. The other user is `nobody` (uid 65534),
// reached with runuser, so these cases need root (CI runs as root).

const asRoot = process.getuid?.() === 0;
const lines: string[] = [];
const logger = createLogger((line) => lines.push(line), 'info');
const roots: string[] = [];
let runtime: Runtime | null = null;
let dataDir = '';

afterAll(async () => {
  await runtime?.close();
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

async function openParent(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'occ-p8-'));
  roots.push(root);
  await chmod(root, 0o755);
  return root;
}

/** The TCP ports this process listens on (from /proc: its socket inodes matched to LISTEN rows). */
async function listeningTcpPorts(): Promise<number[]> {
  const inodes = new Set<string>();
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m) inodes.add(m[1]!);
  }
  const ports = new Set<number>();
  for (const table of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const row of text.split('\n').slice(1)) {
      const cols = row.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '0A') continue; // 0A: LISTEN
      if (inodes.has(cols[9]!)) ports.add(Number.parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** Runs a command as `nobody`; its exit code and what it printed. */
function asNobody(command: string, args: string[]): { status: number | null; output: string } {
  const r = spawnSync('/usr/sbin/runuser', ['-u', 'nobody', '--', command, ...args], { encoding: 'utf8', timeout: 20_000, env: { PATH: '/usr/bin:/bin', PGCONNECT_TIMEOUT: '5' } });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('P8 the embedded defaults are private to the product', () => {
  beforeAll(async () => {
    dataDir = path.join(await openParent(), 'data');
    const env = { dataDir, databaseUrl: null, kubeconfig: null };
    runtime = await startRuntime({ env, logger, startWorker: false });
    // Something of every store on disk: an API key row and an audit event are written at bootstrap.
  }, 180_000);

  it('P8 no TCP port of the process speaks PostgreSQL: a client with the embedded user and no password is refused on each', async () => {
    const ports = await listeningTcpPorts();
    expect(ports.length).toBeGreaterThan(0); // the embedded Kubernetes API server at least
    for (const port of ports) {
      const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 3_000 });
      client.on('error', () => {});
      const connected = await client.connect().then(
        () => true,
        () => false,
      );
      if (connected) await client.end();
      expect(connected, `port ${port} accepted a PostgreSQL session`).toBe(false);
    }
    expect(runtime!.databaseUrl).not.toMatch(/@[^/]*:\d+\//);
  });

  it('P8 the data folder is 0700 and every file in it 0600, the kubeconfig included, after the product wrote them', async () => {
    expect((await lstat(dataDir)).mode & 0o777).toBe(0o700);
    expect((await lstat(path.join(dataDir, 'kubeconfig.yaml'))).mode & 0o777).toBe(0o600);
    const open: string[] = [];
    let files = 0;
    for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
      const file = path.join(entry.parentPath, entry.name);
      const mode = (await lstat(file)).mode & 0o777;
      if (entry.isFile()) files++;
      if ((entry.isFile() || entry.isDirectory()) && mode & 0o077) open.push(`${path.relative(dataDir, file)} ${mode.toString(8)}`);
    }
    expect(files).toBeGreaterThan(100); // PGlite's cluster and the emulator's state are really there
    expect(open).toEqual([]);
  });

  it.runIf(asRoot)('P8 another local user can open neither the database socket, nor the kubeconfig, nor any data file', async () => {
    const socketDir = new URL(runtime!.databaseUrl).searchParams.get('host')!;
    expect(socketDir.startsWith(dataDir) || socketDir.startsWith(tmpdir())).toBe(true);
    // The product itself reaches it with the same URL (no password).
    const own = new pg.Client({ connectionString: runtime!.databaseUrl });
    await own.connect();
    expect((await own.query<{ n: number }>('SELECT count(*)::int AS n FROM "ApiKey"')).rows[0]!.n).toBeGreaterThan(0);
    await own.end();

    const psql = asNobody('psql', ['-X', '-h', socketDir, '-U', 'postgres', '-d', 'postgres', '-c', 'SELECT 1']);
    expect(psql.status).not.toBe(0);
    expect(psql.output).toMatch(/Permission denied/i);
    for (const port of await listeningTcpPorts()) {
      const tcp = asNobody('psql', ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-c', 'SELECT 1']);
      expect(tcp.status, `nobody reached PostgreSQL on port ${port}: ${tcp.output}`).not.toBe(0);
    }
    const kubeconfig = asNobody('cat', [path.join(dataDir, 'kubeconfig.yaml')]);
    expect(kubeconfig.status).not.toBe(0);
    expect(kubeconfig.output).toMatch(/Permission denied/);
    expect(kubeconfig.output).not.toMatch(/token/);
    const listing = asNobody('ls', ['-R', dataDir]);
    expect(listing.status).not.toBe(0);
    expect(listing.output).toMatch(/Permission denied/);
    const objects = asNobody('cat', [path.join(dataDir, 'kube', 'objects.json')]);
    expect(objects.status).not.toBe(0);
  });

  it('P8 a second start on the same data folder while the first runs is refused by name, before it opens the database', async () => {
    const second = await startRuntime({ env: { dataDir, databaseUrl: null, kubeconfig: null }, logger, startWorker: false }).then(
      async (r) => {
        await r.close();
        return null;
      },
      (error: unknown) => error as Error,
    );
    expect(second?.message).toMatch(/Another process serves the embedded database/);
    // The first is untouched: it still answers.
    const own = new pg.Client({ connectionString: runtime!.databaseUrl });
    await own.connect();
    await own.query('SELECT 1');
    await own.end();
  }, 60_000);
});

describe('P8 data folders the product refuses or repairs at start', () => {
  it('P8 a data folder other users may write is refused before anything is started or written, and the message says how to fix it', async () => {
    const folder = path.join(await openParent(), 'data');
    await mkdir(folder);
    await chmod(folder, 0o777);
    const refused = await startRuntime({ env: { dataDir: folder, databaseUrl: null, kubeconfig: null }, logger, startWorker: false }).then(
      async (r) => {
        await r.close();
        return null;
      },
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DataFolderNotPrivateError);
    expect((refused as Error).message).toContain(`chmod -R go-rwx ${folder}`);
    expect(await readdir(folder)).toEqual([]);
  });

  it('P8 a folder an earlier release left readable by others is tightened at start and the log says how many paths changed', async () => {
    const folder = path.join(await openParent(), 'data');
    await mkdir(path.join(folder, 'kube'), { recursive: true });
    await writeFile(path.join(folder, 'kubeconfig.yaml'), 'stale');
    for (const [p, m] of [[folder, 0o755], [path.join(folder, 'kube'), 0o755], [path.join(folder, 'kubeconfig.yaml'), 0o644]] as const) await chmod(p, m);
    const from = lines.length;
    const r = await startRuntime({ env: { dataDir: folder, databaseUrl: null, kubeconfig: null }, logger, startWorker: false, inMemory: false });
    await r.close();
    const warned = lines.slice(from).map((l) => JSON.parse(l) as { msg: string; tightened?: number }).find((l) => l.msg.includes('data folder made private'));
    expect(warned?.tightened).toBeGreaterThanOrEqual(3);
    expect((await lstat(folder)).mode & 0o777).toBe(0o700);
    expect((await lstat(path.join(folder, 'kubeconfig.yaml'))).mode & 0o777).toBe(0o600);
  }, 180_000);
});

// The machine's psql is how the other user asks; without it the cross-user case cannot ask anything.
if (asRoot) execFileSync('psql', ['--version']);
