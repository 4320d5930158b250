import { spawn, spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@occ/kube-emulator/server';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, readEnv, REPO_ROOT } from '../env.ts';
import { dropDatabase, recreateDatabase, testDatabaseMode } from '../test/database.ts';

// R1 and R3: a production start checks where the bootstrap key would go with the rest of the
// configuration, before it connects to anything or migrates. No destination (OCC_BOOTSTRAP_SECRET
// or OCC_BOOTSTRAP_KEY_FILE), a key file in a folder that does not exist or that this process
// cannot write: each is named among every other problem, in one refusal (exit 2), and a fresh
// database is left without a table. A valid destination with no other problem starts, migrates
// and bootstraps (the control that shows a start which got past the check would have migrated).

const dir = mkdtempSync(path.join(tmpdir(), 'occ-r3-destination-'));
const writable = path.join(dir, 'keys');
mkdirSync(writable);
const missing = path.join(dir, 'absent', 'deeper');
const readOnly = path.join(dir, 'read-only');
mkdirSync(readOnly);
writeFileSync(path.join(dir, 'a-file'), 'not a folder\n');

const canWrite = (folder: string) => {
  try {
    accessSync(folder, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};
// The mode bits do not hold for root; the immutable attribute does (and is taken off afterwards).
chmodSync(readOnly, 0o555);
let immutable = false;
if (canWrite(readOnly)) immutable = spawnSync('chattr', ['+i', readOnly]).status === 0;
const readOnlyHolds = !canWrite(readOnly);

afterAll(() => {
  if (immutable) spawnSync('chattr', ['-i', readOnly]);
  chmodSync(readOnly, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

interface Destination {
  label: string;
  env: Record<string, string>;
  /** The start of the one problem it is, written out here; null when it is a valid destination. */
  problem: string | null;
}

const DESTINATIONS: Destination[] = [
  { label: 'no destination', env: {}, problem: 'OCC_BOOTSTRAP_SECRET or OCC_BOOTSTRAP_KEY_FILE must be set in production' },
  { label: 'key file in a missing folder', env: { OCC_BOOTSTRAP_KEY_FILE: path.join(missing, 'key') }, problem: `OCC_BOOTSTRAP_KEY_FILE names a file in a folder that does not exist: ${missing}` },
  { label: 'key file in an unwritable folder', env: { OCC_BOOTSTRAP_KEY_FILE: path.join(readOnly, 'key') }, problem: `OCC_BOOTSTRAP_KEY_FILE names a file in a folder this process cannot write to: ${readOnly}` },
  { label: 'valid key file', env: { OCC_BOOTSTRAP_KEY_FILE: path.join(writable, 'key') }, problem: null },
  { label: 'valid Secret', env: { OCC_BOOTSTRAP_SECRET: 'default/occ-bootstrap-key' }, problem: null },
];

interface Others {
  label: string;
  env: Record<string, string | undefined>;
  problems: string[];
}

const OTHERS: Others[] = [
  { label: 'no other problem', env: {}, problems: [] },
  { label: 'a bad port and log level', env: { OCC_PORT: 'not-a-port', OCC_LOG_LEVEL: 'loud' }, problems: ['OCC_PORT must be a port number', 'OCC_LOG_LEVEL must be debug, info, warn or error'] },
  {
    label: 'no cluster and a bad worker concurrency',
    env: { KUBECONFIG: undefined, OCC_WORKER_CONCURRENCY: '0' },
    problems: ['KUBECONFIG must be set in production', 'OCC_WORKER_CONCURRENCY must be a positive integer'],
  },
];

const CELLS = DESTINATIONS.flatMap((destination) => OTHERS.map((others) => ({ destination, others })));
const skipped = (d: Destination) => d.label === 'key file in an unwritable folder' && !readOnlyHolds;

function expectEveryProblem(problems: readonly string[], expected: readonly string[], context: string): void {
  for (const problem of expected) expect(problems.filter((p) => p.startsWith(problem)), `${context}: ${problem}`).toHaveLength(1);
  expect(problems, context).toHaveLength(expected.length);
}

function problemsOf(source: NodeJS.ProcessEnv, needs?: { kubernetes: boolean }): string[] {
  try {
    readEnv(source, needs);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).problems];
  }
}

describe('R1 R3 the bootstrap key destination is part of the configuration check', () => {
  const production = { NODE_ENV: 'production', DATABASE_URL: 'postgresql://db/occ', KUBECONFIG: '/etc/kube/config' };

  for (const { destination, others } of CELLS) {
    const expected = [...(destination.problem ? [destination.problem] : []), ...others.problems];
    const outcome = expected.length === 0 ? 'accepted' : expected.length === 1 ? 'the problem named' : `all ${expected.length} problems named at once`;
    it.skipIf(skipped(destination))(`R1 R3 ${destination.label}, ${others.label}: ${outcome}`, () => {
      const source = Object.fromEntries(Object.entries({ ...production, ...destination.env, ...others.env }).filter(([, v]) => v !== undefined));
      expectEveryProblem(problemsOf(source), expected, `${destination.label}, ${others.label}`);
    });
  }

  it('R3 the key file is checked for what a start can write: a folder in its place, a file where the folder should be; an existing key file is fine (an earlier start wrote it)', () => {
    const existing = path.join(writable, 'written-earlier');
    writeFileSync(existing, 'occ_key\n');
    expect(problemsOf({ ...production, OCC_BOOTSTRAP_KEY_FILE: existing })).toEqual([]);
    expect(problemsOf({ ...production, OCC_BOOTSTRAP_KEY_FILE: writable })).toEqual([`OCC_BOOTSTRAP_KEY_FILE names a folder, not a file: ${writable}`]);
    expect(problemsOf({ ...production, OCC_BOOTSTRAP_KEY_FILE: path.join(dir, 'a-file', 'key') })).toEqual([`OCC_BOOTSTRAP_KEY_FILE names a file in ${path.join(dir, 'a-file')}, which is not a folder`]);
  });

  it('R3 the Secret is where the key goes when both are set, so the file is not checked; a malformed Secret is its own problem only', () => {
    expect(problemsOf({ ...production, OCC_BOOTSTRAP_SECRET: 'default/occ-bootstrap-key', OCC_BOOTSTRAP_KEY_FILE: path.join(missing, 'key') })).toEqual([]);
    expect(problemsOf({ ...production, OCC_BOOTSTRAP_SECRET: 'Not/Valid' })).toEqual(['OCC_BOOTSTRAP_SECRET must be namespace/name (Kubernetes names)']);
  });

  it('R1 R3 development prints the key, so it needs no destination; a configured key file is checked there too; the migration step never bootstraps', () => {
    expect(problemsOf({})).toEqual([]);
    expect(problemsOf({ OCC_BOOTSTRAP_KEY_FILE: path.join(missing, 'key') })).toEqual([`OCC_BOOTSTRAP_KEY_FILE names a file in a folder that does not exist: ${missing}`]);
    expect(problemsOf({ NODE_ENV: 'production', DATABASE_URL: 'postgresql://db/occ' }, { kubernetes: false })).toEqual([]);
  });
});

// The same matrix through `npm start` itself (start.ts, as env.test.ts runs it), each cell on a
// fresh, empty PostgreSQL database with OCC_MIGRATE_AT_START=true, so a start that got past the
// configuration would migrate it.
describe.runIf(testDatabaseMode() === 'postgres')('R1 R3 a production start refuses before it migrates or connects (PostgreSQL only)', () => {
  let kube: KubeEmulator;
  let kubeconfig: string;
  const databases: string[] = [];

  beforeAll(async () => {
    kube = await startKubeEmulator({});
    kubeconfig = path.join(dir, 'kubeconfig.yaml');
    writeFileSync(kubeconfig, kube.kubeconfigYaml());
  });
  afterAll(async () => {
    for (const name of databases) await dropDatabase(process.env.DATABASE_URL!, name).catch(() => {});
    await kube?.close();
  });

  async function tablesIn(url: string): Promise<string[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string }>(`SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'`);
      return rows.map((r) => r.table_name);
    } finally {
      await client.end();
    }
  }

  /** Runs a command as `npm start` runs it; a start that comes up is stopped with SIGTERM. */
  function run(script: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; output: string; started: boolean }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, script)], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      let started = false;
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${script} neither refused nor started within 90 s:\n${output}`));
      }, 90_000);
      const onData = (d: Buffer) => {
        output += d.toString();
        if (!started && /GraphQL:\s+\S+/.test(output)) {
          started = true;
          child.kill('SIGTERM');
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', (status) => {
        clearTimeout(timer);
        resolve({ status, output, started });
      });
    });
  }

  const base = (databaseUrl: string, n: number): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    KUBECONFIG: kubeconfig,
    OCC_MIGRATE_AT_START: 'true',
    OCC_PORT: '0',
    OCC_METRICS_PORT: 'off',
    OCC_DATA_DIR: path.join(dir, `data-${n}`),
    OCC_CONSOLE_DIR: path.join(dir, 'no-console'),
    OCC_LOG_LEVEL: 'warn',
  });

  for (const [n, { destination, others }] of CELLS.entries()) {
    const expected = [...(destination.problem ? [destination.problem] : []), ...others.problems];
    const name = expected.length
      ? `R1 R3 ${destination.label}, ${others.label}: exit 2 naming ${expected.length === 1 ? 'the problem' : `all ${expected.length} problems`} in one refusal, and the database is left without a table`
      : `R1 R3 ${destination.label}, ${others.label}: the start migrates and bootstraps, writing the key there (the control)`;
    it.skipIf(skipped(destination))(name, { timeout: 120_000 }, async () => {
      const database = `occ_test_r3_${process.pid}_${n}`;
      databases.push(database);
      const url = await recreateDatabase(process.env.DATABASE_URL!, database);
      const env = Object.fromEntries(Object.entries({ ...base(url, n), ...destination.env, ...others.env }).filter(([, v]) => v !== undefined));
      const result = await run('apps/api/src/cli/start.ts', env);
      if (expected.length) {
        expect(result.status, result.output).toBe(2);
        expect(result.output).toContain(`The configuration has ${expected.length} problem${expected.length === 1 ? '' : 's'}:`);
        const problems = result.output.split('\n').filter((l) => l.startsWith('  - ')).map((l) => l.slice(4));
        expectEveryProblem(problems, expected, result.output);
        expect(await tablesIn(url), 'nothing migrated').toEqual([]);
        expect(existsSync(env.OCC_DATA_DIR!), 'no data folder').toBe(false);
      } else {
        expect(result.started, result.output).toBe(true);
        expect(await tablesIn(url)).toContain('_prisma_migrations');
        if (destination.env.OCC_BOOTSTRAP_KEY_FILE) {
          expect(existsSync(destination.env.OCC_BOOTSTRAP_KEY_FILE), result.output).toBe(true);
        } else {
          const secret = await kube.kubeConfig().makeApiClient(CoreV1Api).readNamespacedSecret({ namespace: 'default', name: 'occ-bootstrap-key' });
          expect(Object.keys(secret.data ?? {})).toEqual(['apiKey']);
        }
      }
    });
  }

  it('R1 R3 the standalone worker refuses the same way: no destination is named with the other problems, before it migrates', { timeout: 120_000 }, async () => {
    const database = `occ_test_r3_${process.pid}_worker`;
    databases.push(database);
    const url = await recreateDatabase(process.env.DATABASE_URL!, database);
    const result = await run('apps/api/src/cli/worker.ts', { ...base(url, 99), OCC_PORT: 'not-a-port' });
    expect(result.status, result.output).toBe(2);
    const problems = result.output.split('\n').filter((l) => l.startsWith('  - ')).map((l) => l.slice(4));
    expectEveryProblem(problems, ['OCC_BOOTSTRAP_SECRET or OCC_BOOTSTRAP_KEY_FILE must be set in production', 'OCC_PORT must be a port number'], result.output);
    expect(await tablesIn(url)).toEqual([]);
  });
});
