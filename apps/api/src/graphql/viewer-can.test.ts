import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';
import { CAPABILITIES } from '../services/capabilities.ts';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';

// viewerCan answers, per object, what the caller may do; the console hides or disables what it
// may not. Checked for every kind of reader two ways: against a table of the built-in roles
// written out here, and against the mutations themselves, run for real as each reader (the ones
// that change nothing lasting: a rotation, a policy cleared, an update to the same values).

let stack: TestStack;
const ids = {} as { ns: string; secret: string; configuration: string; agent: string };
const keys = {} as Record<Reader, string | undefined>;
type Reader = 'admin' | 'editor' | 'viewer' | 'operator' | 'outsider';
const READERS: Reader[] = ['admin', 'editor', 'viewer', 'operator', 'outsider'];

beforeAll(async () => {
  stack = await startTestStack();
  const db = stack.runtime.db;
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  ids.ns = await createReadyNamespace(stack, 'viewer-can');
  ids.secret = (await createSecretOk(stack, ids.ns, 'key', 'v1')).id;
  ids.configuration = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: ids.ns, name: 'cfg', values: {} } }), 'createConfiguration').configuration.id;
  ids.agent = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId: ids.ns, name: 'agent' } }), 'createAgent').agent.id;
  keys.admin = undefined;
  const person = async (name: string, grants: Array<[string, Parameters<typeof grantBuiltInRole>[3]]>) => {
    const p = await createHumanPrincipal(db, name, boot);
    for (const [role, scope] of grants) await grantBuiltInRole(db, p.principalId, role, scope, boot);
    return p.apiKey;
  };
  keys.editor = await person('vc-editor', [['namespace-editor', { kind: 'namespace', namespaceId: ids.ns }]]);
  keys.viewer = await person('vc-viewer', [['namespace-viewer', { kind: 'namespace', namespaceId: ids.ns }]]);
  keys.operator = await person('vc-operator', [
    ['namespace-viewer', { kind: 'namespace', namespaceId: ids.ns }],
    ['secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: ids.secret, namespaceId: ids.ns }],
  ]);
  keys.outsider = await person('vc-outsider', []);
}, 120_000);
afterAll(() => stack?.close());

const fields = (kind: keyof typeof CAPABILITIES) => Object.keys(CAPABILITIES[kind]).join(' ');
const VIEWER_CAN = `query($ns: ID!, $secret: ID!, $cfg: ID!, $agent: ID!) {
  ns: node(id: $ns) { ... on Namespace { viewerCan { ${fields('namespace')} } } }
  secret: node(id: $secret) { ... on Secret { viewerCan { ${fields('secret')} } } }
  cfg: node(id: $cfg) { ... on Configuration { viewerCan { ${fields('configuration')} } } }
  agent: node(id: $agent) { ... on Agent { viewerCan { ${fields('agent')} } } }
}`;

async function viewerCan(reader: Reader) {
  const answer = await stack.gql(VIEWER_CAN, { ns: ids.ns, secret: ids.secret, cfg: ids.configuration, agent: ids.agent }, { key: keys[reader] });
  expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
  return answer.body.data as Record<'ns' | 'secret' | 'cfg' | 'agent', { viewerCan: Record<string, boolean> } | null>;
}

// The built-in roles' grants, written out: what each reader may do here.
const T = true;
const F = false;
const EXPECTED: Record<Exclude<Reader, 'outsider'>, { ns: Record<string, boolean>; secret: Record<string, boolean>; cfg: Record<string, boolean>; agent: Record<string, boolean> }> = {
  admin: {
    ns: { createSecret: T, createConfiguration: T, createAgent: T, administer: T },
    secret: { update: T, delete: T, administer: T, operate: T },
    cfg: { update: T, delete: T },
    agent: { update: T, delete: T, deploy: T, administer: T },
  },
  editor: {
    ns: { createSecret: T, createConfiguration: T, createAgent: T, administer: F },
    secret: { update: T, delete: T, administer: F, operate: F },
    cfg: { update: T, delete: T },
    agent: { update: T, delete: T, deploy: T, administer: F },
  },
  viewer: {
    ns: { createSecret: F, createConfiguration: F, createAgent: F, administer: F },
    secret: { update: F, delete: F, administer: F, operate: F },
    cfg: { update: F, delete: F },
    agent: { update: F, delete: F, deploy: F, administer: F },
  },
  operator: {
    ns: { createSecret: F, createConfiguration: F, createAgent: F, administer: F },
    secret: { update: F, delete: F, administer: F, operate: T },
    cfg: { update: F, delete: F },
    agent: { update: F, delete: F, deploy: F, administer: F },
  },
};

describe('viewerCan', () => {
  it.each(READERS)('A3 P6 as %s: what each object answers is what the roles grant; an object you cannot read is null', async (reader) => {
    const answer = await viewerCan(reader);
    if (reader === 'outsider') {
      expect(answer).toEqual({ ns: null, secret: null, cfg: null, agent: null });
      return;
    }
    expect({ ns: answer.ns?.viewerCan, secret: answer.secret?.viewerCan, cfg: answer.cfg?.viewerCan, agent: answer.agent?.viewerCan }).toEqual(EXPECTED[reader]);
  });

  // The mutations, run as each reader: allowed exactly where viewerCan said so (refused FORBIDDEN
  // where the object is readable, NOT_FOUND where it is not).
  const MUTATIONS: Array<{ on: 'ns' | 'secret' | 'cfg' | 'agent'; capability: string; run: (key: string | undefined) => Promise<{ __typename: string }> }> = [
    {
      on: 'ns',
      capability: 'administer',
      run: async (key) => payload(await stack.gql(`mutation($i: SetNamespaceSecretRotationPolicyInput!) { setNamespaceSecretRotationPolicy(input: $i) { __typename } }`, { i: { namespaceId: ids.ns, policy: null } }, { key }), 'setNamespaceSecretRotationPolicy') as { __typename: string },
    },
    {
      on: 'secret',
      capability: 'update',
      run: async (key) => payload(await stack.gql(`mutation($i: UpdateSecretInput!) { updateSecret(input: $i) { __typename } }`, { i: { id: ids.secret, value: 'rotated' } }, { key }), 'updateSecret') as { __typename: string },
    },
    {
      on: 'secret',
      capability: 'administer',
      run: async (key) => payload(await stack.gql(`mutation($i: SetSecretRotationPolicyInput!) { setSecretRotationPolicy(input: $i) { __typename } }`, { i: { secretId: ids.secret, policy: null } }, { key }), 'setSecretRotationPolicy') as { __typename: string },
    },
    {
      on: 'cfg',
      capability: 'update',
      run: async (key) => {
        const generation = (await stack.runtime.db.configuration.findUniqueOrThrow({ where: { id: ids.configuration }, select: { generation: true } })).generation;
        return payload(await stack.gql(`mutation($i: UpdateConfigurationInput!) { updateConfiguration(input: $i) { __typename } }`, { i: { id: ids.configuration, expectedGeneration: generation, values: {} } }, { key }), 'updateConfiguration') as { __typename: string };
      },
    },
    {
      on: 'agent',
      capability: 'update',
      run: async (key) => payload(await stack.gql(`mutation($i: UpdateAgentInput!) { updateAgent(input: $i) { __typename } }`, { i: { id: ids.agent } }, { key }), 'updateAgent') as { __typename: string },
    },
  ];

  it.each(READERS.flatMap((reader) => MUTATIONS.map((m) => [reader, m.on, m.capability, m] as const)))('A3 as %s, %s %s: the mutation is allowed exactly when viewerCan says so', async (reader, on, capability, m) => {
    const said = (await viewerCan(reader))[on]?.viewerCan[capability] ?? null;
    const result = await m.run(keys[reader]);
    if (said === null) expect(result.__typename).toBe('NotFoundError');
    else if (said) expect(result.__typename).toMatch(/Success$/);
    else expect(result.__typename).toBe('ForbiddenError');
  });
});
