import { randomUUID } from 'node:crypto';
import { getNamedType, isInputObjectType, type GraphQLInputType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../graphql/schema/index.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { CREATE_CONFIGURATION, createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// P6: no existence oracle. As a viewer of one namespace, every query and mutation that takes an
// id answers a real id the caller cannot read exactly as a made-up one: same code, same message
// (ids aside), same null. Denials stay audited.

let stack: TestStack;
let viewerKey: string;
let viewerId: string;
const real = {} as Record<'ns' | 'mine' | 'secret' | 'cfg' | 'agent' | 'user' | 'boot' | 'bootKey' | 'binding' | 'role' | 'request' | 'rollout', string>;
const madeUp = (prefix: string) => `${prefix}_${randomUUID()}`;

beforeAll(async () => {
  stack = await startTestStack();
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  const mine = await createReadyNamespace(stack, 'oracle-mine');
  real.ns = await createReadyNamespace(stack, 'oracle-theirs');
  real.mine = mine;
  real.secret = (await createSecretOk(stack, real.ns, 'theirs', 'v')).id;
  real.cfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: real.ns, name: 'theirs', values: {} } }), 'createConfiguration').configuration.id;
  real.agent = payload(await stack.gql(`mutation($i: CreateAgentInput!) { createAgent(input: $i) { ... on CreateAgentSuccess { agent { id } } } }`, { i: { namespaceId: real.ns, name: 'theirs' } }), 'createAgent').agent.id;
  const viewer = await createHumanPrincipal(stack.runtime.db, 'oracle-viewer', boot);
  viewerKey = viewer.apiKey;
  viewerId = viewer.principalId;
  await grantBuiltInRole(stack.runtime.db, viewerId, 'namespace-viewer', { kind: 'namespace', namespaceId: mine }, boot);
  const other = await createHumanPrincipal(stack.runtime.db, 'oracle-other', boot);
  real.user = other.principalId;
  real.boot = boot;
  real.bootKey = (await stack.runtime.db.apiKey.findFirstOrThrow({ where: { principalId: boot } })).id;
  // An admin's binding in the viewer's own namespace: the viewer may not see others' bindings.
  const admin = await createHumanPrincipal(stack.runtime.db, 'oracle-admin', boot);
  real.binding = await grantBuiltInRole(stack.runtime.db, admin.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: mine }, boot);
  // SG3: a request of their agent, waiting for approval.
  real.request = (
    await stack.runtime.db.selfConfigRequest.create({
      data: { id: madeUp('scr'), uid: randomUUID(), k8sNamespace: 'occ-theirs', name: 'waiting', instanceRef: 'agent-x', namespaceId: real.ns, agentId: real.agent, phase: 'AwaitingApproval' },
    })
  ).id;
  // V4: a rollout of their secret, waiting for approval.
  real.rollout = (
    await stack.runtime.db.secretRollout.create({
      data: { id: madeUp('sro'), secretId: real.secret, namespaceId: real.ns, state: 'AWAITING_APPROVAL', policy: { mode: 'AUTOMATIC', approval: 'ANY_ADMINISTRATOR' }, targetVersion: 1, rotatedById: boot },
    })
  ).id;
  real.role = (await stack.runtime.db.role.create({ data: { id: madeUp('rol'), name: 'theirs-role', namespaceId: real.ns, builtIn: false, permissions: [{ action: 'read', resourceKind: 'secret' }] } })).id;
}, 90_000);
afterAll(() => stack?.close());

const ERR = `__typename ... on Error { code message }`;

interface Case {
  /** Query.field or Mutation.field */
  coordinate: string;
  doc: string;
  /** The variables for an id: the real one the viewer cannot read, or a made-up one. */
  vars: (id: string) => Record<string, unknown>;
  real: () => string;
  prefix: string;
  /** The one answer both must give. */
  expect: 'NotFoundError' | 'ForbiddenError' | 'null' | 'empty' | 'emptyConnection' | 'builtInOnly';
}

const m = (field: string, input: string) => `mutation($input: ${input}!) { r: ${field}(input: $input) { ${ERR} } }`;

const CASES: Case[] = [
  { coordinate: 'Query.namespace', doc: 'query($id: ID!) { r: namespace(id: $id) { id } }', vars: (id) => ({ id }), real: () => real.ns, prefix: 'ns', expect: 'null' },
  { coordinate: 'Query.secret', doc: 'query($id: ID!) { r: secret(id: $id) { id } }', vars: (id) => ({ id }), real: () => real.secret, prefix: 'sec', expect: 'null' },
  { coordinate: 'Query.configuration', doc: 'query($id: ID!) { r: configuration(id: $id) { id } }', vars: (id) => ({ id }), real: () => real.cfg, prefix: 'cfg', expect: 'null' },
  { coordinate: 'Query.configuration', doc: 'query($id: ID!) { r: configuration(id: $id) { generations(first: 5) { totalCount edges { node { generation values } } } } }', vars: (id) => ({ id }), real: () => real.cfg, prefix: 'cfg', expect: 'null' },
  { coordinate: 'Query.node', doc: 'query($id: ID!) { r: node(id: $id) { ... on Configuration { generations { totalCount } } } }', vars: (id) => ({ id }), real: () => real.cfg, prefix: 'cfg', expect: 'null' },
  { coordinate: 'Query.agent', doc: 'query($id: ID!) { r: agent(id: $id) { id } }', vars: (id) => ({ id }), real: () => real.agent, prefix: 'agt', expect: 'null' },
  { coordinate: 'Query.node', doc: 'query($id: ID!) { r: node(id: $id) { id } }', vars: (id) => ({ id }), real: () => real.secret, prefix: 'sec', expect: 'null' },
  { coordinate: 'Query.accessBindings', doc: 'query($id: ID!) { r: accessBindings(subjectId: $id) { totalCount edges { node { id } } } }', vars: (id) => ({ id }), real: () => real.boot, prefix: 'spn', expect: 'emptyConnection' },
  { coordinate: 'Query.accessBindingsForResource', doc: 'query($id: ID!) { r: accessBindingsForResource(resourceKind: "namespace", resourceId: $id) { id } }', vars: (id) => ({ id }), real: () => real.ns, prefix: 'ns', expect: 'empty' },
  { coordinate: 'Query.resourceAccessBindingsInNamespace', doc: 'query($id: ID!) { r: resourceAccessBindingsInNamespace(namespaceId: $id, resourceKind: "secret") { id } }', vars: (id) => ({ id }), real: () => real.ns, prefix: 'ns', expect: 'empty' },
  { coordinate: 'Query.apiKeys', doc: 'query($id: ID!) { r: apiKeys(principalId: $id) { id } }', vars: (id) => ({ id }), real: () => real.boot, prefix: 'spn', expect: 'empty' },
  { coordinate: 'Query.roles', doc: 'query($id: ID) { r: roles(namespaceId: $id) { id } }', vars: (id) => ({ id }), real: () => real.ns, prefix: 'ns', expect: 'builtInOnly' },
  { coordinate: 'Query.auditEvents', doc: 'query($id: ID) { r: auditEvents(filter: {namespaceId: $id}) { totalCount edges { node { id } } } }', vars: (id) => ({ id }), real: () => real.ns, prefix: 'ns', expect: 'emptyConnection' },
  { coordinate: 'Query.auditEvents', doc: 'query($id: ID) { r: auditEvents(filter: {resourceId: $id}) { totalCount edges { node { id } } } }', vars: (id) => ({ id }), real: () => real.secret, prefix: 'sec', expect: 'emptyConnection' },
  { coordinate: 'Query.explainAccess', doc: `query($id: ID) { r: explainAccess(subjectId: "${'SELF'}", action: "read", resourceKind: "namespace", resourceId: $id) { ${ERR} } }`, vars: (id) => ({ id }), real: () => real.ns, prefix: 'ns', expect: 'NotFoundError' },
  { coordinate: 'Query.explainAccess', doc: `query($id: ID) { r: explainAccess(subjectId: "${'SELF'}", action: "read", resourceKind: "secret", namespaceId: $id) { ${ERR} } }`, vars: (id) => ({ id }), real: () => real.ns, prefix: 'ns', expect: 'NotFoundError' },
  { coordinate: 'Query.explainAccess', doc: `query($id: ID) { r: explainAccess(subjectId: "${'SELF'}", action: "read", resourceKind: "secret", resourceId: $id) { ${ERR} } }`, vars: (id) => ({ id }), real: () => real.secret, prefix: 'sec', expect: 'NotFoundError' },
  { coordinate: 'Mutation.updateSecret', doc: m('updateSecret', 'UpdateSecretInput'), vars: (id) => ({ input: { id, value: 'x' } }), real: () => real.secret, prefix: 'sec', expect: 'NotFoundError' },
  { coordinate: 'Mutation.deleteSecret', doc: m('deleteSecret', 'DeleteSecretInput'), vars: (id) => ({ input: { id } }), real: () => real.secret, prefix: 'sec', expect: 'NotFoundError' },
  { coordinate: 'Mutation.createSecret', doc: m('createSecret', 'CreateSecretInput'), vars: (id) => ({ input: { namespaceId: id, name: 'n', value: 'x' } }), real: () => real.ns, prefix: 'ns', expect: 'NotFoundError' },
  { coordinate: 'Mutation.createConfiguration', doc: m('createConfiguration', 'CreateConfigurationInput'), vars: (id) => ({ input: { namespaceId: id, name: 'n', values: {} } }), real: () => real.ns, prefix: 'ns', expect: 'NotFoundError' },
  { coordinate: 'Mutation.updateConfiguration', doc: m('updateConfiguration', 'UpdateConfigurationInput'), vars: (id) => ({ input: { id, expectedGeneration: 1 } }), real: () => real.cfg, prefix: 'cfg', expect: 'NotFoundError' },
  { coordinate: 'Mutation.createAgent', doc: m('createAgent', 'CreateAgentInput'), vars: (id) => ({ input: { namespaceId: id, name: 'n' } }), real: () => real.ns, prefix: 'ns', expect: 'NotFoundError' },
  { coordinate: 'Mutation.deleteConfiguration', doc: m('deleteConfiguration', 'DeleteConfigurationInput'), vars: (id) => ({ input: { id } }), real: () => real.cfg, prefix: 'cfg', expect: 'NotFoundError' },
  { coordinate: 'Mutation.deleteAgent', doc: m('deleteAgent', 'DeleteAgentInput'), vars: (id) => ({ input: { id } }), real: () => real.agent, prefix: 'agt', expect: 'NotFoundError' },
  { coordinate: 'Mutation.reprovisionNamespace', doc: m('reprovisionNamespace', 'ReprovisionNamespaceInput'), vars: (id) => ({ input: { id } }), real: () => real.ns, prefix: 'ns', expect: 'NotFoundError' },
  { coordinate: 'Mutation.stopAgent', doc: m('stopAgent', 'StopAgentInput'), vars: (id) => ({ input: { agentId: id } }), real: () => real.agent, prefix: 'agt', expect: 'NotFoundError' },
  { coordinate: 'Mutation.redeployConsumers', doc: m('redeployConsumers', 'RedeployConsumersInput'), vars: (id) => ({ input: { secretId: id } }), real: () => real.secret, prefix: 'sec', expect: 'NotFoundError' },
  { coordinate: 'Mutation.updateAgent', doc: m('updateAgent', 'UpdateAgentInput'), vars: (id) => ({ input: { id } }), real: () => real.agent, prefix: 'agt', expect: 'NotFoundError' },
  { coordinate: 'Mutation.deployAgent', doc: m('deployAgent', 'DeployAgentInput'), vars: (id) => ({ input: { agentId: id } }), real: () => real.agent, prefix: 'agt', expect: 'NotFoundError' },
  {
    coordinate: 'Query.explainDeploy',
    doc: `query($id: ID!) { r: explainDeploy(agentId: $id) { ${ERR} } }`,
    vars: (id) => ({ id }),
    real: () => real.agent,
    prefix: 'agt',
    expect: 'NotFoundError',
  },
  { coordinate: 'Mutation.createRole', doc: m('createRole', 'CreateRoleInput'), vars: (id) => ({ input: { namespaceId: id, name: 'n', permissions: [{ action: 'read', resourceKind: 'secret' }] } }), real: () => real.ns, prefix: 'ns', expect: 'NotFoundError' },
  { coordinate: 'Mutation.grantAccess', doc: m('grantAccess', 'GrantAccessInput'), vars: (id) => ({ input: { subjectId: 'SELF', roleId: 'rol_namespace-viewer', scope: { kind: 'NAMESPACE', namespaceId: id } } }), real: () => real.ns, prefix: 'ns', expect: 'NotFoundError' },
  { coordinate: 'Mutation.grantAccess', doc: m('grantAccess', 'GrantAccessInput'), vars: (id) => ({ input: { subjectId: 'SELF', roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: id } } }), real: () => real.secret, prefix: 'sec', expect: 'NotFoundError' },
  { coordinate: 'Mutation.revokeAccess', doc: m('revokeAccess', 'RevokeAccessInput'), vars: (id) => ({ input: { bindingId: id } }), real: () => real.binding, prefix: 'bnd', expect: 'NotFoundError' },
  { coordinate: 'Mutation.revokeAccess', doc: m('revokeAccess', 'RevokeAccessInput'), vars: (id) => ({ input: { subjectId: 'SELF', roleId: 'rol_namespace-viewer', scope: { kind: 'NAMESPACE', namespaceId: id } } }), real: () => real.ns, prefix: 'ns', expect: 'NotFoundError' },
  { coordinate: 'Mutation.revokeApiKey', doc: m('revokeApiKey', 'RevokeApiKeyInput'), vars: (id) => ({ input: { id } }), real: () => real.bootKey, prefix: 'key', expect: 'NotFoundError' },
  { coordinate: 'Mutation.createApiKey', doc: m('createApiKey', 'CreateApiKeyInput'), vars: (id) => ({ input: { principalId: id } }), real: () => real.boot, prefix: 'spn', expect: 'NotFoundError' },
  { coordinate: 'Query.selfConfigRequests', doc: 'query($id: ID) { r: selfConfigRequests(agentId: $id) { totalCount edges { node { id } } } }', vars: (id) => ({ id }), real: () => real.agent, prefix: 'agt', expect: 'emptyConnection' },
  { coordinate: 'Query.selfConfigRequests', doc: 'query($id: ID) { r: selfConfigRequests(namespaceId: $id) { totalCount edges { node { id } } } }', vars: (id) => ({ id }), real: () => real.ns, prefix: 'ns', expect: 'emptyConnection' },
  { coordinate: 'Mutation.requestSelfConfig', doc: m('requestSelfConfig', 'RequestSelfConfigInput'), vars: (id) => ({ input: { agentId: id, addSkills: ['x'] } }), real: () => real.agent, prefix: 'agt', expect: 'NotFoundError' },
  // V7: a rollback names the agent and one of its revisions; a real agent the viewer cannot read answers as a made-up one.
  { coordinate: 'Mutation.rollbackAgent', doc: m('rollbackAgent', 'RollbackAgentInput'), vars: (id) => ({ input: { agentId: id, toRevision: 'rev_00000000-0000-4000-8000-000000000000' } }), real: () => real.agent, prefix: 'agt', expect: 'NotFoundError' },
  { coordinate: 'Mutation.resumeSelfConfig', doc: m('resumeSelfConfig', 'ResumeSelfConfigInput'), vars: (id) => ({ input: { agentId: id } }), real: () => real.agent, prefix: 'agt', expect: 'NotFoundError' },
  { coordinate: 'Mutation.approveSelfConfig', doc: m('approveSelfConfig', 'ApproveSelfConfigInput'), vars: (id) => ({ input: { requestId: id } }), real: () => real.request, prefix: 'scr', expect: 'NotFoundError' },
  { coordinate: 'Mutation.rejectSelfConfig', doc: m('rejectSelfConfig', 'RejectSelfConfigInput'), vars: (id) => ({ input: { requestId: id, reason: 'no' } }), real: () => real.request, prefix: 'scr', expect: 'NotFoundError' },
  { coordinate: 'Query.previewSelfConfig', doc: `query($input: RequestSelfConfigInput!) { r: previewSelfConfig(input: $input) { ${ERR} } }`, vars: (id) => ({ input: { agentId: id, addSkills: ['x'] } }), real: () => real.agent, prefix: 'agt', expect: 'NotFoundError' },
  // V4: a rollout, its secret's policy and its namespace's default answer a real id the viewer cannot read as a made-up one.
  { coordinate: 'Query.secretRollout', doc: 'query($id: ID!) { r: secretRollout(id: $id) { id } }', vars: (id) => ({ id }), real: () => real.rollout, prefix: 'sro', expect: 'null' },
  ...(['approveSecretRollout', 'pauseSecretRollout', 'resumeSecretRollout', 'abortSecretRollout'] as const).map((field) => ({
    coordinate: `Mutation.${field}`,
    doc: m(field, 'SecretRolloutDecisionInput'),
    vars: (id: string) => ({ input: { rolloutId: id } }),
    real: () => real.rollout,
    prefix: 'sro',
    expect: 'NotFoundError' as const,
  })),
  { coordinate: 'Mutation.setSecretRotationPolicy', doc: m('setSecretRotationPolicy', 'SetSecretRotationPolicyInput'), vars: (id) => ({ input: { secretId: id, policy: { mode: 'AUTOMATIC' } } }), real: () => real.secret, prefix: 'sec', expect: 'NotFoundError' },
  { coordinate: 'Mutation.setNamespaceSecretRotationPolicy', doc: m('setNamespaceSecretRotationPolicy', 'SetNamespaceSecretRotationPolicyInput'), vars: (id) => ({ input: { namespaceId: id, policy: null } }), real: () => real.ns, prefix: 'ns', expect: 'NotFoundError' },
  { coordinate: 'Mutation.disableUser', doc: m('disableUser', 'DisableUserInput'), vars: (id) => ({ input: { id } }), real: () => real.user, prefix: 'prn', expect: 'NotFoundError' },
];

/** Queries and mutations with an ID anywhere in their arguments. */
function idTakingFields(): string[] {
  const hasId = (type: GraphQLInputType, seen = new Set<string>()): boolean => {
    const named = getNamedType(type);
    if (named.name === 'ID') return true;
    if (!isInputObjectType(named) || seen.has(named.name)) return false;
    seen.add(named.name);
    return Object.values(named.getFields()).some((f) => hasId(f.type, seen));
  };
  const out: string[] = [];
  for (const root of [schema.getQueryType()!, schema.getMutationType()!]) {
    for (const field of Object.values(root.getFields())) if (field.args.some((a) => hasId(a.type))) out.push(`${root.name}.${field.name}`);
  }
  return out.sort();
}

function withSelf(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll('SELF', viewerId));
}

describe('P6 existence oracles, as a namespace viewer', () => {
  it('P6 every query and mutation that takes an id is in the matrix', () => {
    expect(idTakingFields().filter((f) => !CASES.some((c) => c.coordinate === f))).toEqual([]);
  });

  CASES.forEach((c, i) => {
    it(`P6 ${c.coordinate} #${i}: a real id the viewer cannot read answers exactly as a made-up one (${c.expect})`, async () => {
      const realId = c.real();
      const fake = madeUp(c.prefix);
      const doc = c.doc.replaceAll('SELF', viewerId);
      const audits = await stack.runtime.db.auditEvent.count({ where: { actorId: viewerId, outcome: 'DENIED' } });
      const a = await stack.gql(doc, withSelf(c.vars(realId)) as Record<string, unknown>, { key: viewerKey });
      const b = await stack.gql(doc, withSelf(c.vars(fake)) as Record<string, unknown>, { key: viewerKey });
      const shape = (body: unknown, id: string) => JSON.stringify(body).replaceAll(id, '<id>');
      expect(shape(a.body, realId), `real ${realId} vs made-up`).toBe(shape(b.body, fake));
      expect(a.body.errors).toBeUndefined();
      const r = a.body.data?.r;
      if (c.expect === 'null') expect(r).toBeNull();
      else if (c.expect === 'empty') expect(r).toEqual([]);
      else if (c.expect === 'emptyConnection') expect(r).toEqual({ totalCount: 0, edges: [] });
      else if (c.expect === 'builtInOnly') expect(r.every((role: { id: string }) => role.id !== real.role)).toBe(true);
      else expect(r).toMatchObject({ __typename: c.expect });
      // A hidden target is still a denial, and denials are audited.
      if (c.expect === 'NotFoundError' && c.coordinate.startsWith('Mutation.')) {
        expect(await stack.runtime.db.auditEvent.count({ where: { actorId: viewerId, outcome: 'DENIED' } })).toBeGreaterThan(audits);
      }
    });
  });
});
