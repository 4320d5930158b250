import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, binding, createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// The fields that point at another record load it through the request's loaders (loaders.ts),
// which filter a batch by the scopes where the caller reads its kind. Every combination of what a
// caller may read: each such field answers its record exactly when the caller may read it (and
// its parent), null otherwise; in a list and through a single read alike.

type Target = 'namespace' | 'configuration' | 'secret';
const TARGETS: Target[] = ['namespace', 'configuration', 'secret'];
const subsets = TARGETS.reduce<Target[][]>((all, t) => [...all, ...all.map((s) => [...s, t])], [[]]);

let stack: TestStack;
let ids: Record<Target | 'agent', string>;
const keys = new Map<string, string>();

beforeAll(async () => {
  stack = await startTestStack();
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  const namespace = await createReadyNamespace(stack, 'loader-access');
  const secret = (await createSecretOk(stack, namespace, 'loader-token', 'v')).id;
  const configuration = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: namespace, name: 'loader-cfg', values: {}, secretBindings: [binding('BOT_TOKEN', secret)] } }), 'createConfiguration').configuration.id;
  const agent = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId: namespace, name: 'loader-agent', configurationId: configuration } }), 'createAgent').agent.id;
  ids = { namespace, configuration, secret, agent };
  await stack.runtime.worker.stop();
  // One reader per subset: reads the agent, and each target of the subset, by resource-scope bindings.
  for (const subset of subsets) {
    const reader = await createHumanPrincipal(stack.runtime.db, `loader-reader-${subset.join('-') || 'none'}`, boot);
    for (const kind of ['agent', ...subset] as const) {
      await grantBuiltInRole(stack.runtime.db, reader.principalId, 'namespace-viewer', { kind: 'resource', resourceKind: kind, resourceId: ids[kind], namespaceId: namespace }, boot);
    }
    keys.set(subset.join(','), reader.apiKey);
  }
}, 60_000);
afterAll(() => stack?.close());

const FIELDS = 'id namespace { id } configuration { id namespace { id } secretBindings { envName secret { id } } }';

describe('P6 fields that load another record', () => {
  it.each(subsets.map((s) => [s.join(', ') || 'nothing else', s] as const))('P6 a reader of the agent and of %s sees exactly those records through every loading field', async (_what, subset) => {
    const key = keys.get(subset.join(','))!;
    const may = (t: Target) => subset.includes(t);
    const expected = {
      id: ids.agent,
      namespace: may('namespace') ? { id: ids.namespace } : null,
      configuration: may('configuration')
        ? { id: ids.configuration, namespace: may('namespace') ? { id: ids.namespace } : null, secretBindings: [{ envName: 'BOT_TOKEN', secret: may('secret') ? { id: ids.secret } : null }] }
        : null,
    };
    const single = await stack.gql(`query($id: ID!) { agent(id: $id) { ${FIELDS} } }`, { id: ids.agent }, { key });
    expect(single.body).toEqual({ data: { agent: expected } });
    // The list needs the namespace read; a reader of the agent alone reads it through the node.
    const viaNode = await stack.gql(`query($id: ID!) { node(id: $id) { ... on Agent { ${FIELDS} } } }`, { id: ids.agent }, { key });
    expect(viaNode.body).toEqual({ data: { node: expected } });
    if (may('namespace')) {
      const list = await stack.gql(`query($ns: ID!) { namespace(id: $ns) { agents(first: 5) { edges { node { ${FIELDS} } } } } }`, { ns: ids.namespace }, { key });
      expect(list.body).toEqual({ data: { namespace: { agents: { edges: [{ node: expected }] } } } });
    }
  });
});
