import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonText, materialize, recipesFor, type Recipe } from '../test/arbitraries.ts';
import { dumpKubernetes, findCanary } from '../test/canary.ts';
import { binding, CREATE_AGENT, CREATE_CONFIGURATION, createReadyNamespace, createSecretOk, payload, waitFor } from '../test/operations.ts';
import { documentFor, operationsOf, pathText, targetsOf, ValidInputs, type Operation, type World } from '../test/schema-operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { schema } from './schema/index.ts';

// P1, P4, S3 for every input the schema accepts, known or not: each mutation (and each query that
// takes arguments) is sent a valid input with one leaf or subtree replaced by a hostile value,
// as variables or printed inline. Each answer is typed, never internal; a refusal writes nothing;
// the canary planted in the hostile value reaches no response and no log line.
// A failure prints fast-check's seed: `FC_SEED=<seed> npx vitest run <this file> -t '<test name>'`
// replays it. FC_NUM_RUNS widens a run.

const OPERATIONS = operationsOf(schema);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const RUNS = process.env.FC_NUM_RUNS ? Number(process.env.FC_NUM_RUNS) : undefined;
const INTERNAL_CODES = new Set(['INTERNAL_SERVER_ERROR', 'INTERNAL']);

let stack: TestStack;
let valid: ValidInputs;
let tables: string[];

const CREATE_USER = `mutation($input: CreateUserInput!) { createUser(input: $input) {
  __typename ... on CreateUserSuccess { principal { id } storedKey { id } } ... on Error { code message } } }`;
const GRANT_ACCESS = `mutation($input: GrantAccessInput!) { grantAccess(input: $input) {
  __typename ... on GrantAccessSuccess { binding { id } } ... on Error { code message } } }`;

async function buildWorld(): Promise<World> {
  const namespace = await createReadyNamespace(stack, 'gen-world');
  const secret = (await createSecretOk(stack, namespace, 'gen-secret', 'generated-world-value')).id;
  const configuration = payload(
    await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: namespace, name: 'gen-config', values: {}, secretBindings: [binding('GEN_TOKEN', secret)] } }),
    'createConfiguration',
  );
  const agent = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId: namespace, name: 'gen-agent', configurationId: configuration.configuration.id } }), 'createAgent');
  const user = payload(await stack.gql(CREATE_USER, { input: { name: 'gen-user' } }), 'createUser');
  const role = 'rol_namespace-viewer';
  const grant = payload(await stack.gql(GRANT_ACCESS, { input: { subjectId: user.principal.id, roleId: role, scope: { kind: 'NAMESPACE', namespaceId: namespace } } }), 'grantAccess');
  const world = {
    namespace,
    secret,
    configuration: configuration.configuration?.id,
    agent: agent.agent?.id,
    user: user.principal?.id,
    apiKey: user.storedKey?.id,
    binding: grant.binding?.id,
    role,
  };
  for (const [kind, id] of Object.entries(world)) expect(id, `fixture ${kind}`).toMatch(/^[a-z]+_/);
  return world as World;
}

beforeAll(async () => {
  stack = await startTestStack();
  valid = new ValidInputs(await buildWorld());
  const rows = await stack.runtime.db.$queryRawUnsafe<Array<{ table_name: string }>>(
    `SELECT table_name::text AS table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'`,
  );
  tables = rows.map((r) => r.table_name).sort();
  await settle();
});
afterAll(() => stack?.close());

interface Snapshot {
  rows: Record<string, number>;
  kube: Map<string, string>;
}

// Denials are audited by design (A3): an audit row with outcome DENIED is not a write of the input.
async function snapshot(): Promise<Snapshot> {
  const counts = tables.map((t) =>
    t === 'AuditEvent' ? `(SELECT count(*) FROM "AuditEvent" WHERE outcome <> 'DENIED')::int AS "AuditEvent"` : `(SELECT count(*) FROM "${t}")::int AS "${t}"`,
  );
  const [rows] = await stack.runtime.db.$queryRawUnsafe<Array<Record<string, number>>>(`SELECT ${counts.join(', ')}`);
  return { rows: rows!, kube: await dumpKubernetes(stack.core, stack.apps) };
}

function differences(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const t of tables) if (before.rows[t] !== after.rows[t]) out.push(`table ${t}: ${before.rows[t]} → ${after.rows[t]} rows`);
  for (const key of new Set([...before.kube.keys(), ...after.kube.keys()])) {
    if (before.kube.get(key) !== after.kube.get(key)) out.push(`Kubernetes ${key} ${!before.kube.has(key) ? 'created' : !after.kube.has(key) ? 'deleted' : 'changed'}`);
  }
  return out;
}

// A success may start work (namespace provisioning): let it finish before the next snapshot.
async function settle(): Promise<void> {
  await waitFor(async () => {
    const [r] = await stack.runtime.db.$queryRawUnsafe<Array<{ busy: number }>>(
      `SELECT ((SELECT count(*) FROM "WorkItem" WHERE state IN ('PENDING', 'RUNNING')) + (SELECT count(*) FROM "Namespace" WHERE status IN ('PROVISIONING', 'DELETING')))::int AS busy`,
    );
    return r!.busy === 0;
  }, 'background work to finish');
  // The leader's sweeps run on their own clock: V3 retires a superseded version nothing delivered at
  // its next resync, and RC4 records values changed outside the product. Run both now, so that what
  // an accepted request leaves behind is done before the next case's snapshot, not during it.
  await stack.runtime.instances.scanSecrets();
  await stack.runtime.instances.retireSecretVersions();
}

interface Case {
  target: string;
  recipe: Recipe;
  inline: boolean;
}

function caseFor(operation: Operation): fc.Arbitrary<Case> {
  const targets = targetsOf(operation);
  return fc
    .constantFrom(...targets.keys())
    .chain((target) => fc.record({ target: fc.constant(target), recipe: recipesFor(targets.get(target)!.type), inline: fc.boolean() }));
}

const short = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s);

/** What is wrong with the answer to one case; empty when it keeps P1, P4 and S3. */
async function violations(operation: Operation, c: Case, before: Snapshot): Promise<{ found: string[]; after: Snapshot }> {
  const canary = `CANARY-${randomBytes(8).toString('hex')}`;
  const { path } = targetsOf(operation).get(c.target)!;
  const args = valid.argsWith(operation, path, (base, type) => materialize(c.recipe, base, type, canary));
  const { query, variables } = documentFor(schema, operation, args, c.inline);
  const logStart = stack.logs.length;

  const res = await stack.request('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.bootstrapKey}` },
    body: `{"query":${JSON.stringify(query)},"variables":${jsonText(variables)}}`,
  });
  const text = await res.text();
  const found: string[] = [];
  if (res.status >= 500) found.push(`HTTP ${res.status}: ${short(text)}`);

  let body: { data?: Record<string, { __typename?: string; code?: unknown } | null> | null; errors?: Array<{ message: string; extensions?: { code?: unknown } }> } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    found.push(`HTTP ${res.status} answered a body that is not JSON: ${short(text)}`);
  }
  for (const error of body.errors ?? []) {
    const code = error.extensions?.code;
    if (typeof code !== 'string') found.push(`top-level error without extensions.code: ${short(error.message)}`);
    else if (INTERNAL_CODES.has(code)) found.push(`top-level ${code}: ${short(error.message)}`);
  }
  const answer = body.data?.[operation.name];
  const typename = answer?.__typename;
  if (!body.errors?.length && operation.kind === 'mutation') {
    if (!typename || !operation.members.has(typename)) found.push(`answer is neither a member of ${operation.field.type.toString()} nor a typed error: ${short(text)}`);
    else if (operation.errorMembers.has(typename) && typeof answer.code !== 'string') found.push(`${typename} without a code`);
  }

  const refused = Boolean(body.errors?.length) || !answer || (typename !== undefined && operation.errorMembers.has(typename));
  let after = await snapshot();
  if (refused || operation.kind === 'query') found.push(...differences(before, after).map((d) => `refused, yet wrote: ${d}`));
  if (!refused) {
    await settle();
    after = await snapshot();
  }

  if (findCanary([text], canary).length) found.push(`canary in the response: ${short(text)}`);
  for (const line of findCanary(stack.logs.slice(logStart), canary)) found.push(`canary in a log line: ${short(line)}`);
  return { found, after };
}

describe('P1 P4 S3 generated hostile inputs, from the schema', () => {
  it('P4 the schema yields every mutation and each query that takes arguments, with a valid input for each', () => {
    const mutations = Object.keys(schema.getMutationType()!.getFields());
    expect(OPERATIONS.filter((o) => o.kind === 'mutation').map((o) => o.name)).toEqual(mutations);
    expect(mutations.length).toBeGreaterThan(10);
    for (const operation of OPERATIONS) expect(targetsOf(operation).size, operation.name).toBeGreaterThan(0);
  });

  it('P4 the write check sees the row and the Kubernetes object that a request adds', async () => {
    const before = await snapshot();
    await createSecretOk(stack, valid.world.namespace, `gen-check-${randomBytes(3).toString('hex')}`, 'generated-check-value');
    const found = differences(before, await snapshot());
    expect(found).toContain(`table Secret: ${before.rows.Secret} → ${before.rows.Secret! + 1} rows`);
    expect(found.some((d) => /^Kubernetes Secret\/occ-.+ created$/.test(d)), found.join('\n')).toBe(true);
  });

  for (const operation of OPERATIONS) {
    const name =
      operation.kind === 'mutation'
        ? `P1 P4 S3 mutation ${operation.name}: a hostile input answers success or a typed error, a refusal writes nothing, the canary is never echoed`
        : `P1 P4 S3 query ${operation.name}: a hostile argument answers data or a typed error, writes nothing, the canary is never echoed`;
    it(name, { timeout: 300_000 }, async () => {
      let before = await snapshot();
      await fc.assert(
        fc.asyncProperty(caseFor(operation), async (c) => {
          const { found, after } = await violations(operation, c, before);
          before = after;
          expect(found, `${operation.kind} ${operation.name}, ${pathText(targetsOf(operation).get(c.target)!.path)} ← ${JSON.stringify(c.recipe)}${c.inline ? ' inline' : ' as variables'}`).toEqual([]);
        }),
        { numRuns: RUNS ?? (operation.kind === 'mutation' ? 25 : 10), seed: SEED },
      );
    });
  }
});
