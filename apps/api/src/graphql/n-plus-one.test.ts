import { getNamedType, isObjectType, parse, TypeInfo, visit, visitWithTypeInfo, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authCacheOf } from '../services/auth-cache.ts';
import type { Actor } from '../services/deps.ts';
import { fillNamespace, type FillResult } from '../seed/fill.ts';
import { testDatabaseMode } from '../test/database.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { schema } from './schema/index.ts';

// Every field that points elsewhere loads through the request's loaders, so a
// page of each list costs the same number of SQL statements (Prisma query events counted) whether
// the namespace holds 10, 100 or 1,000 items. The namespaces are filled through the services
// (seed/fill.ts), as `npm run seed` fills them. The page size is a variable: a literal `first: 500`
// is over the cost limit (P3), and connections stop at 100.

// On embedded PGlite (one connection, one statement at a time) filling 1,000 of each takes most of
// the suite's time, and statement counts do not depend on the database: there it stops at 100.
const SIZES = testDatabaseMode() === 'postgres' ? [10, 100, 1000] : [10, 100];
const PAGE = 100;

let stack: TestStack;
let statements = 0;
const filled = new Map<number, FillResult>();

beforeAll(async () => {
  // An API key's lastUsedAt is written at most once a minute (authenticate.ts): on a slow machine
  // that write can fall into any request, so it is not counted.
  stack = await startTestStack({ onQuery: (sql) => void (/^UPDATE "public"\."ApiKey"/.test(sql) || statements++) });
  const actor: Actor = { principalId: stack.runtime.installation.bootstrapPrincipalId, kind: 'SERVICE', name: 'bootstrap', apiKeyId: 'n/a' };
  for (const size of SIZES) {
    filled.set(size, await fillNamespace(stack.runtime.deps, actor, { namespace: `n1-${size}`, secrets: 2 * size, configurations: size, agents: size, audit: size }, { parallel: 8 }));
  }
  // The worker polls the queue; its statements would be counted with the request's.
  await stack.runtime.worker.stop();
}, 2_400_000);
afterAll(() => stack?.close());

interface ListCase {
  name: string;
  query: string;
  /** The connection, from the answer's data. */
  connection(data: Record<string, any>): { totalCount: number; edges: Array<{ node: Record<string, any> }> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** What every node must hold, so a loader that answers nothing cannot pass. */
  check(node: Record<string, any>): void; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Its page size, when a page of PAGE would cost more than the limit (P7: every field of every node counts). */
  page?: number;
}

const LISTS: ListCase[] = [
  {
    name: 'agents with principal, missing grants, namespace, configuration, bindings, secrets, harnessAuth and access bindings',
    // More than 100 cost points per agent with all of this selected: a page of 100 is over the limit of 10,000.
    page: 50,
    query: `query($id: ID!, $first: Int) { namespace(id: $id) { agents(first: $first) { totalCount edges { node {
      id name namespace { id name } servicePrincipal { id name disabled createdAt }
      missingGrants { subjectId resourceId roleId }
      configuration { id name namespace { id } secretBindings { envName source { id } secret { id name version } } }
      harnessAuth { envName secret { id name } }
      accessBindings { id role { name } subject { id } scope { kind resourceId } }
      activeRevision { id number state }
      revisions(first: 2) { totalCount edges { node { id number state } } }
      fieldOwnership { instanceName items { kind name owners { manager operation } } }
      selfConfigBudget { requestsPerHour requestsInLastHour appliedInLastDay rollbacksSinceResume paused refusal { reason } }
      runtime { phase ready reason runningRevision { id number } }
      viewerCan { update delete deploy administer }
    } } } } }`,
    connection: (data) => data.namespace.agents,
    check(node) {
      expect(node.servicePrincipal.disabled).toBe(false);
      expect(node.namespace.name).toMatch(/^n1-/);
      expect(node.configuration.secretBindings[0].secret.name).toMatch(/^secret-/);
      expect(node.harnessAuth.secret.name).toMatch(/^secret-/);
      expect(node.accessBindings).toHaveLength(1);
      expect(node.accessBindings[0].subject.id).toBe(node.servicePrincipal.id);
      // The principal may operate its model key only; the configuration's secret is missing
      // unless it is the same one.
      expect(node.missingGrants.length).toBeLessThanOrEqual(1);
      // The bootstrap administrator may do everything (decided from the bindings read once).
      expect(node.viewerCan).toEqual({ update: true, delete: true, deploy: true, administer: true });
    },
  },
  {
    name: 'secrets with consumers and namespace',
    // With versions, exposure and blast radius selected, a page of 100 costs over the limit of 10,000.
    page: 50,
    query: `query($id: ID!, $first: Int) { namespace(id: $id) { secrets(first: $first) { totalCount edges { node {
      id name version namespace { id name } backendLocator { name uid } consumers { total hiddenCount items { kind id name } }
      staleConsumers { total hiddenCount items { agentId revisionId deliveredVersion currentVersion } }
      references { currentVersion configurations { id name envNames } agents { id name configurationId harnessAuthProvider }
        revisions { id agentId number state stale deliveries { envName version stale } gateway { k8sNamespace name } } hidden { configurations agents revisions } }
      versions { number createdAt firstDeliveredAt lastDeliveredAt retiredAt }
      exposure { hiddenCount items { agentId revisionId version } }
      blastRadius { total { configurations agents revisions gateways } hidden { agents } agents { id name via } revisions { id number versions } gateways { agentId deploymentName } configurations { id envNames } }
      rotationPolicy { mode batchSize source } rollouts { id state secret { id } batches { index members { agentId agent { id } revision { id } rollbackRevision { id } } } }
      viewerCan { update delete administer operate }
    } } } } }`,
    connection: (data) => data.namespace.secrets,
    check(node) {
      expect(node.namespace.name).toMatch(/^n1-/);
      // The first half is bound by the configuration of the same index, the second half is the
      // agents' model keys (seed/fill.ts): every secret has a consumer.
      expect(node.consumers.total).toBeGreaterThanOrEqual(1);
      // The same secrets seen as a graph: a bound one has its configuration and the agent selecting
      // it, a model key its agent.
      expect(node.references.configurations.length + node.references.agents.length).toBeGreaterThanOrEqual(1);
      // V5 V6 at page size: every secret has its first version, and touches what its references name.
      expect(node.versions.map((v: { number: number }) => v.number)).toContain(1);
      expect(node.blastRadius.total.configurations + node.blastRadius.total.agents).toBe(node.references.configurations.length + node.references.agents.length);
      expect(node.viewerCan).toEqual({ update: true, delete: true, administer: true, operate: true });
    },
  },
  {
    name: 'configurations with namespace, bound secrets and generation history',
    query: `query($id: ID!, $first: Int) { namespace(id: $id) { configurations(first: $first) { totalCount edges { node {
      id name namespace { id } secretBindings { envName secret { id name version } }
      generations(first: 2) { totalCount pageInfo { hasNextPage } edges { node { generation values createdAt createdBy { id name disabled createdAt } secretBindings { envName secret { id name version } } } } }
      blastRadius { total { agents revisions gateways } agents { id via } configurations { id envNames } gateways { deploymentName } }
      viewerCan { update delete }
    } } } } }`,
    connection: (data) => data.namespace.configurations,
    check(node) {
      expect(Number(node.secretBindings[0].secret.name.slice('secret-'.length))).toBe(Number(node.name.slice('configuration-'.length)));
      // Each configuration was created once (generation 1), by the bootstrap principal.
      expect(node.generations.totalCount).toBe(1);
      const [first] = node.generations.edges.map((e: { node: unknown }) => e.node);
      expect(first).toMatchObject({ generation: 1, createdBy: { name: expect.any(String), disabled: false } });
      expect(first.secretBindings[0].secret.name).toBe(node.secretBindings[0].secret.name);
      // V6 at page size: the configuration's radius names its own bindings, read by the loader.
      expect(node.blastRadius.configurations[0].envNames).toEqual(node.secretBindings.map((b: { envName: string }) => b.envName).sort());
      expect(node.viewerCan).toEqual({ update: true, delete: true });
    },
  },
  {
    name: 'audit events with their actor',
    query: `query($id: ID!, $first: Int) { auditEvents(first: $first, filter: { namespaceId: $id }) { totalCount edges { node {
      id action outcome actorId actor { id name disabled createdAt }
    } } } }`,
    connection: (data) => data.auditEvents,
    check(node) {
      // The worker's own events (namespace.provision) have no actor.
      if (node.actorId === null) expect(node.actor).toBeNull();
      else expect(node.actor).toMatchObject({ id: node.actorId, name: expect.any(String) });
    },
  },
];

async function statementsFor(list: ListCase, size: number): Promise<number> {
  const { namespaceId } = filled.get(size)!;
  // Counted cold, authentication included, on every database (auth-cache.ts keeps it otherwise).
  authCacheOf(stack.runtime.db)?.clear();
  statements = 0;
  const result = await stack.gql(list.query, { id: namespaceId, first: list.page ?? PAGE });
  const count = statements;
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  const connection = list.connection(result.body.data!);
  const nodes = connection.edges.map((e: { node: Record<string, unknown> }) => e.node);
  // Lists of the namespace's objects hold exactly `size`; its audit history at least that many.
  // Lists of the namespace's objects hold exactly `size` (secrets twice that: bound ones and model
  // keys); its audit history at least that many.
  if (list.name.startsWith('audit')) expect(connection.totalCount).toBeGreaterThanOrEqual(size);
  else expect(connection.totalCount).toBe(list.name.startsWith('secrets') ? 2 * size : size);
  expect(nodes.length).toBe(Math.min(connection.totalCount, list.page ?? PAGE));
  for (const node of nodes) list.check(node);
  return count;
}

describe('P3 statements per page do not grow with the rows in the namespace', () => {
  it.each(LISTS.map((list) => [list.name, list] as const))(`a page of %s costs as many statements at ${SIZES.join(', ')} items`, async (_name, list) => {
    await statementsFor(list, 10); // warm-up: the first request opens pool connections
    const counts: number[] = [];
    // The count is the process's: a write that runs beside the request (an API key's lastUsedAt, once
    // a minute; the worker's poll) adds to one reading only (16, 18, 16 in a CI run). Such writes
    // only ever add, so the smaller of two readings is the request's own.
    for (const size of SIZES) counts.push(Math.min(await statementsFor(list, size), await statementsFor(list, size)));
    expect(counts[0]).toBeGreaterThan(3);
    expect(counts).toEqual(SIZES.map(() => counts[0]));
  });
});

describe('P3 the reference graph of a namespace costs as many statements however full the namespace', () => {
  it(`Namespace.referenceGraph at ${SIZES.join(', ')} items`, async () => {
    const query = `query($id: ID!) { namespace(id: $id) { referenceGraph(first: 100) { totalCount hasNextPage nodes { id kind } edges { from to kind } hidden { secrets } } } }`;
    const read = async (size: number) => {
      authCacheOf(stack.runtime.db)?.clear();
      statements = 0;
      const result = await stack.gql(query, { id: filled.get(size)!.namespaceId });
      const count = statements;
      expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
      const graph = result.body.data!.namespace.referenceGraph;
      // 2 × size secrets, size configurations, size agents (seed/fill.ts), nothing deployed.
      expect(graph.totalCount).toBe(4 * size);
      expect(graph.nodes).toHaveLength(Math.min(100, 4 * size));
      expect(graph.edges.length).toBeGreaterThan(0);
      return count;
    };
    await read(SIZES[0]!);
    const counts: number[] = [];
    for (const size of SIZES) counts.push(Math.min(await read(size), await read(size)));
    expect(counts[0]).toBeGreaterThan(3);
    expect(counts).toEqual(SIZES.map(() => counts[0]));
  });
});

// Object types computed from their parent row, with nothing to load.
const PLAIN_VALUES = new Set(['SecretReference', 'SelfConfigure', 'BindingDelivery', 'AccessScope', 'PageInfo']);

/** Every field of `type` whose type is an object that may need loading, as `Type.field`. */
function pointingFields(type: GraphQLObjectType): string[] {
  return Object.values(type.getFields())
    .filter((f) => isObjectType(getNamedType(f.type)) && !PLAIN_VALUES.has(getNamedType(f.type).name))
    .map((f) => `${type.name}.${f.name}`);
}

describe('the statement-count lists ask for every field that points elsewhere', () => {
  it.each(LISTS.map((list) => [list.name, list] as const))('the %s query selects every such field of its node type', (_name, list) => {
    const selected = new Set<string>();
    const nodeTypes = new Set<GraphQLObjectType>();
    const info = new TypeInfo(schema);
    visit(
      parse(list.query),
      visitWithTypeInfo(info, {
        Field(node) {
          const parent = info.getParentType();
          if (parent) selected.add(`${parent.name}.${node.name.value}`);
          const type = getNamedType(info.getType());
          // The list's own node type: the first `node` reached (a nested connection has its own).
          if (node.name.value === 'node' && isObjectType(type) && nodeTypes.size === 0) nodeTypes.add(type);
        },
      }),
    );
    expect(nodeTypes.size).toBe(1);
    // A field added to the type later (an agent's revisions, a secret's stale consumers) fails
    // here until this test reads it at every size too.
    const missing = pointingFields([...nodeTypes][0]!).filter((f) => !selected.has(f));
    expect(missing).toEqual([]);
  });
});
