// Starts the product exactly as `npm start` does once the console is built (`node scripts/start.ts`
// at the repo root: the product's bundle, built first when its sources changed) on a fresh data directory and, when DATABASE_URL names a server, a fresh database on it.
// The returned function is Playwright's global teardown.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { STACK_FILE_ENV, type StackInfo } from './support/stack';

const e2eDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(e2eDir, '..');
const resultsDir = path.join(e2eDir, 'test-results');

// Exact prefixes from docs/contract-issue-2.md ("Start-up output").
const CONSOLE_PREFIX = 'Console:  ';
const KEY_PREFIX = 'Bootstrap API key (shown once): ';

const STARTUP_TIMEOUT_MS = 180_000;
const SHUTDOWN_GRACE_MS = 10_000;

export default async function globalSetup(): Promise<() => Promise<void>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'occ-e2e-'));
  mkdirSync(resultsDir, { recursive: true });
  const logPath = path.join(resultsDir, 'server.log');
  const log = createWriteStream(logPath);
  let recent = ''; // the end of the output, quoted when start-up fails
  const record = (chunk: Buffer) => {
    log.write(chunk);
    recent = (recent + chunk.toString('utf8')).slice(-3000);
  };

  const database = process.env.DATABASE_URL ? await createDatabase(process.env.DATABASE_URL) : null;

  const env: NodeJS.ProcessEnv = { ...process.env, OCC_PORT: '0', OCC_DATA_DIR: dataDir, NO_COLOR: '1', FORCE_COLOR: '0' };
  delete env.KUBECONFIG; // always the embedded Kubernetes API server
  delete env.DATABASE_URL; // embedded PGlite unless we made a database above
  if (database) env.DATABASE_URL = database.url;

  const child = spawn(process.execPath, ['scripts/start.ts'], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so teardown can signal it as Ctrl-C would.
    detached: true,
  });
  const exited = new Promise<string>((resolve) =>
    child.once('close', (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`)),
  );
  const killOnExit = () => signalGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);

  let teardownDone = false;
  const teardown = async () => {
    if (teardownDone) return;
    teardownDone = true;
    signalGroup(child, 'SIGINT');
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), SHUTDOWN_GRACE_MS);
    await exited;
    clearTimeout(timer);
    process.removeListener('exit', killOnExit);
    log.end();
    if (database) await dropDatabase(database.adminUrl, database.name);
    if (!process.env.OCC_E2E_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const { consoleUrl, bootstrapApiKey } = await readStartupLines(child, record, exited);
    await waitForReady(new URL('/readyz', consoleUrl).toString(), exited);
    const info: StackInfo = { consoleUrl, bootstrapApiKey, dataDir, databaseName: database?.name ?? null };
    const stackFile = path.join(dataDir, 'e2e-stack.json');
    writeFileSync(stackFile, JSON.stringify(info, null, 2), { mode: 0o600 });
    // Workers start after global setup and inherit this environment.
    process.env[STACK_FILE_ENV] = stackFile;
    return teardown;
  } catch (error) {
    await teardown();
    throw new Error(`${(error as Error).message}\nServer output (${logPath}) ends with:\n${recent}`);
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function readStartupLines(
  child: ChildProcess,
  record: (chunk: Buffer) => void,
  exited: Promise<string>,
): Promise<{ consoleUrl: string; bootstrapApiKey: string }> {
  return new Promise((resolve, reject) => {
    let consoleUrl: string | undefined;
    let bootstrapApiKey: string | undefined;
    let buffered = '';
    const timer = setTimeout(
      () => reject(new Error(`No "${CONSOLE_PREFIX.trim()}" and "${KEY_PREFIX.trim()}" lines within ${STARTUP_TIMEOUT_MS / 1000} s.`)),
      STARTUP_TIMEOUT_MS,
    );

    child.stderr?.on('data', record);
    child.stdout?.on('data', (chunk: Buffer) => {
      record(chunk);
      buffered += chunk.toString('utf8');
      const lines = buffered.split(/\r?\n/);
      buffered = lines.pop() ?? '';
      for (const raw of lines) {
        const line = raw.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
        if (line.startsWith(CONSOLE_PREFIX)) consoleUrl = line.slice(CONSOLE_PREFIX.length).trim();
        if (line.startsWith(KEY_PREFIX)) bootstrapApiKey = line.slice(KEY_PREFIX.length).trim();
      }
      if (consoleUrl && bootstrapApiKey) {
        clearTimeout(timer);
        resolve({ consoleUrl, bootstrapApiKey });
      }
    });
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`The API process exited (${how}) before printing its console URL and bootstrap key.`));
    });
  });
}

async function waitForReady(url: string, exited: Promise<string>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (gone) throw new Error(`The API process exited while waiting for ${url}.`);
    try {
      const response = await fetch(url);
      if (response.status === 200) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer 200 within ${STARTUP_TIMEOUT_MS / 1000} s (last: ${last}).`);
}

async function createDatabase(serverUrl: string): Promise<{ name: string; url: string; adminUrl: string }> {
  const name = `occ_e2e_${Date.now()}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), adminUrl: serverUrl };
}

async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
