// The upgrade lane's scenario (scripts/upgrade/lane runs it once per pinned release and store).
//
// 1. Starts an earlier release (a prepared checkout: --old DIR) on a fresh state: a data folder
//    (embedded PGlite and cluster), or a fresh PostgreSQL database beside the embedded cluster.
// 2. Creates one of everything that release can make over GraphQL: a namespace, secrets with a
//    rotation, a configuration binding one, an agent with harnessAuth and SelfConfig enabled, grants,
//    a user, API keys; where the release has them, a deploy (a running gateway) and an Applied
//    SelfConfig request. Audit history comes with every call.
// 3. Stops it, starts this checkout (HEAD) on the same state, and checks as the users would:
//    every old key still signs in; every old object reads back as it was; the audit trail keeps every
//    old event and goes on; the seed flow runs on the old objects (rotate, deploy, ACTIVE, the
//    gateway reads the old Secret through secretKeyRef); the SelfConfig scenario runs on the old
//    agent and reaches its gateway (SC10); an old agent's running gateway still runs.
// 4. Plants canary values as secret values and looks for them in both releases' output.
//
// Prints one line per check and exits 1 on the first failure, naming it.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import pg from 'pg';

const { values: args } = parseArgs({
  options: {
    old: { type: 'string' },
    release: { type: 'string' },
    store: { type: 'string', default: 'pglite' },
    keep: { type: 'boolean', default: false },
  },
});
if (!args.old || !args.release || !['pglite', 'postgres'].includes(args.store!)) {
  process.stderr.write('usage: upgrade.ts --old <checkout of the earlier release> --release <its name> [--store pglite|postgres] [--keep]\n');
  process.exit(2);
}
const OLD = path.resolve(args.old);
const HEAD = path.resolve(import.meta.dirname, '../..');
const release = args.release;
const store = args.store as 'pglite' | 'postgres';

const started = Date.now();
const log = (line: string) => process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
class CheckFailed extends Error {}
function check(condition: unknown, what: string, detail?: unknown): void {
  if (!condition) throw new CheckFailed(`${what}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
  log(`ok   ${what}`);
}

// Values nobody may see again except in their own Secret: looked for in every line both releases print.
const canary = (label: string) => `canary-${label}-${randomBytes(12).toString('hex')}`;
const VALUES = { tokV1: canary('tok1'), tokV2: canary('tok2'), modelV1: canary('model1'), tokV3: canary('tok3') };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

interface Running {
  child: ChildProcess;
  base: string;
  output: () => string;
  bootstrapKey: string | null;
}

/**
 * This process's environment without what picks the stores: `.ci/run` exports DATABASE_URL for the
 * test suites, and a release started with it would use that shared database instead of the state
 * this run made (the embedded defaults' PGlite) or the fresh database it created.
 */
function releaseEnvironment(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _database, KUBECONFIG: _kubeconfig, OCC_DATA_DIR: _data, ...rest } = process.env;
  return rest;
}

/** Starts a release's `npm start` entry (without the console build) and waits until /readyz answers 200. */
async function startRelease(root: string, env: Record<string, string>, name: string): Promise<Running> {
  const port = await freePort();
  const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');
  const child = spawn(process.execPath, [tsx, 'apps/api/src/cli/start.ts'], {
    cwd: root,
    env: { ...releaseEnvironment(), ...env, OCC_PORT: String(port), OCC_LOG_LEVEL: 'info', NODE_ENV: 'development' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: tsx runs the release in a child process, and a kill must reach both.
    detached: true,
  });
  let text = '';
  child.stdout!.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    const code = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 500))]);
    if (code !== 'running') throw new CheckFailed(`${name} exited with ${code} while starting:\n${text.slice(-4000)}`);
    const ready = await fetch(`${base}/readyz`).then((r) => r.status === 200, () => false);
    if (ready && /Press Ctrl-C to stop/.test(text)) break;
    if (Date.now() > deadline) {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
      throw new CheckFailed(`${name} did not become ready in 180 s:\n${text.slice(-4000)}`);
    }
  }
  const key = /Bootstrap API key \(shown once\): (\S+)/.exec(text)?.[1] ?? null;
  return { child, base, output: () => text, bootstrapKey: key };
}

async function stopRelease(running: Running, name: string): Promise<void> {
  const exited = new Promise<number | null>((resolve) => running.child.on('exit', (code) => resolve(code)));
  running.child.kill('SIGINT');
  const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 60_000))]);
  if (code === 'timeout') {
    if (running.child.pid) process.kill(-running.child.pid, 'SIGKILL');
    throw new CheckFailed(`${name} did not stop within 60 s of SIGINT`);
  }
  log(`${name} stopped (exit ${code})`);
}

type Gql = <T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>) => Promise<T>;
function client(base: string, key: string): Gql {
  return async (query, variables = {}) => {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: unknown; errors?: Array<{ message: string }> };
    if (body.errors?.length) throw new CheckFailed(`GraphQL errors: ${body.errors.map((e) => e.message).join('; ')} (for ${query.slice(0, 120)})`);
    return body.data as never;
  };
}

const ERR = '... on Error { code message }';
/** A mutation's result union: the success, or a failure naming the refusal. */
function ok<T extends Record<string, unknown>>(result: unknown, what: string): T {
  const r = result as T & { __typename: string; code?: string; message?: string };
  if (!r.__typename.endsWith('Success')) throw new CheckFailed(`${what} refused: ${r.code} ${r.message}`);
  return r;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new CheckFailed(`${what}: still ${JSON.stringify(value)} after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function mutationNames(gql: Gql): Promise<Set<string>> {
  const data = await gql<{ __schema: { mutationType: { fields: Array<{ name: string }> } } }>('{ __schema { mutationType { fields { name } } } }');
  return new Set(data.__schema.mutationType.fields.map((f) => f.name));
}

interface OldState {
  namespaceId: string;
  tokId: string;
  modelId: string;
  configurationId: string;
  agentId: string;
  servicePrincipalId: string;
  userId: string;
  keys: { admin: string; second: string; user: string; userSecond: string; agent: string | null };
  deployed: boolean;
  selfConfigApplied: boolean;
  auditIds: string[];
  objects: { namespace: unknown; secrets: unknown; configuration: unknown; agent: unknown };
}

const AGENT_FIELDS = 'id name status desiredState servicePrincipalId configuration { id } harnessAuth { provider } selfConfigure { enabled allowedActions }';
const SECRET_FIELDS = 'id name version';

async function readObjects(gql: Gql, s: Pick<OldState, 'namespaceId' | 'tokId' | 'modelId' | 'configurationId' | 'agentId'>) {
  const data = await gql<Record<string, unknown>>(
    `query($ns: ID!, $tok: ID!, $model: ID!, $cfg: ID!, $agent: ID!) {
      namespace(id: $ns) { id name status }
      tok: secret(id: $tok) { ${SECRET_FIELDS} }
      model: secret(id: $model) { ${SECRET_FIELDS} }
      configuration(id: $cfg) { id name values secretBindings { envName source { id } } }
      agent(id: $agent) { ${AGENT_FIELDS} }
    }`,
    { ns: s.namespaceId, tok: s.tokId, model: s.modelId, cfg: s.configurationId, agent: s.agentId },
  );
  return { namespace: data.namespace, secrets: { tok: data.tok, model: data.model }, configuration: data.configuration, agent: data.agent };
}

/** The audit events as stored, read from the database itself while no release runs (older releases had no auditEvents query). */
async function storedAuditIds(env: Record<string, string>): Promise<string[]> {
  const sql = 'SELECT id FROM "AuditEvent" ORDER BY id';
  if (env.DATABASE_URL) {
    const c = new pg.Client({ connectionString: env.DATABASE_URL });
    await c.connect();
    try {
      return (await c.query<{ id: string }>(sql)).rows.map((r) => r.id);
    } finally {
      await c.end();
    }
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const db = new PGlite(path.join(env.OCC_DATA_DIR!, 'pglite'));
  try {
    return (await db.query<{ id: string }>(sql)).rows.map((r) => r.id);
  } finally {
    await db.close();
  }
}

async function auditIds(gql: Gql): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (;;) {
    const page: { auditEvents: { edges: Array<{ node: { id: string } }>; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } = await gql(
      `query($after: String) { auditEvents(first: 100, after: $after) { edges { node { id } } pageInfo { hasNextPage endCursor } } }`,
      { after },
    );
    ids.push(...page.auditEvents.edges.map((e) => e.node.id));
    if (!page.auditEvents.pageInfo.hasNextPage) return ids;
    after = page.auditEvents.pageInfo.endCursor;
  }
}

async function populate(base: string, bootstrapKey: string): Promise<OldState> {
  const gql = client(base, bootstrapKey);
  const mutations = await mutationNames(gql);
  const ns = ok<{ namespace: { id: string } }>(
    (await gql<{ createNamespace: unknown }>(`mutation($i: CreateNamespaceInput!) { createNamespace(input: $i) { __typename ... on CreateNamespaceSuccess { namespace { id } } ${ERR} } }`, { i: { name: 'upgrade' } })).createNamespace,
    'createNamespace',
  ).namespace.id;
  await until('the namespace becomes READY', async () => (await gql<{ namespace: { status: string } }>(`query($id: ID!) { namespace(id: $id) { status } }`, { id: ns })).namespace.status, (s) => s === 'READY');
  const createSecret = async (name: string, value: string) =>
    ok<{ secret: { id: string } }>(
      (await gql<{ createSecret: unknown }>(`mutation($i: CreateSecretInput!) { createSecret(input: $i) { __typename ... on CreateSecretSuccess { secret { id } } ${ERR} } }`, { i: { namespaceId: ns, name, value } })).createSecret,
      `createSecret ${name}`,
    ).secret.id;
  const tokId = await createSecret('tok', VALUES.tokV1);
  const modelId = await createSecret('model', VALUES.modelV1);
  ok((await gql<{ updateSecret: unknown }>(`mutation($i: UpdateSecretInput!) { updateSecret(input: $i) { __typename ${ERR} } }`, { i: { id: tokId, value: VALUES.tokV2 } })).updateSecret, 'updateSecret tok');
  const configurationId = ok<{ configuration: { id: string } }>(
    (
      await gql<{ createConfiguration: unknown }>(`mutation($i: CreateConfigurationInput!) { createConfiguration(input: $i) { __typename ... on CreateConfigurationSuccess { configuration { id } } ${ERR} } }`, {
        i: {
          namespaceId: ns,
          name: 'gateway',
          values: { channels: { telegram: { enabled: true, botToken: { source: 'env', provider: 'default', id: 'TELEGRAM_TOKEN' } } } },
          secretBindings: [{ envName: 'TELEGRAM_TOKEN', source: { id: tokId } }],
        },
      })
    ).createConfiguration,
    'createConfiguration',
  ).configuration.id;
  const agent = ok<{ agent: { id: string }; servicePrincipalId: string }>(
    (
      await gql<{ createAgent: unknown }>(`mutation($i: CreateAgentInput!) { createAgent(input: $i) { __typename ... on CreateAgentSuccess { servicePrincipalId agent { id } } ${ERR} } }`, {
        i: {
          namespaceId: ns,
          name: 'helper',
          configurationId,
          harnessAuth: { provider: 'openai', source: { id: modelId } },
          selfConfigure: { enabled: true, allowedActions: ['skills', 'envVars', 'config'] },
        },
      })
    ).createAgent,
    'createAgent',
  );
  for (const secretId of [tokId, modelId]) {
    ok(
      (await gql<{ grantAccess: unknown }>(`mutation($i: GrantAccessInput!) { grantAccess(input: $i) { __typename ${ERR} } }`, {
        i: { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretId } },
      })).grantAccess,
      'grantAccess',
    );
  }
  const user = ok<{ principal: { id: string }; apiKey: string }>(
    (await gql<{ createUser: unknown }>(`mutation($i: CreateUserInput!) { createUser(input: $i) { __typename ... on CreateUserSuccess { apiKey principal { id } } ${ERR} } }`, { i: { name: 'auditor' } })).createUser,
    'createUser',
  );
  const userId = user.principal.id;
  ok(
    (await gql<{ grantAccess: unknown }>(`mutation($i: GrantAccessInput!) { grantAccess(input: $i) { __typename ${ERR} } }`, {
      i: { subjectId: userId, roleId: 'rol_namespace-viewer', scope: { kind: 'NAMESPACE', namespaceId: ns } },
    })).grantAccess,
    'grantAccess viewer',
  );
  const key = async (principalId: string) =>
    ok<{ apiKey: string }>(
      (await gql<{ createApiKey: unknown }>(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { __typename ... on CreateApiKeySuccess { apiKey } ${ERR} } }`, { i: { principalId } })).createApiKey,
      'createApiKey',
    ).apiKey;
  const viewer = (await gql<{ viewer: { id: string } }>('{ viewer { id } }')).viewer.id;
  const keys = { admin: bootstrapKey, second: await key(viewer), user: user.apiKey, userSecond: await key(userId), agent: null as string | null };

  let deployed = false;
  let selfConfigApplied = false;
  if (mutations.has('deployAgent')) {
    ok((await gql<{ deployAgent: unknown }>(`mutation($i: DeployAgentInput!) { deployAgent(input: $i) { __typename ${ERR} } }`, { i: { agentId: agent.agent.id } })).deployAgent, 'deployAgent (old release)');
    await until('the old release deploys the agent', async () => (await gql<{ agent: { status: string } }>(`query($id: ID!) { agent(id: $id) { status } }`, { id: agent.agent.id })).agent.status, (s) => ['running', 'failed'].includes(s.toLowerCase()));
    deployed = true;
  }
  if (mutations.has('requestSelfConfig')) {
    keys.agent = await key(agent.servicePrincipalId);
    const asAgent = client(base, keys.agent);
    ok(
      (await asAgent<{ requestSelfConfig: unknown }>(`mutation($i: RequestSelfConfigInput!) { requestSelfConfig(input: $i) { __typename ${ERR} } }`, {
        i: { agentId: agent.agent.id, addSkills: ['mcp-server-fetch'], addEnvVars: [{ name: 'OLD_RELEASE_VAR', value: 'before-upgrade' }] },
      })).requestSelfConfig,
      'requestSelfConfig (old release)',
    );
    await until(
      'the old release applies the SelfConfig request',
      async () => (await gql<{ selfConfigRequests: { edges: Array<{ node: { phase: string } }> } }>(`query($a: ID!) { selfConfigRequests(agentId: $a, first: 5) { edges { node { phase } } } }`, { a: agent.agent.id })).selfConfigRequests.edges.map((e) => e.node.phase),
      (phases) => phases.some((p) => ['Applied', 'Failed', 'Denied'].includes(p)),
    );
    selfConfigApplied = true;
  }
  const state = { namespaceId: ns, tokId, modelId, configurationId, agentId: agent.agent.id };
  return { ...state, servicePrincipalId: agent.servicePrincipalId, userId, keys, deployed, selfConfigApplied, auditIds: [], objects: await readObjects(gql, state) };
}

async function verify(base: string, old: OldState, kubeConfig: KubeConfig): Promise<void> {
  const gql = client(base, old.keys.admin);
  for (const [name, key] of Object.entries(old.keys)) {
    if (!key) continue;
    const viewer = await client(base, key)<{ viewer: { id: string } | null }>('{ viewer { id } }');
    check(viewer.viewer?.id, `R3 the ${name} API key made by ${release} still signs in`);
  }
  const now = await readObjects(gql, old);
  // What the old release showed is still there; fields HEAD adds do not count, fields it keeps must match.
  const same = (a: unknown, b: unknown): boolean =>
    a === b || (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Object.entries(a).every(([k, v]) => same(v, (b as Record<string, unknown>)[k])));
  for (const part of ['namespace', 'secrets', 'configuration'] as const) check(same(old.objects[part], now[part]), `every ${part} made by ${release} reads back as it was`, { before: old.objects[part], after: now[part] });
  const { status: _oldStatus, ...oldAgent } = old.objects.agent as Record<string, unknown>;
  check(same(oldAgent, now.agent), `the agent made by ${release} reads back as it was`, { before: old.objects.agent, after: now.agent });

  const auditNow = await auditIds(gql);
  const kept = new Set(auditNow);
  check(old.auditIds.every((id) => kept.has(id)), `the audit trail keeps all ${old.auditIds.length} events written by ${release}`, old.auditIds.filter((id) => !kept.has(id)));

  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  if (old.deployed) {
    const agent = await until('the old agent reads RUNNING after the upgrade', async () => (await gql<{ agent: { status: string } }>(`query($id: ID!) { agent(id: $id) { status } }`, { id: old.agentId })).agent.status, (s) => s.toLowerCase() === 'running', 60_000);
    check(agent.toLowerCase() === 'running', `the gateway ${release} deployed still runs after the upgrade`);
  }

  // V1: the old secret's current object (version 2) is its current version row: made by the
  // migration for a release before versions; a release with versions also kept version 1's row
  // (retired once nothing holds it), never as current.
  type Versions = { secret: { versions: Array<{ number: number; current: boolean; retiredAt: string | null }> } };
  const VERSIONS = `query($id: ID!) { secret(id: $id) { versions { number current retiredAt } } }`;
  const migrated = (await gql<Versions>(VERSIONS, { id: old.tokId })).secret.versions;
  const [newest, ...earlier] = migrated;
  check(
    JSON.stringify(newest) === JSON.stringify({ number: 2, current: true, retiredAt: null }) && earlier.every((v) => v.number < 2 && !v.current),
    `V1 the secret made by ${release} has its current version as a version row`,
    migrated,
  );

  // The seed flow on the old objects: rotate the old secret, explain, deploy, ACTIVE.
  const rotated = ok<{ secret: { version: number } }>(
    (await gql<{ updateSecret: unknown }>(`mutation($i: UpdateSecretInput!) { updateSecret(input: $i) { __typename ... on UpdateSecretSuccess { secret { version } } ${ERR} } }`, { i: { id: old.tokId, value: VALUES.tokV3 } })).updateSecret,
    'updateSecret on the old secret',
  );
  check(rotated.secret.version === 3, `D3 the secret made by ${release} takes a new version (3)`, rotated.secret.version);
  const explained = await gql<{ explainDeploy: { allowed: boolean; checks: Array<{ id: string; passed: boolean; fix: string | null }> } }>(
    `query($a: ID!) { explainDeploy(agentId: $a) { ... on DeployExplanation { allowed checks { id passed fix } } ${ERR} } }`,
    { a: old.agentId },
  );
  check(explained.explainDeploy.allowed, `D3 explainDeploy allows the agent made by ${release}`, explained.explainDeploy.checks?.filter((c) => !c.passed));
  ok((await gql<{ deployAgent: unknown }>(`mutation($i: DeployAgentInput!) { deployAgent(input: $i) { __typename ${ERR} } }`, { i: { agentId: old.agentId } })).deployAgent, 'deployAgent on the old agent');
  const active = await until(
    'the new revision of the old agent becomes ACTIVE',
    async () => (await gql<{ agent: { status: string; activeRevision: { number: number; state: string; secrets: Array<{ envName: string; version: number }> } | null } }>(`query($id: ID!) { agent(id: $id) { status activeRevision { number state secrets { envName version } } } }`, { id: old.agentId })).agent,
    (a) => a.status.toLowerCase() === 'running' && a.activeRevision?.state === 'ACTIVE' && a.activeRevision.number === (old.deployed ? 2 : 1),
    120_000,
  );
  check(active.activeRevision?.secrets.some((s) => s.envName === 'TELEGRAM_TOKEN' && s.version === 3), `W1 the revision records the old secret's new version`, active.activeRevision);

  const namespaces = await core.listNamespace({ labelSelector: `openclaw.rocks/namespace-id` });
  const k8sNamespace = namespaces.items.find((n) => old.namespaceId.endsWith(n.metadata?.labels?.['openclaw.rocks/namespace-id'] ?? '\u0000'))?.metadata?.name;
  check(k8sNamespace, 'the old namespace has its Kubernetes namespace');
  const oldNamespaceLabels = namespaces.items.find((n) => n.metadata?.name === k8sNamespace)?.metadata?.labels ?? {};
  check(oldNamespaceLabels['pod-security.kubernetes.io/enforce'] === 'restricted', `K1 the namespace made by ${release} enforces Pod Security restricted after the upgrade`, oldNamespaceLabels);
  const deployments = await apps.listNamespacedDeployment({ namespace: k8sNamespace! });
  const gateway = deployments.items.find((d) => d.metadata?.labels?.['openclaw.rocks/agent-id'] !== undefined);
  const env = gateway?.spec?.template.spec?.containers.flatMap((c) => c.env ?? []) ?? [];
  const telegram = env.find((e) => e.name === 'TELEGRAM_TOKEN');
  check(telegram?.valueFrom?.secretKeyRef && telegram.value === undefined, 'D5 the gateway reads the old Secret through secretKeyRef, never a value', telegram);
  // V1 V2: the rotation after the upgrade made version 3 its own immutable object, which the new
  // revision's gateway names; version 2's object stays while a rollback candidate may need it (V3).
  const rotatedVersions = (await gql<Versions>(VERSIONS, { id: old.tokId })).secret.versions;
  // (A release with versions also lists version 1, which it wrote before the fill's rotation.)
  check(rotatedVersions.slice(0, 2).map((v) => `${v.number}:${v.current}`).join(',') === '3:true,2:false' && rotatedVersions.slice(2).every((v) => v.number < 2 && !v.current), `V1 the secret made by ${release} lists versions 3 and 2 after the rotation`, rotatedVersions);
  const v3 = telegram?.valueFrom?.secretKeyRef?.name ? await core.readNamespacedSecret({ name: telegram.valueFrom.secretKeyRef.name, namespace: k8sNamespace! }) : null;
  check(v3?.immutable === true && v3.metadata?.labels?.['openclaw.rocks/secret-version'] === '3', 'V1 V2 the gateway names version 3\'s immutable Secret', v3?.metadata?.labels);

  // The SelfConfig scenario on the old agent, with the old agent key when there is one.
  const agentKey =
    old.keys.agent ??
    ok<{ apiKey: string }>(
      (await gql<{ createApiKey: unknown }>(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { __typename ... on CreateApiKeySuccess { apiKey } ${ERR} } }`, { i: { principalId: old.servicePrincipalId } })).createApiKey,
      'createApiKey for the old agent',
    ).apiKey;
  ok(
    (await client(base, agentKey)<{ requestSelfConfig: unknown }>(`mutation($i: RequestSelfConfigInput!) { requestSelfConfig(input: $i) { __typename ${ERR} } }`, {
      i: { agentId: old.agentId, addEnvVars: [{ name: 'AFTER_UPGRADE', value: 'yes' }] },
    })).requestSelfConfig,
    'requestSelfConfig by the old agent',
  );
  const phase = await until(
    'the SelfConfig request after the upgrade settles',
    async () => (await gql<{ selfConfigRequests: { edges: Array<{ node: { phase: string; message: string | null } }> } }>(`query($a: ID!) { selfConfigRequests(agentId: $a, first: 1) { edges { node { phase message } } } }`, { a: old.agentId })).selfConfigRequests.edges[0]?.node,
    (n) => n !== undefined && ['Applied', 'Failed', 'Denied'].includes(n.phase),
  );
  check(phase?.phase === 'Applied', 'SC10 the old agent\'s SelfConfig request is Applied after the upgrade', phase);
  await until(
    'the gateway carries the env var the agent asked for (SC10)',
    async () => {
      const list = await apps.listNamespacedDeployment({ namespace: k8sNamespace! });
      return list.items.flatMap((d) => d.spec?.template.spec?.containers.flatMap((c) => (c.env ?? []).map((e) => e.name)) ?? []);
    },
    (names) => names.includes('AFTER_UPGRADE') && (!old.selfConfigApplied || names.includes('OLD_RELEASE_VAR')),
    60_000,
  );
  check(true, 'SC10 the gateway of the old agent carries both the old and the new SelfConfig env vars');

  const after = await auditIds(gql);
  check(after.length > old.auditIds.length && old.auditIds.every((id) => after.includes(id)), 'the audit trail goes on after the upgrade, with every old event', { before: old.auditIds.length, after: after.length });
}

// ---------------------------------------------------------------------------------------------

const workdir = await mkdtemp(path.join(tmpdir(), `occ-upgrade-${release}-`));
const env: Record<string, string> = { OCC_DATA_DIR: path.join(workdir, 'data') };
let database: string | null = null;
const admin = 'postgresql://postgres@127.0.0.1:5432/postgres';
if (store === 'postgres') {
  database = `occ_upgrade_${randomBytes(4).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${database}`);
  await c.end();
  env.DATABASE_URL = `postgresql://postgres@127.0.0.1:5432/${database}`;
}
let failed = false;
const outputs: string[] = [];
let running: Running | null = null;
try {
  log(`${release} (${OLD}) on ${store}, state in ${workdir}`);
  running = await startRelease(OLD, env, release);
  check(running.bootstrapKey, `${release} bootstrapped and printed its key`);
  const old = await populate(running.base, running.bootstrapKey!);
  log(`${release} made namespace ${old.namespaceId}, agent ${old.agentId}${old.deployed ? ' (deployed)' : ''}${old.selfConfigApplied ? ', a SelfConfig request' : ''}`);
  outputs.push(running.output());
  await stopRelease(running, release);
  running = null;
  old.auditIds = await storedAuditIds(env);
  check(old.auditIds.length > 10, `${release} wrote its audit trail`, old.auditIds.length);

  running = await startRelease(HEAD, env, 'HEAD');
  check(!running.bootstrapKey, 'HEAD does not bootstrap again on the old state');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(await readFile(path.join(env.OCC_DATA_DIR!, 'kubeconfig.yaml'), 'utf8'));
  await verify(running.base, old, kubeConfig);
  outputs.push(running.output());
  await stopRelease(running, 'HEAD');
  running = null;
  const leaked = Object.entries(VALUES).filter(([, value]) => outputs.some((o) => o.includes(value)));
  check(leaked.length === 0, 'no secret value appears in either release\'s output', leaked.map(([k]) => k));
  log(`PASS upgrade from ${release} on ${store}`);
} catch (error) {
  failed = true;
  process.stdout.write(`FAIL upgrade from ${release} on ${store}: ${error instanceof Error ? error.message : String(error)}\n`);
  if (running) process.stdout.write(`--- last output of the running release ---\n${running.output().slice(-6000)}\n`);
  if (!(error instanceof CheckFailed) && error instanceof Error) process.stdout.write(`${error.stack}\n`);
} finally {
  if (running?.child.pid) process.kill(-running.child.pid, 'SIGKILL');
  if (!args.keep) await rm(workdir, { recursive: true, force: true });
  else log(`kept ${workdir}`);
  if (database) {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await c.end();
  }
}
process.exit(failed ? 1 : 0);
