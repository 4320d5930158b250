import { getNamedType, isLeafType, isNonNullType, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchKubernetesRequests } from '../observability/metrics.ts';
import { fillNamespace } from '../seed/fill.ts';
import type { Actor } from '../services/deps.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { schema } from './schema/index.ts';

// P7: the cost of a page counts its nodes, and the work must follow it: no field of a listed node
// may send a Kubernetes request per node. Agent.fieldOwnership did (a GET of each agent's
// instance), and four readers of 100-agent pages made another caller's answers 346 times slower
// (bench/api/fairness.bench.ts). Every field of every node a namespace lists is asked for on a page
// of 1 and on a page of 5, and the larger page must send no more API requests than the smaller:
// a field that reads the cluster reads it once per page (one list per namespace), never per node.
// Fields are taken from the schema, so a field added later is checked without a line here.

const PAGE_SMALL = 1;
const PAGE_LARGE = 5;

/** The lists a namespace pages, with the type of their nodes. */
const LISTS = [
  { list: 'secrets', type: 'Secret' },
  { list: 'configurations', type: 'Configuration' },
  { list: 'agents', type: 'Agent' },
] as const;

/** Fields with a required argument, which a generated selection cannot give; each is named here, so a new one is seen. */
const NEEDS_ARGUMENTS = new Set<string>();

let stack: TestStack;
let namespaceId: string;
let calls: string[] = [];
let stopWatching: () => void;

beforeAll(async () => {
  stack = await startTestStack();
  const actor: Actor = { principalId: stack.runtime.installation.bootstrapPrincipalId, kind: 'SERVICE', name: 'bootstrap', apiKeyId: 'n/a' };
  const filled = await fillNamespace(stack.runtime.deps, actor, { namespace: 'k-per-page', secrets: 2 * PAGE_LARGE, configurations: PAGE_LARGE, agents: PAGE_LARGE, audit: 0 }, { parallel: 4 });
  namespaceId = filled.namespaceId;
  // Nothing else of the process talks to the API server while requests are counted: the worker,
  // the SelfConfig controller and the instance reconciler stop (the leader's Lease renewals are
  // left out by resource below).
  await stack.runtime.worker.stop();
  await stack.runtime.selfConfig.stop();
  await stack.runtime.instances.stop();
  const server = stack.kubeConfig.getCurrentCluster()!.server;
  stopWatching = watchKubernetesRequests(server, ({ verb, resource }) => {
    if (resource !== 'leases') calls.push(`${verb} ${resource}`);
    return () => {};
  });
}, 300_000);
afterAll(async () => {
  stopWatching?.();
  await stack?.close();
});

function selectionOf(type: GraphQLObjectType): Array<{ field: string; selection: string }> {
  const out: Array<{ field: string; selection: string }> = [];
  for (const field of Object.values(type.getFields())) {
    const name = `${type.name}.${field.name}`;
    if (field.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined)) {
      if (!NEEDS_ARGUMENTS.has(name)) out.push({ field: name, selection: '' });
      continue;
    }
    out.push({ field: name, selection: isLeafType(getNamedType(field.type)) ? field.name : `${field.name} { __typename }` });
  }
  return out;
}

/** The API requests one page sends: the smaller of two readings (a stray request of the process lands in one at most). */
async function requestsFor(list: string, selection: string, size: number): Promise<{ count: number; calls: string[] }> {
  const query = `query($id: ID!, $n: Int) { namespace(id: $id) { ${list}(first: $n) { edges { node { id ${selection} } } } } }`;
  let best: { count: number; calls: string[] } | null = null;
  for (let reading = 0; reading < 2; reading++) {
    calls = [];
    const res = await stack.gql(query, { id: namespaceId, n: size });
    expect(res.body.errors, `${list} { ${selection} }: ${JSON.stringify(res.body.errors)}`).toBeUndefined();
    expect(res.body.data!.namespace[list].edges).toHaveLength(size);
    if (!best || calls.length < best.count) best = { count: calls.length, calls: [...calls] };
  }
  return best!;
}

describe('P7 no field of a listed node sends a Kubernetes request per node', () => {
  for (const { list, type } of LISTS) {
    it(`P7 ${list}: every field of ${type} on a page of ${PAGE_LARGE} sends no more API requests than on a page of ${PAGE_SMALL}`, async () => {
      const nodeType = schema.getType(type) as GraphQLObjectType;
      const fields = selectionOf(nodeType);
      const unnamed = fields.filter((f) => f.selection === '').map((f) => f.field);
      expect(unnamed, 'fields with required arguments: give each a selection here, or name it in NEEDS_ARGUMENTS').toEqual([]);
      const perNode: string[] = [];
      for (const { field, selection } of fields.filter((f) => f.selection !== '')) {
        const small = await requestsFor(list, selection, PAGE_SMALL);
        const large = await requestsFor(list, selection, PAGE_LARGE);
        if (large.count > small.count) perNode.push(`${field}: ${small.count} for ${PAGE_SMALL}, ${large.count} for ${PAGE_LARGE} (${large.calls.join(', ')})`);
      }
      expect(perNode).toEqual([]);
    }, 300_000);
  }

  it('P7 the count sees the requests a field sends: Agent.fieldOwnership reads the cluster once for the page', async () => {
    const { count, calls: sent } = await requestsFor('agents', 'fieldOwnership { instanceName }', PAGE_LARGE);
    expect(sent).toEqual(['list openclawinstances']);
    expect(count).toBe(1);
  });
});
