import {
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLInputType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../graphql/schema/index.ts';
import { JSON_MAX_DEPTH } from '../graphql/json-scalar.ts';
import { startTestStack, type GqlResult, type TestStack } from '../test/stack.ts';
import { CREATE_CONFIGURATION, UPDATE_CONFIGURATION, createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// P4: text PostgreSQL cannot store (NUL, lone surrogates) and JSON too deep to walk answer a
// typed error naming the field, never an internal error, and write nothing. The matrix is built
// from the schema: every String and ID argument and input field of every query and mutation,
// with a baseline that reaches it; a new field without a baseline fails the coverage check.

let stack: TestStack;
const ids = {} as Record<string, string>;

beforeAll(async () => {
  stack = await startTestStack();
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  ids.ns = await createReadyNamespace(stack, 'unstorable');
  ids.secret = (await createSecretOk(stack, ids.ns, 'base', 'v')).id;
  const cfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: ids.ns, name: 'base', values: {} } }), 'createConfiguration');
  ids.cfg = cfg.configuration.id;
  const agent = payload(await stack.gql(`mutation($i: CreateAgentInput!) { createAgent(input: $i) { ... on CreateAgentSuccess { agent { id servicePrincipalId } } } }`, { i: { namespaceId: ids.ns, name: 'base' } }), 'createAgent');
  ids.agent = agent.agent.id;
  const user = await createHumanPrincipal(stack.runtime.db, 'base-user', boot);
  ids.user = user.principalId;
  ids.key = user.apiKeyId;
  ids.binding = await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: ids.ns }, boot);
  ids.cursor = (await stack.gql(`{ namespaces(first: 1) { edges { cursor } } }`)).body.data!.namespaces.edges[0].cursor;
}, 60_000);
afterAll(() => stack?.close());

type Baseline = () => Record<string, unknown>;
const scope = () => ({ kind: 'RESOURCE', namespaceId: ids.ns, resourceKind: 'secret', resourceId: ids.secret });
const bindingInput = () => ({ envName: 'TELEGRAM_BOT_TOKEN', source: { kind: 'secret', namespaceId: ids.ns, id: ids.secret }, delivery: { type: 'env' } });
const harnessAuth = () => ({ provider: 'openai', source: { kind: 'secret', namespaceId: ids.ns, id: ids.secret } });

/** Arguments that reach every String and ID field (mutations take `input`). */
const BASELINES: Record<string, Baseline[]> = {
  createNamespace: [() => ({ input: { name: 'fresh' } })],
  reprovisionNamespace: [() => ({ input: { id: ids.ns } })],
  createSecret: [() => ({ input: { namespaceId: ids.ns, name: 'fresh', value: 'v' } })],
  updateSecret: [() => ({ input: { id: ids.secret, value: 'v2' } })],
  deleteSecret: [() => ({ input: { id: ids.secret } })],
  deleteOrphanedSecretBackend: [() => ({ input: { k8sNamespace: 'occ-unstorable', name: 'orphan', uid: '00000000-0000-4000-8000-000000000000' } })],
  deleteConfiguration: [() => ({ input: { id: ids.cfg } })],
  deleteAgent: [() => ({ input: { id: ids.agent } })],
  stopAgent: [() => ({ input: { agentId: ids.agent } })],
  redeployConsumers: [() => ({ input: { secretId: ids.secret } })],
  createConfiguration: [() => ({ input: { namespaceId: ids.ns, name: 'fresh', values: {}, secretBindings: [bindingInput()] } })],
  updateConfiguration: [() => ({ input: { id: ids.cfg, expectedGeneration: 1, values: {}, secretBindings: [bindingInput()] } })],
  createAgent: [() => ({ input: { namespaceId: ids.ns, name: 'fresh', configurationId: ids.cfg, harnessAuth: harnessAuth(), selfConfigure: { enabled: true, allowedActions: ['skills'] } } })],
  deployAgent: [() => ({ input: { agentId: ids.agent } })],
  resumeSelfConfig: [() => ({ input: { agentId: ids.agent } })],
  approveSelfConfig: [() => ({ input: { requestId: 'scr_00000000-0000-4000-8000-000000000000' } })],
  rejectSelfConfig: [() => ({ input: { requestId: 'scr_00000000-0000-4000-8000-000000000000', reason: 'no' } })],
  selfConfigApprovals: [() => ({ after: ids.cursor, before: ids.cursor })],
  rollbackAgent: [() => ({ input: { agentId: ids.agent, toRevision: 'rev_00000000-0000-4000-8000-000000000000' } })],
  secretRollout: [() => ({ id: 'sro_00000000-0000-4000-8000-000000000000' })],
  approveSecretRollout: [() => ({ input: { rolloutId: 'sro_00000000-0000-4000-8000-000000000000' } })],
  pauseSecretRollout: [() => ({ input: { rolloutId: 'sro_00000000-0000-4000-8000-000000000000' } })],
  resumeSecretRollout: [() => ({ input: { rolloutId: 'sro_00000000-0000-4000-8000-000000000000' } })],
  abortSecretRollout: [() => ({ input: { rolloutId: 'sro_00000000-0000-4000-8000-000000000000' } })],
  setSecretRotationPolicy: [() => ({ input: { secretId: ids.secret, policy: { mode: 'MANUAL' } } })],
  setNamespaceSecretRotationPolicy: [() => ({ input: { namespaceId: ids.ns, policy: { mode: 'MANUAL' } } })],
  explainDeploy: [() => ({ agentId: ids.agent })],
  updateAgent: [() => ({ input: { id: ids.agent, configurationId: ids.cfg, harnessAuth: harnessAuth(), selfConfigure: { enabled: true, allowedActions: ['skills'] } } })],
  createRole: [() => ({ input: { namespaceId: ids.ns, name: 'fresh', permissions: [{ action: 'read', resourceKind: 'secret' }] } })],
  grantAccess: [() => ({ input: { subjectId: ids.user, roleId: 'rol_secret-operator', scope: scope() } })],
  revokeAccess: [() => ({ input: { bindingId: ids.binding } }), () => ({ input: { subjectId: ids.user, roleId: 'rol_namespace-viewer', scope: { kind: 'NAMESPACE', namespaceId: ids.ns } } })],
  createUser: [() => ({ input: { name: 'fresh' } })],
  disableUser: [() => ({ input: { id: ids.user } })],
  createApiKey: [() => ({ input: { principalId: ids.user } })],
  revokeApiKey: [() => ({ input: { id: ids.key } })],
  accessBindings: [() => ({ subjectId: ids.user, after: ids.cursor, before: ids.cursor })],
  accessBindingsForResource: [() => ({ resourceKind: 'secret', resourceId: ids.secret })],
  resourceAccessBindingsInNamespace: [() => ({ namespaceId: ids.ns, resourceKind: 'secret' })],
  agent: [() => ({ id: ids.agent })],
  apiKeys: [() => ({ principalId: ids.user })],
  configuration: [() => ({ id: ids.cfg })],
  explainAccess: [() => ({ subjectId: ids.user, action: 'read', resourceKind: 'secret', namespaceId: ids.ns, resourceId: ids.secret })],
  namespace: [() => ({ id: ids.ns })],
  namespaces: [() => ({ after: ids.cursor, before: ids.cursor, namePrefix: 'n' })],
  node: [() => ({ id: ids.secret })],
  roles: [() => ({ namespaceId: ids.ns })],
  secret: [() => ({ id: ids.secret })],
  users: [() => ({ after: ids.cursor, before: ids.cursor, namePrefix: 'n' })],
  search: [() => ({ text: 'n' })],
  auditEvents: [
    () => ({ after: ids.cursor, before: ids.cursor, filter: { actorId: ids.user, action: 'secret.create', resourceKind: 'secret', resourceId: ids.secret, namespaceId: ids.ns } }),
  ],
  selfConfigRequests: [() => ({ after: ids.cursor, before: ids.cursor, agentId: ids.agent, namespaceId: ids.ns, phase: 'Applied' })],
  requestSelfConfig: [
    () => ({
      input: {
        agentId: ids.agent,
        addSkills: ['fetch'],
        removeSkills: ['old'],
        configPatch: { channels: {} },
        addWorkspaceFiles: [{ path: 'notes.md', content: 'x' }],
        removeWorkspaceFiles: ['old.md'],
        addEnvVars: [{ name: 'MY_VAR', value: 'v' }],
        removeEnvVars: ['OLD_VAR'],
      },
    }),
  ],
};

interface Leaf {
  /** Schema coordinate, e.g. CreateSecretInput.name or Query.secret(id). */
  coordinate: string;
  path: Array<string | number>;
}

/** The String/ID leaves a baseline value reaches, walking the schema's input types alongside it. */
function leaves(type: GraphQLInputType, value: unknown, coordinate: string, path: Array<string | number>, out: Leaf[]): void {
  if (value === undefined || value === null) return;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    (value as unknown[]).forEach((v, i) => leaves(inner.ofType, v, coordinate, [...path, i], out));
    return;
  }
  if (isScalarType(inner)) {
    if (inner.name === 'String' || inner.name === 'ID') out.push({ coordinate, path });
    return;
  }
  if (isInputObjectType(inner)) {
    for (const [name, field] of Object.entries(inner.getFields())) {
      leaves(field.type, (value as Record<string, unknown>)[name], `${inner.name}.${name}`, [...path, name], out);
    }
  }
}

/** Every String/ID coordinate the schema's operations accept. */
function allStringCoordinates(): Set<string> {
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (type: GraphQLInputType, coordinate: string) => {
    const named = getNamedType(type);
    if (isScalarType(named)) {
      if (named.name === 'String' || named.name === 'ID') found.add(coordinate);
      return;
    }
    if (!isInputObjectType(named) || seen.has(named.name)) return;
    seen.add(named.name);
    for (const [name, field] of Object.entries(named.getFields())) visit(field.type, `${named.name}.${name}`);
  };
  for (const root of [schema.getQueryType()!, schema.getMutationType()!]) {
    for (const field of Object.values(root.getFields())) for (const arg of field.args) visit(arg.type, `${root.name}.${field.name}(${arg.name})`);
  }
  return found;
}

function documentFor(rootName: 'Query' | 'Mutation', fieldName: string): string {
  const field = (rootName === 'Query' ? schema.getQueryType()! : schema.getMutationType()!).getFields()[fieldName]!;
  const args = field.args as readonly GraphQLArgument[];
  const decl = args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const pass = args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const named = getNamedType(field.type);
  const selection = isScalarType(named) ? '' : `{ __typename ... on Error { code message } ... on ValidationError { field } }`;
  return `${rootName === 'Query' ? 'query' : 'mutation'}${decl ? `(${decl})` : ''} { r: ${fieldName}${pass ? `(${pass})` : ''} ${selection} }`;
}

function setAt(target: Record<string, unknown>, path: Array<string | number>, value: unknown): void {
  let node: Record<string | number, unknown> = target;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
}

function getAt(target: Record<string, unknown>, path: Array<string | number>): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], target);
}

async function rowCounts(): Promise<Record<string, number>> {
  const db = stack.runtime.db;
  return {
    namespace: await db.namespace.count(),
    secret: await db.secret.count(),
    configuration: await db.configuration.count(),
    binding: await db.configurationSecretBinding.count(),
    generation: await db.configurationGeneration.count(),
    agent: await db.agent.count(),
    principal: await db.principal.count(),
    apiKey: await db.apiKey.count(),
    accessBinding: await db.accessBinding.count(),
    role: await db.role.count(),
    audit: await db.auditEvent.count(),
    work: await db.workItem.count(),
  };
}

const HOSTILE: Array<[string, string]> = [
  ['NUL', '\u0000'],
  ['a lone high surrogate', '\ud800'],
  ['a lone low surrogate', '\udfff'],
];

describe('P4 unstorable text in every String and ID input', () => {
  it('P4 every String and ID argument and input field of the schema has a baseline in this matrix', () => {
    const covered = new Set<string>();
    for (const root of [schema.getQueryType()!, schema.getMutationType()!]) {
      for (const field of Object.values(root.getFields())) {
        for (const baseline of BASELINES[field.name] ?? []) {
          const args = baseline();
          for (const arg of field.args) {
            const out: Leaf[] = [];
            leaves(arg.type, args[arg.name], `${root.name}.${field.name}(${arg.name})`, [arg.name], out);
            out.forEach((l) => covered.add(l.coordinate));
          }
        }
      }
    }
    expect([...allStringCoordinates()].filter((c) => !covered.has(c)).sort()).toEqual([]);
  });

  for (const rootName of ['Mutation', 'Query'] as const) {
    const root = rootName === 'Query' ? schema.getQueryType()! : schema.getMutationType()!;
    for (const field of Object.values(root.getFields())) {
      const baselines = BASELINES[field.name];
      if (!baselines) continue;
      it(`P4 ${rootName}.${field.name}: NUL and lone surrogates in each String/ID field are a typed error, never internal, and write nothing`, async () => {
        const doc = documentFor(rootName, field.name);
        for (const baseline of baselines) {
          const out: Leaf[] = [];
          for (const arg of field.args) leaves(arg.type, baseline()[arg.name], `${field.name}(${arg.name})`, [arg.name], out);
          for (const leaf of out) {
            for (const [what, bad] of HOSTILE) {
              const variables = baseline();
              setAt(variables, leaf.path, `${String(getAt(variables, leaf.path))}${bad}`);
              const before = await rowCounts();
              const res = await stack.gql(doc, variables);
              const label = `${field.name} ${leaf.path.join('.')} with ${what}: ${JSON.stringify(res.body)}`;
              for (const error of res.body.errors ?? []) {
                expect(error.extensions?.code, label).toBeTruthy();
                expect(error.extensions?.code, label).not.toBe('INTERNAL_SERVER_ERROR');
              }
              const r = res.body.data?.r as { __typename?: string } | null | undefined;
              if (rootName === 'Mutation' && !res.body.errors) expect(r?.__typename, label).toMatch(/Error$/);
              expect(await rowCounts(), label).toEqual(before);
            }
          }
        }
      }, 60_000);
    }
  }
});

describe('P4 Configuration.values PostgreSQL cannot store, or too deep to walk', () => {
  // Deep values are written as JSON text: JSON.stringify itself recurses, and would overflow here.
  const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  const send = async (query: string, input: Record<string, unknown>, valuesJson: string) => {
    const body = JSON.stringify({ query, variables: { input: { ...input, values: '@VALUES@' } } }).replace('"@VALUES@"', valuesJson);
    const res = await stack.request('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.bootstrapKey}` }, body });
    return { status: res.status, body: (await res.json()) as GqlResult['body'] };
  };
  const CASES: Array<[string, string, string]> = [
    ['a NUL in a string', '{"a":"x\\u0000y"}', 'INVALID_UTF8'],
    ['a NUL in a key', '{"k\\u0000":1}', 'INVALID_UTF8'],
    ['a lone surrogate', '{"a":"\\ud800"}', 'INVALID_UTF8'],
    ['1,000 levels', deep(1000), 'VALUES_TOO_DEEP'],
    ['10,000 levels', deep(10_000), 'VALUES_TOO_DEEP'],
    ['100,000 levels', deep(100_000 - 1), 'VALUES_TOO_DEEP'],
    ['a literal credential under "key"', '{"key":"sk-1"}', 'LITERAL_CREDENTIAL'],
    ['a literal array under "credentials"', '{"credentials":["sk-1"]}', 'LITERAL_CREDENTIAL'],
    ['a literal object under "privateKey"', '{"privateKey":{"pem":"x"}}', 'LITERAL_CREDENTIAL'],
  ];

  for (const [what, values, code] of CASES) {
    it(`P4 C6 createConfiguration and updateConfiguration with ${what} answer ValidationError ${code} on values, writing nothing`, async () => {
      const before = await rowCounts();
      const created = payload(await send(CREATE_CONFIGURATION, { namespaceId: ids.ns, name: 'refused' }, values), 'createConfiguration');
      expect(created).toMatchObject({ __typename: 'ValidationError', code });
      expect(created.field).toMatch(/^values/);
      const updated = payload(await send(UPDATE_CONFIGURATION, { id: ids.cfg, expectedGeneration: 1 }, values), 'updateConfiguration');
      expect(updated).toMatchObject({ __typename: 'ValidationError', code });
      expect(await rowCounts()).toEqual(before);
      expect((await stack.runtime.db.configuration.findUniqueOrThrow({ where: { id: ids.cfg } })).generation).toBe(1);
    }, 60_000);
  }

  it('P4 JSON deeper than the scalar walks is refused before execution with a coded error that quotes nothing', async () => {
    const before = await rowCounts();
    const res = await send(CREATE_CONFIGURATION, { namespaceId: ids.ns, name: 'too-deep' }, `{"s":"sk-DEEP-c4n4ry","d":${deep(JSON_MAX_DEPTH + 10)}}`);
    expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(res.body).slice(0, 500)).toBe('JSON_TOO_DEEP');
    expect(JSON.stringify(res.body)).not.toContain('sk-DEEP-c4n4ry');
    expect(await rowCounts()).toEqual(before);
  }, 60_000);

  it('P4 an inline JSON literal is parsed without recursion and validated like a variable', async () => {
    let literal = '1';
    for (let i = 0; i < 200; i++) literal = `{a: ${literal}}`;
    const doc = `mutation { createConfiguration(input: {namespaceId: "${ids.ns}", name: "inline", values: {deep: ${literal}}}) { __typename ... on ValidationError { code field } } }`;
    const res = await stack.gql(doc);
    for (const error of res.body.errors ?? []) expect(error.extensions?.code).not.toBe('INTERNAL_SERVER_ERROR');
    if (!res.body.errors) expect(res.body.data?.createConfiguration).toMatchObject({ __typename: 'ValidationError', code: 'VALUES_TOO_DEEP' });
    const ok = await stack.gql(`mutation { createConfiguration(input: {namespaceId: "${ids.ns}", name: "inline-ok", values: {b: [1, {c: "d"}], a: null}}) { __typename ... on CreateConfigurationSuccess { configuration { values } } } }`);
    expect(payload(ok, 'createConfiguration').configuration.values).toEqual({ b: [1, { c: 'd' }], a: null });
  }, 60_000);
});
