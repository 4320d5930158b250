import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInRole } from '@occ/domain/access';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createReadyNamespace, createSecretOk, DELETE_SECRET, payload, SECRET } from '../test/operations.ts';
import { newId } from '../ids.ts';
import { check, decider } from './access.ts';
import { canSeeBinding } from './access-queries.ts';
import { findBindings } from './access-scope.ts';
import type { Actor } from './deps.ts';
import { authenticateApiKey } from './authenticate.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// Rules A2 and A3 through GraphQL: roles, grants, revokes, reads of bindings, and explainAccess.

const BINDING = `id subject { id } role { id name } scope { kind namespaceId resourceKind resourceId }`;

const GRANT = `mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename
  ... on GrantAccessSuccess { created binding { ${BINDING} } } ... on Error { code message } ... on ValidationError { field } } }`;

const REVOKE = `mutation($input: RevokeAccessInput!) { revokeAccess(input: $input) { __typename
  ... on RevokeAccessSuccess { changed revokedBindingIds } ... on Error { code message } ... on ValidationError { field } } }`;

const CREATE_ROLE = `mutation($input: CreateRoleInput!) { createRole(input: $input) { __typename
  ... on CreateRoleSuccess { role { id name builtIn namespaceId permissions { action resourceKind } } } ... on Error { code message } ... on ValidationError { field } } }`;

const ROLES = `query($namespaceId: ID) { roles(namespaceId: $namespaceId) { id name builtIn namespaceId } }`;

const BINDINGS = `query($subjectId: ID!, $first: Int, $after: String) { accessBindings(subjectId: $subjectId, first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { node { ${BINDING} } } } }`;
const BINDINGS_FOR_RESOURCE = `query($kind: String!, $id: ID!) { accessBindingsForResource(resourceKind: $kind, resourceId: $id) { ${BINDING} } }`;

const EXPLAIN = `query($subjectId: ID!, $action: String!, $resourceKind: String!, $namespaceId: ID, $resourceId: ID) {
  explainAccess(subjectId: $subjectId, action: $action, resourceKind: $resourceKind, namespaceId: $namespaceId, resourceId: $resourceId) { __typename
  ... on AccessDecision { allowed summary hiddenEvidenceCount evidence { roleName binding { ${BINDING} } } } ... on Error { code message } } }`;

let stack: TestStack;
let nsId: string;
let otherNsId: string;

beforeAll(async () => {
  stack = await startTestStack();
  nsId = await createReadyNamespace(stack, 'team-access');
  otherNsId = await createReadyNamespace(stack, 'team-access-other');
});
afterAll(() => stack?.close());

const db = () => stack.runtime.db;
const user = (name: string) => createHumanPrincipal(db(), name, 'test');
const role = (name: string) => builtInRole(name).id;
const grant = async (input: Record<string, unknown>, key?: string) => payload(await stack.gql(GRANT, { input }, { key }), 'grantAccess');
const revoke = async (input: Record<string, unknown>, key?: string) => payload(await stack.gql(REVOKE, { input }, { key }), 'revokeAccess');
const explain = async (vars: Record<string, unknown>, key?: string) => payload(await stack.gql(EXPLAIN, vars, { key }), 'explainAccess');
const auditCount = (where: Record<string, unknown>) => db().auditEvent.count({ where });
const secretRead = async (id: string, key: string) => payload(await stack.gql(SECRET, { id }, { key }), 'secret');

describe('grantAccess', () => {
  it('A2 grants at namespace scope, audits it in the same change, and is idempotent', async () => {
    const alice = await user('alice');
    const input = { subjectId: alice.principalId, roleId: role('namespace-viewer'), scope: { kind: 'NAMESPACE', namespaceId: nsId } };
    const first = await grant(input);
    expect(first).toMatchObject({ __typename: 'GrantAccessSuccess', created: true, binding: { subject: { id: alice.principalId }, role: { name: 'namespace-viewer' }, scope: { kind: 'NAMESPACE', namespaceId: nsId, resourceKind: null, resourceId: null } } });
    const bindingId = first.binding.id;
    expect(await auditCount({ action: 'accessBinding.create', resourceId: bindingId, outcome: 'SUCCESS' })).toBe(1);

    const again = await grant(input);
    expect(again).toMatchObject({ __typename: 'GrantAccessSuccess', created: false, binding: { id: bindingId } });
    expect(await db().accessBinding.count({ where: { subjectId: alice.principalId } })).toBe(1);
    expect(await auditCount({ action: 'accessBinding.create', actorId: stack.runtime.installation.bootstrapPrincipalId, details: { path: ['subjectId'], equals: alice.principalId } })).toBe(1);
    // The grant works: alice now reads the namespace's secrets.
    const secret = await createSecretOk(stack, nsId, 'alice-can-read', 'v');
    expect(await secretRead(secret.id, alice.apiKey)).toMatchObject({ id: secret.id });
  });

  it('A2 concurrent identical grants create one binding and one audit row', async () => {
    const carol = await user('carol');
    const input = { subjectId: carol.principalId, roleId: role('namespace-editor'), scope: { kind: 'NAMESPACE', namespaceId: nsId } };
    const results = await Promise.all([grant(input), grant(input), grant(input)]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.binding.id)).size).toBe(1);
    expect(await db().accessBinding.count({ where: { subjectId: carol.principalId } })).toBe(1);
    expect(await auditCount({ action: 'accessBinding.create', details: { path: ['subjectId'], equals: carol.principalId } })).toBe(1);
  });

  it('A2 grants at installation scope', async () => {
    const ian = await user('ian');
    const result = await grant({ subjectId: ian.principalId, roleId: role('namespace-viewer'), scope: { kind: 'INSTALLATION' } });
    expect(result).toMatchObject({ created: true, binding: { scope: { kind: 'INSTALLATION', namespaceId: null } } });
    // Installation scope covers every namespace.
    const secret = await createSecretOk(stack, otherNsId, 'ian-reads', 'v');
    expect(await secretRead(secret.id, ian.apiKey)).toMatchObject({ id: secret.id });
  });

  it('A2 grants on one exact resource, whose namespace comes from the resource', async () => {
    const rita = await user('rita');
    const secret = await createSecretOk(stack, nsId, 'rita-one', 'v');
    const other = await createSecretOk(stack, nsId, 'rita-not', 'v');
    const result = await grant({ subjectId: rita.principalId, roleId: role('namespace-viewer'), scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } });
    expect(result).toMatchObject({ created: true, binding: { scope: { kind: 'RESOURCE', namespaceId: nsId, resourceKind: 'secret', resourceId: secret.id } } });
    expect(await secretRead(secret.id, rita.apiKey)).toMatchObject({ id: secret.id });
    expect(await secretRead(other.id, rita.apiKey)).toBeNull();
    const ns = await grant({ subjectId: rita.principalId, roleId: role('namespace-viewer'), scope: { kind: 'RESOURCE', resourceKind: 'namespace', resourceId: otherNsId } });
    expect(ns).toMatchObject({ created: true, binding: { scope: { kind: 'RESOURCE', namespaceId: otherNsId, resourceKind: 'namespace', resourceId: otherNsId } } });
  });

  it('A2 a service principal can be the subject, like a human', async () => {
    const spn = newId('servicePrincipal');
    await db().principal.create({ data: { id: spn, kind: 'SERVICE', name: 'robot' } });
    const secret = await createSecretOk(stack, nsId, 'robot-operates', 'v');
    const result = await grant({ subjectId: spn, roleId: role('secret-operator'), scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } });
    expect(result).toMatchObject({ created: true, binding: { subject: { id: spn } } });
    expect(await explain({ subjectId: spn, action: 'operate', resourceKind: 'secret', resourceId: secret.id })).toMatchObject({ allowed: true });
  });

  it('A2 a grant racing the deletion of its secret never leaves a binding on a deleted secret', async () => {
    const nora = await user('nora');
    for (let i = 0; i < 5; i++) {
      const secret = await createSecretOk(stack, nsId, `race-${i}`, 'v');
      const [granted, deleted] = await Promise.all([
        grant({ subjectId: nora.principalId, roleId: role('secret-operator'), scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } }),
        stack.gql(DELETE_SECRET, { input: { id: secret.id } }).then((r) => payload(r, 'deleteSecret')),
      ]);
      expect(deleted.__typename).toBe('DeleteSecretSuccess');
      expect(['GrantAccessSuccess', 'NotFoundError']).toContain(granted.__typename);
      expect(await db().accessBinding.count({ where: { resourceId: secret.id } })).toBe(0);
    }
  });

  it('A2 a missing subject, role, namespace or resource is NOT_FOUND and writes nothing', async () => {
    const someone = await user('someone');
    const ok = { subjectId: someone.principalId, roleId: role('namespace-viewer'), scope: { kind: 'NAMESPACE', namespaceId: nsId } };
    const before = { bindings: await db().accessBinding.count(), audits: await auditCount({ action: 'accessBinding.create' }) };
    const cases: Array<Record<string, unknown>> = [
      { ...ok, subjectId: newId('humanPrincipal') },
      { ...ok, subjectId: 'not-an-id' },
      { ...ok, roleId: newId('role') },
      { ...ok, scope: { kind: 'NAMESPACE', namespaceId: newId('namespace') } },
      { ...ok, scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: newId('secret') } },
      { ...ok, scope: { kind: 'RESOURCE', resourceKind: 'namespace', resourceId: newId('namespace') } },
    ];
    for (const input of cases) {
      expect(await grant(input), JSON.stringify(input)).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    }
    expect(await db().accessBinding.count()).toBe(before.bindings);
    expect(await auditCount({ action: 'accessBinding.create' })).toBe(before.audits);
  });

  it('A2 a scope of the wrong shape or an unsupported kind is a ValidationError', async () => {
    const vic = await user('vic');
    const base = { subjectId: vic.principalId, roleId: role('namespace-viewer') };
    expect(await grant({ ...base, scope: { kind: 'INSTALLATION', namespaceId: nsId } })).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_SCOPE' });
    expect(await grant({ ...base, scope: { kind: 'NAMESPACE' } })).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_SCOPE' });
    expect(await grant({ ...base, scope: { kind: 'RESOURCE', resourceKind: 'secret' } })).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_SCOPE' });
    expect(await grant({ ...base, scope: { kind: 'RESOURCE', resourceKind: 'widget', resourceId: 'x' } })).toMatchObject({ __typename: 'ValidationError', code: 'UNKNOWN_RESOURCE_KIND' });
    expect(await grant({ ...base, scope: { kind: 'RESOURCE', resourceKind: 'auditEvent', resourceId: 'aud_x' } })).toMatchObject({ __typename: 'ValidationError', code: 'UNSUPPORTED_RESOURCE_KIND' });
    expect(await db().accessBinding.count({ where: { subjectId: vic.principalId } })).toBe(0);
  });

  it('A2 A3 a namespace viewer cannot grant: a bare FORBIDDEN, and the denial is audited', async () => {
    const viewer = await user('viewer');
    await grantBuiltInRole(db(), viewer.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: nsId }, 'test');
    const target = await user('target');
    const result = await grant({ subjectId: target.principalId, roleId: role('namespace-admin'), scope: { kind: 'NAMESPACE', namespaceId: nsId } }, viewer.apiKey);
    expect(result).toEqual({ __typename: 'ForbiddenError', code: 'FORBIDDEN', message: 'You are not allowed to do this.' });
    expect(await db().accessBinding.count({ where: { subjectId: target.principalId } })).toBe(0);
    const denial = await db().auditEvent.findFirst({ where: { actorId: viewer.principalId, outcome: 'DENIED' } });
    expect(denial).toMatchObject({ action: 'accessBinding.administer', namespaceId: nsId });
    // Granting themselves installation scope is equally refused.
    const self = await grant({ subjectId: viewer.principalId, roleId: role('installation-admin'), scope: { kind: 'INSTALLATION' } }, viewer.apiKey);
    expect(self).toEqual({ __typename: 'ForbiddenError', code: 'FORBIDDEN', message: 'You are not allowed to do this.' });
    expect(await auditCount({ actorId: viewer.principalId, outcome: 'DENIED', action: 'installation.administer' })).toBe(1);
  });

  it('A2 a namespace admin grants in its namespace; another namespace is NOT_FOUND to it', async () => {
    const admin = await user('ns-admin');
    await grantBuiltInRole(db(), admin.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: nsId }, 'test');
    const bob = await user('bob');
    expect(await grant({ subjectId: bob.principalId, roleId: role('namespace-viewer'), scope: { kind: 'NAMESPACE', namespaceId: nsId } }, admin.apiKey)).toMatchObject({ created: true });
    expect(await grant({ subjectId: bob.principalId, roleId: role('namespace-viewer'), scope: { kind: 'NAMESPACE', namespaceId: otherNsId } }, admin.apiKey)).toMatchObject({ __typename: 'NotFoundError' });
    expect(await grant({ subjectId: bob.principalId, roleId: role('namespace-viewer'), scope: { kind: 'INSTALLATION' } }, admin.apiKey)).toMatchObject({ __typename: 'ForbiddenError' });
    expect(await db().accessBinding.count({ where: { subjectId: bob.principalId } })).toBe(1);
  });

  it('A2 resource scope needs administer on that resource: operate on it is not enough', async () => {
    const secret = await createSecretOk(stack, nsId, 'resource-admin', 'v');
    const operator = await user('res-operator');
    await grantBuiltInRole(db(), operator.principalId, 'secret-operator', { kind: 'resource', resourceKind: 'secret', resourceId: secret.id, namespaceId: nsId }, 'test');
    const dave = await user('dave');
    const input = { subjectId: dave.principalId, roleId: role('secret-operator'), scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } };
    // operate does not imply read: the secret is invisible to the operator, so NOT_FOUND.
    expect(await grant(input, operator.apiKey)).toMatchObject({ __typename: 'NotFoundError' });
    expect(await auditCount({ actorId: operator.principalId, outcome: 'DENIED', action: 'secret.read', resourceId: secret.id })).toBe(1);
    const resAdmin = await user('res-admin');
    const custom = await payload(await stack.gql(CREATE_ROLE, { input: { namespaceId: nsId, name: 'secret-steward', permissions: [{ action: 'administer', resourceKind: 'secret' }] } }), 'createRole');
    await grant({ subjectId: resAdmin.principalId, roleId: custom.role.id, scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } });
    expect(await grant(input, resAdmin.apiKey)).toMatchObject({ __typename: 'GrantAccessSuccess', created: true });
  });
});

describe('custom roles', () => {
  it('A2 createRole validates, is unique per namespace, and binds only inside its namespace', async () => {
    const create = async (input: Record<string, unknown>, key?: string) => payload(await stack.gql(CREATE_ROLE, { input }, { key }), 'createRole');
    const perms = [{ action: 'read', resourceKind: 'secret' }, { action: 'read', resourceKind: 'secret' }];
    const made = await create({ namespaceId: nsId, name: 'secret-reader', permissions: perms });
    expect(made).toMatchObject({ __typename: 'CreateRoleSuccess', role: { name: 'secret-reader', builtIn: false, namespaceId: nsId, permissions: [{ action: 'read', resourceKind: 'secret' }] } });
    expect(await auditCount({ action: 'role.create', resourceId: made.role.id })).toBe(1);
    expect(await create({ namespaceId: nsId, name: 'secret-reader', permissions: perms })).toMatchObject({ __typename: 'ConflictError', code: 'NAME_TAKEN' });
    expect(await create({ namespaceId: otherNsId, name: 'secret-reader', permissions: perms })).toMatchObject({ __typename: 'CreateRoleSuccess' });
    expect(await create({ namespaceId: nsId, name: 'namespace-admin', permissions: perms })).toMatchObject({ __typename: 'ConflictError', code: 'NAME_TAKEN' });
    expect(await create({ namespaceId: nsId, name: 'empty', permissions: [] })).toMatchObject({ __typename: 'ValidationError', code: 'EMPTY_PERMISSIONS' });
    expect(await create({ namespaceId: nsId, name: 'bad-action', permissions: [{ action: 'own', resourceKind: 'secret' }] })).toMatchObject({ __typename: 'ValidationError', code: 'UNKNOWN_ACTION' });
    expect(await create({ namespaceId: nsId, name: 'bad-kind', permissions: [{ action: 'read', resourceKind: 'widget' }] })).toMatchObject({ __typename: 'ValidationError', code: 'UNKNOWN_RESOURCE_KIND' });
    expect(await create({ namespaceId: nsId, name: 'Bad Name', permissions: perms })).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_NAME' });
    expect(await create({ namespaceId: newId('namespace'), name: 'nowhere', permissions: perms })).toMatchObject({ __typename: 'NotFoundError' });

    const viewer = await user('role-viewer');
    await grantBuiltInRole(db(), viewer.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: nsId }, 'test');
    expect(await create({ namespaceId: nsId, name: 'mine', permissions: perms }, viewer.apiKey)).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await auditCount({ actorId: viewer.principalId, outcome: 'DENIED', action: 'role.administer' })).toBe(1);

    const erin = await user('erin');
    expect(await grant({ subjectId: erin.principalId, roleId: made.role.id, scope: { kind: 'NAMESPACE', namespaceId: otherNsId } })).toMatchObject({ __typename: 'NotFoundError' });
    expect(await grant({ subjectId: erin.principalId, roleId: made.role.id, scope: { kind: 'INSTALLATION' } })).toMatchObject({ __typename: 'NotFoundError' });
    expect(await grant({ subjectId: erin.principalId, roleId: made.role.id, scope: { kind: 'NAMESPACE', namespaceId: nsId } })).toMatchObject({ created: true });
    const secret = await createSecretOk(stack, nsId, 'erin-reads', 'v');
    expect(await secretRead(secret.id, erin.apiKey)).toMatchObject({ id: secret.id });
  });

  it("roles lists the built-in roles, and a namespace's custom roles to those who may read them", async () => {
    const made = await payload(await stack.gql(CREATE_ROLE, { input: { namespaceId: otherNsId, name: 'listed-role', permissions: [{ action: 'read', resourceKind: 'agent' }] } }), 'createRole');
    const names = (r: unknown) => (r as Array<{ name: string }>).map((x) => x.name);
    const builtIns = ['installation-admin', 'namespace-admin', 'namespace-editor', 'namespace-viewer', 'secret-operator'];
    expect(names(payload(await stack.gql(ROLES, {}), 'roles')).sort()).toEqual(builtIns);
    expect(names(payload(await stack.gql(ROLES, { namespaceId: otherNsId }), 'roles'))).toContain('listed-role');
    const outsider = await user('role-outsider');
    expect(names(payload(await stack.gql(ROLES, { namespaceId: otherNsId }, { key: outsider.apiKey }), 'roles')).sort()).toEqual(builtIns);
    expect(made.role.id).toMatch(/^rol_/);
  });

  it('A2 no action implies another: operate on a secret does not allow reading it', async () => {
    const secret = await createSecretOk(stack, nsId, 'operate-only', 'v');
    const ops = await payload(await stack.gql(CREATE_ROLE, { input: { namespaceId: nsId, name: 'operate-only', permissions: [{ action: 'operate', resourceKind: 'secret' }] } }), 'createRole');
    const frank = await user('frank');
    await grant({ subjectId: frank.principalId, roleId: ops.role.id, scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } });
    expect(await secretRead(secret.id, frank.apiKey)).toBeNull();
    expect(await explain({ subjectId: frank.principalId, action: 'operate', resourceKind: 'secret', resourceId: secret.id }, frank.apiKey)).toMatchObject({ allowed: true });
    for (const action of ['read', 'update', 'delete', 'administer']) {
      expect(await explain({ subjectId: frank.principalId, action, resourceKind: 'secret', resourceId: secret.id }, frank.apiKey)).toMatchObject({ allowed: false, evidence: [] });
    }
  });
});

describe('revokeAccess', () => {
  it('A2 P6 revokes by id, audits it in the same change; a second revoke by that id is NOT_FOUND and changes nothing', async () => {
    const gina = await user('gina');
    const secret = await createSecretOk(stack, nsId, 'gina-reads', 'v');
    const granted = await grant({ subjectId: gina.principalId, roleId: role('namespace-viewer'), scope: { kind: 'NAMESPACE', namespaceId: nsId } });
    expect(await secretRead(secret.id, gina.apiKey)).not.toBeNull();
    const first = await revoke({ bindingId: granted.binding.id });
    expect(first).toEqual({ __typename: 'RevokeAccessSuccess', changed: true, revokedBindingIds: [granted.binding.id] });
    expect(await auditCount({ action: 'accessBinding.delete', resourceId: granted.binding.id, outcome: 'SUCCESS' })).toBe(1);
    expect(await secretRead(secret.id, gina.apiKey)).toBeNull();
    const second = await revoke({ bindingId: granted.binding.id });
    expect(second).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    expect(await auditCount({ action: 'accessBinding.delete', resourceId: granted.binding.id })).toBe(1);
  });

  it('A2 revokes by subject, role and scope; an absent triple changes nothing; missing targets are NOT_FOUND', async () => {
    const hank = await user('hank');
    const input = { subjectId: hank.principalId, roleId: role('namespace-editor'), scope: { kind: 'INSTALLATION' } };
    const granted = await grant(input);
    expect(await revoke(input)).toEqual({ __typename: 'RevokeAccessSuccess', changed: true, revokedBindingIds: [granted.binding.id] });
    const audits = await auditCount({ action: 'accessBinding.delete' });
    expect(await revoke(input)).toEqual({ __typename: 'RevokeAccessSuccess', changed: false, revokedBindingIds: [] });
    expect(await auditCount({ action: 'accessBinding.delete' })).toBe(audits);
    expect(await revoke({ ...input, subjectId: newId('humanPrincipal') })).toMatchObject({ __typename: 'NotFoundError' });
    expect(await revoke({ ...input, roleId: newId('role') })).toMatchObject({ __typename: 'NotFoundError' });
    expect(await revoke({ ...input, scope: { kind: 'NAMESPACE', namespaceId: newId('namespace') } })).toMatchObject({ __typename: 'NotFoundError' });
    expect(await revoke({ bindingId: granted.binding.id, subjectId: hank.principalId })).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_REVOKE' });
    expect(await revoke({})).toMatchObject({ __typename: 'ValidationError', code: 'INVALID_REVOKE' });
  });

  it('A2 A3 revoking without administer is a bare FORBIDDEN, audited, and the binding stays', async () => {
    const ivy = await user('ivy');
    const granted = await grant({ subjectId: ivy.principalId, roleId: role('namespace-viewer'), scope: { kind: 'NAMESPACE', namespaceId: nsId } });
    // Ivy can read the namespace but not administer its bindings; she cannot revoke her own binding either.
    const result = await revoke({ bindingId: granted.binding.id }, ivy.apiKey);
    expect(result).toEqual({ __typename: 'ForbiddenError', code: 'FORBIDDEN', message: 'You are not allowed to do this.' });
    expect(await db().accessBinding.findUnique({ where: { id: granted.binding.id } })).not.toBeNull();
    expect(await auditCount({ actorId: ivy.principalId, outcome: 'DENIED', action: 'accessBinding.administer', namespaceId: nsId })).toBe(1);
    expect(await auditCount({ action: 'accessBinding.delete', resourceId: granted.binding.id })).toBe(0);
  });
});

describe('A2 audit in the same transaction as the change', () => {
  beforeAll(async () => {
    // A deferred constraint trigger fails the commit itself, after the binding and the audit event
    // were both written, for subjects with a doomed name: an audit row outside the change's
    // transaction would survive it.
    await db().$executeRawUnsafe(`
      CREATE FUNCTION reject_doomed_binding() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE subject text;
      BEGIN
        IF TG_OP = 'DELETE' THEN subject := OLD."subjectId"; ELSE subject := NEW."subjectId"; END IF;
        IF EXISTS (SELECT 1 FROM "Principal" WHERE id = subject AND name = 'doomed-' || lower(TG_OP)) THEN
          RAISE EXCEPTION 'commit rejected by test' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
      END $$`);
    await db().$executeRawUnsafe(`
      CREATE CONSTRAINT TRIGGER reject_doomed_binding AFTER INSERT OR DELETE ON "AccessBinding" DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION reject_doomed_binding()`);
  });

  it('A2 a grant whose commit fails leaves neither a binding nor an audit event', async () => {
    const doomed = await user('doomed-insert');
    const result = await stack.gql(GRANT, { input: { subjectId: doomed.principalId, roleId: role('namespace-viewer'), scope: { kind: 'NAMESPACE', namespaceId: nsId } } });
    expect(result.body.errors?.[0]?.message).toBe('Unexpected error.');
    // The failed commit is logged by its class and path, not its message (P1).
    expect(stack.logs.some((line) => line.includes('DriverAdapterError') && line.includes('grantAccess'))).toBe(true);
    expect(stack.logs.some((line) => line.includes('commit rejected by test'))).toBe(false);
    expect(await db().accessBinding.count({ where: { subjectId: doomed.principalId } })).toBe(0);
    expect(await auditCount({ action: 'accessBinding.create', details: { path: ['subjectId'], equals: doomed.principalId } })).toBe(0);
  });

  it('A2 a revoke whose commit fails leaves the binding and no audit event', async () => {
    const doomed = await user('doomed-delete');
    const granted = await grant({ subjectId: doomed.principalId, roleId: role('namespace-viewer'), scope: { kind: 'NAMESPACE', namespaceId: nsId } });
    const result = await stack.gql(REVOKE, { input: { bindingId: granted.binding.id } });
    expect(result.body.errors?.[0]?.message).toBe('Unexpected error.');
    expect(await db().accessBinding.findUnique({ where: { id: granted.binding.id } })).not.toBeNull();
    expect(await auditCount({ action: 'accessBinding.delete', resourceId: granted.binding.id })).toBe(0);
  });
});

describe('reading bindings', () => {
  it('A2 accessBindings shows a subject the bindings the caller may read, and yourself all of yours', async () => {
    const jo = await user('jo');
    const inNs = await grant({ subjectId: jo.principalId, roleId: role('namespace-viewer'), scope: { kind: 'NAMESPACE', namespaceId: nsId } });
    const inOther = await grant({ subjectId: jo.principalId, roleId: role('namespace-viewer'), scope: { kind: 'NAMESPACE', namespaceId: otherNsId } });
    const ids = (r: unknown) => (r as { edges: Array<{ node: { id: string } }> }).edges.map((e) => e.node.id).sort();
    expect(ids(payload(await stack.gql(BINDINGS, { subjectId: jo.principalId }), 'accessBindings'))).toEqual([inNs.binding.id, inOther.binding.id].sort());
    expect(ids(payload(await stack.gql(BINDINGS, { subjectId: jo.principalId }, { key: jo.apiKey }), 'accessBindings'))).toEqual([inNs.binding.id, inOther.binding.id].sort());
    const auditor = await user('auditor');
    const reader = await payload(await stack.gql(CREATE_ROLE, { input: { namespaceId: nsId, name: 'binding-reader', permissions: [{ action: 'read', resourceKind: 'accessBinding' }] } }), 'createRole');
    await grant({ subjectId: auditor.principalId, roleId: reader.role.id, scope: { kind: 'NAMESPACE', namespaceId: nsId } });
    expect(ids(payload(await stack.gql(BINDINGS, { subjectId: jo.principalId }, { key: auditor.apiKey }), 'accessBindings'))).toEqual([inNs.binding.id]);
    const stranger = await user('stranger');
    expect(payload(await stack.gql(BINDINGS, { subjectId: jo.principalId }, { key: stranger.apiKey }), 'accessBindings')).toMatchObject({ totalCount: 0, edges: [] });
  });

  // The page is filtered in SQL (visibleBindingsWhere); canSeeBinding, which decides binding by
  // binding in memory, is the oracle. Generated grants (seeded) of every kind of role and scope;
  // every caller asks for every subject's bindings, two rows a page, following the cursors.
  it('A2 accessBindings pages in SQL exactly the bindings canSeeBinding shows, for generated grants, every caller and every subject', async () => {
    let seed = 0x5eed_a2;
    const rand = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return (((t ^ (t >>> 14)) >>> 0) % n);
    };
    const people = await Promise.all(['gen-a', 'gen-b', 'gen-c', 'gen-d', 'gen-e'].map((n) => user(`${n}-${Date.now().toString(36)}`)));
    const secretHere = await createSecretOk(stack, nsId, `gen-here-${Date.now().toString(36)}`, 'v');
    const secretThere = await createSecretOk(stack, otherNsId, `gen-there-${Date.now().toString(36)}`, 'v');
    const custom = async (name: string, permissions: Array<{ action: string; resourceKind: string }>, namespaceId: string) =>
      (await payload(await stack.gql(CREATE_ROLE, { input: { namespaceId, name: `${name}-${Date.now().toString(36)}`, permissions } }), 'createRole')).role.id as string;
    const roles = [
      role('namespace-viewer'),
      role('namespace-admin'),
      role('secret-operator'),
      role('installation-admin'),
      await custom('bind-reader', [{ action: 'read', resourceKind: 'accessBinding' }], nsId),
      await custom('bind-admin', [{ action: 'administer', resourceKind: 'accessBinding' }], nsId),
      await custom('sec-admin', [{ action: 'administer', resourceKind: 'secret' }], otherNsId),
    ];
    const scopes = [
      { kind: 'INSTALLATION' },
      { kind: 'NAMESPACE', namespaceId: nsId },
      { kind: 'NAMESPACE', namespaceId: otherNsId },
      { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretHere.id },
      { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretThere.id },
      { kind: 'RESOURCE', resourceKind: 'namespace', resourceId: otherNsId },
    ];
    let created = 0;
    for (let i = 0; i < 60; i++) {
      const answer = await grant({ subjectId: people[rand(people.length)]!.principalId, roleId: roles[rand(roles.length)], scope: scopes[rand(scopes.length)] });
      if (answer.__typename === 'GrantAccessSuccess' && answer.created) created++;
    }
    expect(created).toBeGreaterThanOrEqual(20);
    // The oracle: every binding of the subject, filtered in memory by canSeeBinding.
    const visibleInMemory = async (actor: Actor, subjectId: string) =>
      (await findBindings(db(), { subjectId })).filter(canSeeBinding(actor.principalId, await decider(db(), actor)));
    const callers = [...people.map((p) => ({ principalId: p.principalId, key: p.apiKey as string | undefined })), { principalId: null, key: undefined }];
    const bootId = (await db().installation.findFirstOrThrow()).bootstrapPrincipalId;
    let compared = 0;
    for (const caller of callers) {
      const actor: Actor = { principalId: caller.principalId ?? bootId, kind: 'HUMAN', name: 'oracle', apiKeyId: 'none' };
      for (const subject of people) {
        const expected = (await visibleInMemory(actor, subject.principalId)).map((b) => b.id);
        const seen: string[] = [];
        let after: string | null = null;
        let totalCount = -1;
        for (let pages = 0; pages < 50; pages++) {
          const page = payload(await stack.gql(BINDINGS, { subjectId: subject.principalId, first: 2, after }, { key: caller.key }), 'accessBindings');
          totalCount = page.totalCount;
          seen.push(...page.edges.map((e: { node: { id: string } }) => e.node.id));
          if (!page.pageInfo.hasNextPage) break;
          after = page.pageInfo.endCursor;
        }
        expect(seen, `caller ${caller.principalId ?? 'bootstrap'} on ${subject.principalId}`).toEqual(expected);
        expect(totalCount).toBe(expected.length);
        compared += expected.length;
      }
    }
    expect(compared).toBeGreaterThan(created); // the admin alone sees every one
  });

  it('A2 accessBindingsForResource lists the bindings on that resource', async () => {
    const secret = await createSecretOk(stack, nsId, 'listed', 'v');
    const kim = await user('kim');
    const b = await grant({ subjectId: kim.principalId, roleId: role('secret-operator'), scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } });
    const listed = payload(await stack.gql(BINDINGS_FOR_RESOURCE, { kind: 'secret', id: secret.id }), 'accessBindingsForResource');
    expect(listed).toEqual([expect.objectContaining({ id: b.binding.id, subject: { id: kim.principalId }, role: { id: role('secret-operator'), name: 'secret-operator' } })]);
    const stranger = await user('stranger2');
    expect(payload(await stack.gql(BINDINGS_FOR_RESOURCE, { kind: 'secret', id: secret.id }, { key: stranger.apiKey }), 'accessBindingsForResource')).toEqual([]);
    const nsBindings = payload(await stack.gql(BINDINGS_FOR_RESOURCE, { kind: 'namespace', id: otherNsId }), 'accessBindingsForResource');
    expect(nsBindings.every((x: { scope: { namespaceId: string } }) => x.scope.namespaceId === otherNsId)).toBe(true);
  });
});

describe('reading the bindings on a namespace\'s resources in one query', () => {
  const IN_NAMESPACE = `query($ns: ID!, $kind: String) { resourceAccessBindingsInNamespace(namespaceId: $ns, resourceKind: $kind) { ${BINDING} } }`;
  it('A2 resourceAccessBindingsInNamespace lists the bindings on every single resource of that namespace, not its namespace-wide ones nor another namespace\'s', async () => {
    const ns = await createReadyNamespace(stack, 'team-access-batch');
    const [one, two] = [await createSecretOk(stack, ns, 'batch-one', 'v'), await createSecretOk(stack, ns, 'batch-two', 'v')];
    const elsewhere = await createSecretOk(stack, otherNsId, 'batch-elsewhere', 'v');
    const lee = await user('lee');
    const onOne = await grant({ subjectId: lee.principalId, roleId: role('secret-operator'), scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: one.id } });
    const onTwo = await grant({ subjectId: lee.principalId, roleId: role('secret-operator'), scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: two.id } });
    await grant({ subjectId: lee.principalId, roleId: role('namespace-viewer'), scope: { kind: 'NAMESPACE', namespaceId: ns } });
    await grant({ subjectId: lee.principalId, roleId: role('secret-operator'), scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: elsewhere.id } });
    const listed = payload(await stack.gql(IN_NAMESPACE, { ns, kind: 'secret' }), 'resourceAccessBindingsInNamespace');
    expect(listed.map((b: { id: string }) => b.id).sort()).toEqual([onOne.binding.id, onTwo.binding.id].sort());
    expect(payload(await stack.gql(IN_NAMESPACE, { ns, kind: 'agent' }), 'resourceAccessBindingsInNamespace')).toEqual([]);
    // A caller who may not read bindings there sees only its own.
    const stranger = await user('stranger3');
    expect(payload(await stack.gql(IN_NAMESPACE, { ns, kind: 'secret' }, { key: stranger.apiKey }), 'resourceAccessBindingsInNamespace')).toEqual([]);
    expect(payload(await stack.gql(IN_NAMESPACE, { ns, kind: 'secret' }, { key: lee.apiKey }), 'resourceAccessBindingsInNamespace')).toHaveLength(2);
  });
});

describe('explainAccess', () => {
  it('A2 names the bindings that allowed a decision, and says plainly when none did', async () => {
    const lee = await user('lee');
    const secret = await createSecretOk(stack, nsId, 'explained', 'v');
    const viaNs = await grant({ subjectId: lee.principalId, roleId: role('namespace-viewer'), scope: { kind: 'NAMESPACE', namespaceId: nsId } });
    const viaRes = await grant({ subjectId: lee.principalId, roleId: role('secret-operator'), scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secret.id } });
    const read = await explain({ subjectId: lee.principalId, action: 'read', resourceKind: 'secret', resourceId: secret.id });
    expect(read).toMatchObject({ __typename: 'AccessDecision', allowed: true, hiddenEvidenceCount: 0 });
    expect(read.evidence).toEqual([{ roleName: 'namespace-viewer', binding: expect.objectContaining({ id: viaNs.binding.id, scope: { kind: 'NAMESPACE', namespaceId: nsId, resourceKind: null, resourceId: null } }) }]);
    expect(read.summary).toContain('namespace-viewer');
    const operate = await explain({ subjectId: lee.principalId, action: 'operate', resourceKind: 'secret', resourceId: secret.id });
    expect(operate.evidence.map((e: { binding: { id: string } }) => e.binding.id)).toEqual([viaRes.binding.id]);
    const del = await explain({ subjectId: lee.principalId, action: 'delete', resourceKind: 'secret', resourceId: secret.id });
    expect(del).toMatchObject({ allowed: false, evidence: [] });
    expect(del.summary).toMatch(/^Denied/);
    // The subject may ask about itself.
    expect(await explain({ subjectId: lee.principalId, action: 'read', resourceKind: 'secret', resourceId: secret.id }, lee.apiKey)).toMatchObject({ allowed: true });
  });

  it('A2 evidence the caller may not read is counted, not shown', async () => {
    const pat = await user('pat');
    await grant({ subjectId: pat.principalId, roleId: role('namespace-viewer'), scope: { kind: 'INSTALLATION' } });
    const reader = await user('ns-binding-reader');
    const readerRole = await payload(await stack.gql(CREATE_ROLE, { input: { namespaceId: nsId, name: 'explain-reader', permissions: [{ action: 'read', resourceKind: 'accessBinding' }] } }), 'createRole');
    await grant({ subjectId: reader.principalId, roleId: readerRole.role.id, scope: { kind: 'NAMESPACE', namespaceId: nsId } });
    const answer = await explain({ subjectId: pat.principalId, action: 'read', resourceKind: 'namespace', namespaceId: nsId, resourceId: nsId }, reader.apiKey);
    expect(answer).toMatchObject({ allowed: true, evidence: [], hiddenEvidenceCount: 1 });
    expect(answer.summary).toContain('1 binding(s) you may not read');
    const asAdmin = await explain({ subjectId: pat.principalId, action: 'read', resourceKind: 'namespace', namespaceId: nsId, resourceId: nsId });
    expect(asAdmin).toMatchObject({ allowed: true, hiddenEvidenceCount: 0, evidence: [{ roleName: 'namespace-viewer', binding: { scope: { kind: 'INSTALLATION' } } }] });
  });

  it('A2 A3 someone else without read on access bindings gets a bare FORBIDDEN, audited', async () => {
    const mo = await user('mo');
    await grantBuiltInRole(db(), mo.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: nsId }, 'test');
    const result = await explain({ subjectId: stack.runtime.installation.bootstrapPrincipalId, action: 'read', resourceKind: 'namespace', namespaceId: nsId }, mo.apiKey);
    expect(result).toEqual({ __typename: 'ForbiddenError', code: 'FORBIDDEN', message: 'You are not allowed to do this.' });
    expect(await auditCount({ actorId: mo.principalId, outcome: 'DENIED', action: 'accessBinding.read', namespaceId: nsId })).toBe(1);
    expect(await explain({ subjectId: mo.principalId, action: 'fly', resourceKind: 'secret' })).toMatchObject({ __typename: 'ValidationError', code: 'UNKNOWN_ACTION' });
  });
});

describe('a request reads its bindings once', () => {
  it('A2 a request\'s reads decide from the bindings it started with, and every check inside a transaction reads them afresh', async () => {
    const { principalId, apiKey } = await createHumanPrincipal(stack.runtime.db, `memo-${Date.now()}`, stack.runtime.installation.bootstrapPrincipalId);
    await grantBuiltInRole(stack.runtime.db, principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: nsId }, 'test');
    const actor = (await authenticateApiKey(stack.runtime.db, apiKey))!;
    const request = { action: 'read', resourceKind: 'namespace', namespaceId: nsId, resourceId: nsId } as const;
    expect((await check(stack.runtime.db, actor, request)).allowed).toBe(true);
    await stack.runtime.db.accessBinding.deleteMany({ where: { subjectId: principalId } });
    // The same request: its reads keep the decision they started with (one statement for all).
    expect((await check(stack.runtime.db, actor, request)).allowed).toBe(true);
    // A re-check under a lock sees the revocation.
    expect(await stack.runtime.db.$transaction(async (tx) => (await check(tx, actor, request)).allowed)).toBe(false);
    // The next request, and any actor built outside a request, read afresh.
    expect((await check(stack.runtime.db, (await authenticateApiKey(stack.runtime.db, apiKey))!, request)).allowed).toBe(false);
    expect((await check(stack.runtime.db, { ...actor, memo: undefined }, request)).allowed).toBe(false);
  });
});
