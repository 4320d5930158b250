import fc from 'fast-check';
import { getNamedType, isLeafType, isNonNullType, isObjectType, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, binding, createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { schema } from './schema/index.ts';

// A page of agents that shows each one's configuration reads it, its bindings and their secrets
// in the page's own statement (services/agents.ts AgentReads), not through the request's loaders.
// That is a second way to answer the same fields, so it must answer as the first does: for any
// selection of Configuration's and Secret's fields (taken from the schema, so a field added later
// is in the draw) and for readers of different parts, the page's nodes equal the same agents read
// one by one through agent(id), whose configuration and secrets come through the loaders. A view
// read without a part throws when that part is used, so a field whose resolver needs what the
// page's statement did not read fails here as an error.

let stack: TestStack;
let namespace: string;
const agents: string[] = [];
const readers: Array<{ name: string; key: string | undefined }> = [];

beforeAll(async () => {
  stack = await startTestStack();
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  namespace = await createReadyNamespace(stack, 'joined-page');
  const secrets = [];
  for (const name of ['one', 'two', 'three']) secrets.push((await createSecretOk(stack, namespace, `joined-${name}`, 'v')).id);
  const [s1, s2, s3] = secrets as [string, string, string];
  const configuration = async (name: string, bindings: Array<[string, string]>) =>
    payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: namespace, name, values: { channels: { telegram: { enabled: true } } }, secretBindings: bindings.map(([env, id]) => binding(env, id)) } }), 'createConfiguration')
      .configuration.id as string;
  // One binding; three (one secret twice); none; and an agent with no configuration.
  const cA = await configuration('joined-a', [['A_TOKEN', s1]]);
  const cB = await configuration('joined-b', [['C_TOKEN', s3], ['A_TOKEN', s1], ['B_TOKEN', s2], ['D_TOKEN', s1]]);
  const cC = await configuration('joined-c', []);
  for (const [name, configurationId] of [['joined-1', cA], ['joined-2', cB], ['joined-3', cC], ['joined-4', null], ['joined-5', cB]] as const) {
    agents.push(payload(await stack.gql(CREATE_AGENT, { input: { namespaceId: namespace, name, configurationId } }), 'createAgent').agent.id);
  }
  await stack.runtime.worker.stop();
  readers.push({ name: 'the installation administrator', key: undefined });
  // Readers of the namespace and its agents, and of some of its configurations and secrets.
  const parts: Array<[string, string[]]> = [
    ['no configuration or secret', []],
    ['every configuration, no secret', [cA, cB, cC]],
    ['one configuration and one of its secrets', [cB, s2]],
    ['two configurations and two secrets', [cA, cB, s1, s3]],
  ];
  for (const [name, resources] of parts) {
    const reader = await createHumanPrincipal(stack.runtime.db, `joined-${name.replace(/\W+/g, '-')}`, boot);
    const grant = (resourceKind: string, resourceId: string) =>
      grantBuiltInRole(stack.runtime.db, reader.principalId, 'namespace-viewer', { kind: 'resource', resourceKind, resourceId, namespaceId: namespace }, boot);
    await grant('namespace', namespace);
    for (const agent of agents) await grant('agent', agent);
    for (const id of resources) await grant(id.startsWith('cfg_') ? 'configuration' : 'secret', id);
    readers.push({ name, key: reader.apiKey });
  }
}, 120_000);
afterAll(() => stack?.close());

/**
 * Each field of a type that takes no required argument, as a selection: a leaf by its name, an
 * object by its name with `__typename` (and `id`, where it has one): its resolver runs either way.
 */
function fieldsOf(typeName: string): string[] {
  const type = schema.getType(typeName) as GraphQLObjectType;
  return Object.values(type.getFields())
    .filter((f) => !f.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined))
    .map((f) => {
      const named = getNamedType(f.type);
      if (isLeafType(named)) return f.name;
      const id = isObjectType(named) && named.getFields().id ? ' id' : '';
      return `${f.name} { __typename${id} }`;
    });
}

const CONFIGURATION_FIELDS = fieldsOf('Configuration').filter((f) => !f.startsWith('secretBindings'));
const BINDING_FIELDS = fieldsOf('SecretBinding').filter((f) => !f.startsWith('secret '));
const SECRET_FIELDS = fieldsOf('Secret');

/** A selection of Configuration's fields, perhaps with its bindings and perhaps their secrets. */
const selection = fc
  .record({
    configuration: fc.subarray(CONFIGURATION_FIELDS, { maxLength: 4 }),
    // Few fields at a time, so that a field whose columns are read on their own is often drawn
    // without one that reads the whole row.
    bindings: fc.option(fc.record({ fields: fc.subarray(BINDING_FIELDS), secret: fc.option(fc.subarray(SECRET_FIELDS, { maxLength: 3 }), { nil: null, freq: 5 }) }), { nil: null, freq: 5 }),
    alias: fc.boolean(),
  })
  .map(({ configuration, bindings, alias }) => {
    const secret = bindings?.secret ? `secret { id ${bindings.secret.join(' ')} }` : '';
    const inner = [...configuration, ...(bindings ? [`secretBindings { envName ${bindings.fields.join(' ')} ${secret} }`] : [])];
    return `${alias ? 'cfg: ' : ''}configuration { id ${inner.join(' ')} }`;
  });

describe('P3 P6 a page of agents with their configurations in one statement', () => {
  it('the schema gives the draw something to choose from', () => {
    expect(CONFIGURATION_FIELDS).toEqual(expect.arrayContaining(['name', 'values']));
    expect(SECRET_FIELDS).toEqual(expect.arrayContaining(['name', 'version']));
  });

  async function samePage(fields: string, readerIndex: number): Promise<void> {
        const { key } = readers[readerIndex]!;
        const list = await stack.gql(`query($ns: ID!) { namespace(id: $ns) { agents(first: 5) { edges { node { id ${fields} } } } } }`, { ns: namespace }, { key });
        expect(list.body.errors, `${readers[readerIndex]!.name}: ${fields}: ${JSON.stringify(list.body.errors)}`).toBeUndefined();
        const one = await stack.gql(`query { ${agents.map((id, i) => `a${i}: agent(id: "${id}") { id ${fields} }`).join(' ')} }`, {}, { key });
        expect(one.body.errors, JSON.stringify(one.body.errors)).toBeUndefined();
        const nodes = (list.body.data!.namespace.agents.edges as Array<{ node: { id: string } }>).map((e) => e.node);
        expect(nodes.map((n) => n.id)).toEqual(agents);
        expect(nodes, `${readers[readerIndex]!.name}: ${fields}`).toEqual(agents.map((_, i) => one.body.data![`a${i}`]));
  }

  // Each field alone, as every reader: a field whose resolver needs a column the page did not read fails here by name.
  it.each([
    ...CONFIGURATION_FIELDS.map((f) => `configuration { ${f} }`),
    ...BINDING_FIELDS.map((f) => `configuration { secretBindings { ${f} } }`),
    ...SECRET_FIELDS.map((f) => `configuration { secretBindings { secret { ${f} } } }`),
  ])('P3 P6 %s: the page answers each agent as agent(id) does, for every reader', async (fields) => {
    for (const reader of readers.keys()) await samePage(fields, reader);
  });

  it('P3 a backward page and a page after a cursor join the same rows to the same agents', async () => {
    const fields = 'id configuration { id name secretBindings { envName secret { id name } } }';
    const all = await stack.gql(`query($ns: ID!) { namespace(id: $ns) { agents(first: 5) { edges { cursor node { ${fields} } } } } }`, { ns: namespace });
    const edges = all.body.data!.namespace.agents.edges as Array<{ cursor: string; node: unknown }>;
    expect(edges).toHaveLength(agents.length);
    const last = await stack.gql(`query($ns: ID!) { namespace(id: $ns) { agents(last: 3) { edges { node { ${fields} } } } } }`, { ns: namespace });
    expect(last.body.data!.namespace.agents.edges.map((e: { node: unknown }) => e.node)).toEqual(edges.slice(-3).map((e) => e.node));
    const after = await stack.gql(`query($ns: ID!, $after: String) { namespace(id: $ns) { agents(first: 2, after: $after) { edges { node { ${fields} } } } } }`, { ns: namespace, after: edges[1]!.cursor });
    expect(after.body.data!.namespace.agents.edges.map((e: { node: unknown }) => e.node)).toEqual(edges.slice(2, 4).map((e) => e.node));
  });

  it('P3 P6 for any selection and reader, the page answers each agent as agent(id) does through the loaders', async () => {
    await fc.assert(fc.asyncProperty(selection, fc.constantFrom(...readers.keys()), samePage), { numRuns: 100 });
  }, 120_000);
});
