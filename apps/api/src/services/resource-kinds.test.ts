import { randomUUID } from 'node:crypto';
import { NotFoundError } from '@occ/domain/errors';
import { ID_PREFIXES } from '@occ/domain/ids';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, sqlRows } from '../db/sql.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, createReadyNamespace, createSecretOk, DEPLOY_AGENT, payload } from '../test/operations.ts';
import { check } from './access.ts';
import type { Actor } from './deps.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';
import { kinds, RESOURCE_KINDS, resourceKinds, type KindSpec, type RegisteredKind } from './resource-kinds.ts';

// One registry of resource kinds (services/resource-kinds.ts) drives the read by id, NOT_FOUND for
// what a caller may not read, the request's batched loader, the grant's existence lookup and the
// typename node(id:) answers. Two things are shown here, against PostgreSQL: a kind added in this
// file by one entry is served by all of them; and, for every registered kind and every kind of
// reader, the three reads agree with the access decision.

let stack: TestStack;
const theirs = {} as { ns: string; secret: string; configuration: string; agent: string; agentRevision: string; secretRollout: string; role: string };
let mineRole = '';
let mine = '';
const readers = {} as Record<'admin' | 'mineAdmin' | 'theirsViewer' | 'secretGrantee' | 'agentToken', Actor>;
const madeUp = (kind: keyof typeof ID_PREFIXES) => `${ID_PREFIXES[kind]}${randomUUID()}`;

const actor = (principalId: string, kind: Actor['kind'] = 'HUMAN'): Actor => ({ principalId, kind, name: principalId, apiKeyId: '' });

beforeAll(async () => {
  stack = await startTestStack();
  const db = stack.runtime.db;
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  mine = await createReadyNamespace(stack, 'kinds-mine');
  theirs.ns = await createReadyNamespace(stack, 'kinds-theirs');
  theirs.secret = (await createSecretOk(stack, theirs.ns, 'theirs', 'v')).id;
  theirs.configuration = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: theirs.ns, name: 'theirs', values: {} } }), 'createConfiguration').configuration.id;
  theirs.agent = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId: theirs.ns, name: 'theirs' } }), 'createAgent').agent.id;
  const deployed = payload(await stack.gql(DEPLOY_AGENT, { input: { agentId: theirs.agent } }), 'deployAgent');
  expect(deployed.__typename, JSON.stringify(deployed)).toBe('DeployAgentSuccess');
  theirs.agentRevision = deployed.revision.id;
  theirs.secretRollout = (
    await db.secretRollout.create({
      data: { id: madeUp('secretRollout'), secretId: theirs.secret, namespaceId: theirs.ns, state: 'AWAITING_APPROVAL', policy: { mode: 'AUTOMATIC', approval: 'ANY_ADMINISTRATOR' }, targetVersion: 1, rotatedById: boot },
    })
  ).id;
  theirs.role = (await db.role.create({ data: { id: madeUp('role'), name: 'theirs-role', namespaceId: theirs.ns, builtIn: false, permissions: [{ action: 'read', resourceKind: 'secret' }] } })).id;
  mineRole = (await db.role.create({ data: { id: madeUp('role'), name: 'mine-role', namespaceId: mine, builtIn: false, permissions: [{ action: 'read', resourceKind: 'secret' }] } })).id;
  readers.admin = actor(boot);
  const mineAdmin = await createHumanPrincipal(db, 'kinds-mine-admin', boot);
  await grantBuiltInRole(db, mineAdmin.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: mine }, boot);
  readers.mineAdmin = actor(mineAdmin.principalId);
  const viewer = await createHumanPrincipal(db, 'kinds-theirs-viewer', boot);
  await grantBuiltInRole(db, viewer.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: theirs.ns }, boot);
  readers.theirsViewer = actor(viewer.principalId);
  // A reader of one secret alone (a single-resource grant): that secret, and its rollouts, nothing else.
  const grantee = await createHumanPrincipal(db, 'kinds-secret-grantee', boot);
  await grantBuiltInRole(db, grantee.principalId, 'namespace-viewer', { kind: 'resource', resourceKind: 'secret', resourceId: theirs.secret, namespaceId: theirs.ns }, boot);
  readers.secretGrantee = actor(grantee.principalId);
  // An agent's token: its service principal, which reads nothing it was not granted.
  const agent = await db.agent.findUniqueOrThrow({ where: { id: theirs.agent }, select: { servicePrincipalId: true } });
  readers.agentToken = actor(agent.servicePrincipalId, 'SERVICE');
}, 120_000);
afterAll(() => stack?.close());

interface RoleView {
  id: string;
  namespaceId: string;
  name: string;
}

/** The fixture kind: a namespace's custom role, one entry, nothing else written for it. */
const ROLE_ENTRY: KindSpec<RoleView> = {
  idKind: 'role',
  typename: 'Role',
  table: 'Role',
  namespaceColumn: 'namespaceId',
  byIds: (db, ids) => sqlRows<RoleView>(db, sql`SELECT "id", "namespaceId", "name" FROM "public"."Role" WHERE "id" = ANY(${[...ids]}::text[])`),
  readKind: 'role',
  readTarget: (r) => ({ namespaceId: r.namespaceId, resourceId: r.id }),
  grantable: false,
};

describe('one registry of resource kinds', () => {
  it('P6 a kind added by one registry entry is read by id, refused as NOT_FOUND, batched, located and typed', async () => {
    const withRoles = resourceKinds({ ...RESOURCE_KINDS, role: ROLE_ENTRY });
    const deps = { db: stack.runtime.db };
    // Without the entry the product does not know the kind; with it, every derived read does.
    expect(kinds.kindOfId(theirs.role)).toBeNull();
    expect(withRoles.kindOfId(theirs.role)).toBe('role');
    expect(await withRoles.get(deps, readers.admin, 'role', theirs.role)).toMatchObject({ id: theirs.role, name: 'theirs-role', namespaceId: theirs.ns });
    expect(await withRoles.get(deps, readers.mineAdmin, 'role', theirs.role)).toBeNull();
    expect(await withRoles.get(deps, readers.mineAdmin, 'role', mineRole)).toMatchObject({ id: mineRole });
    expect(await withRoles.get(deps, readers.admin, 'role', 'rol_not-an-id')).toBeNull();
    // P6: NOT_FOUND for an existing one the caller may not read, and the denial is audited.
    await expect(withRoles.require(deps, readers.mineAdmin, 'role', theirs.role)).rejects.toBeInstanceOf(NotFoundError);
    const audited = await stack.runtime.db.auditEvent.findFirst({ where: { actorId: readers.mineAdmin.principalId, resourceId: theirs.role, outcome: 'DENIED' } });
    expect(audited).toMatchObject({ action: 'role.read', namespaceId: theirs.ns });
    await expect(withRoles.require(deps, readers.mineAdmin, 'role', madeUp('role'))).rejects.toBeInstanceOf(NotFoundError);
    expect(await withRoles.locate(stack.runtime.db, 'role', theirs.role)).toEqual({ namespaceId: theirs.ns });
    expect(await withRoles.locate(stack.runtime.db, 'role', madeUp('role'))).toBeNull();
    const sets = await import('./access.ts').then((m) => m.permissionSets(stack.runtime.db, readers.mineAdmin));
    const batch = await withRoles.readableByIds(stack.runtime.db, 'role', [theirs.role, mineRole, madeUp('role')], async (k) => sets('read', k));
    expect(batch.map((r) => r?.id ?? null)).toEqual([null, mineRole, null]);
    // A grant cannot target it alone: it is not grantable.
    expect(withRoles.grantable('role')).toBe(false);
  });

  const registered = Object.keys(RESOURCE_KINDS) as RegisteredKind[];
  const readerNames = ['admin', 'mineAdmin', 'theirsViewer', 'secretGrantee', 'agentToken'] as const;
  // What each reader may read of the other namespace's objects, written out (not asked of check()).
  const READS: Record<(typeof readerNames)[number], readonly RegisteredKind[]> = {
    admin: registered,
    theirsViewer: registered,
    secretGrantee: ['secret', 'secretRollout'],
    mineAdmin: [],
    agentToken: [],
  };

  it.each(registered.flatMap((kind) => readerNames.map((reader) => [kind, reader] as const)))(
    'P6 %s as %s: get, require and the loader batch agree with the access decision',
    async (kind, reader) => {
      const id = kind === 'namespace' ? theirs.ns : theirs[kind];
      const spec = RESOURCE_KINDS[kind] as KindSpec<{ id: string }>;
      const deps = { db: stack.runtime.db };
      const who = readers[reader];
      // The decision, asked directly (the row's namespace and target read straight from the table).
      const located = await kinds.locate(stack.runtime.db, kind, id, { keep: false });
      expect(located).not.toBeNull();
      const [view] = await spec.byIds(stack.runtime.db, [id]);
      const decision = await check(stack.runtime.db, who, { action: 'read', resourceKind: spec.readKind, ...spec.readTarget(view!) });
      const got = await kinds.get(deps, who, kind, id);
      expect(got?.id ?? null).toBe(decision.allowed ? id : null);
      if (decision.allowed) await expect(kinds.require(deps, who, kind, id)).resolves.toMatchObject({ id });
      else await expect(kinds.require(deps, who, kind, id)).rejects.toBeInstanceOf(NotFoundError);
      const sets = await import('./access.ts').then((m) => m.permissionSets(stack.runtime.db, who));
      const batch = await kinds.readableByIds(stack.runtime.db, kind, [id, madeUp(spec.idKind)], async (k) => sets('read', k));
      expect(batch.map((v) => v?.id ?? null)).toEqual([decision.allowed ? id : null, null]);
      expect(decision.allowed).toBe(READS[reader].includes(kind));
    },
  );

  it('every registered kind has its own id prefix and type name, and node(id:) answers each for the admin', async () => {
    const prefixes = registered.map((k) => ID_PREFIXES[RESOURCE_KINDS[k].idKind]);
    expect(new Set(prefixes).size).toBe(registered.length);
    expect(new Set(registered.map((k) => RESOURCE_KINDS[k].typename)).size).toBe(registered.length);
    for (const kind of registered) {
      const id = kind === 'namespace' ? theirs.ns : theirs[kind];
      expect(kinds.kindOfId(id)).toBe(kind);
      const answer = await stack.gql(`query($id: ID!) { node(id: $id) { __typename id } }`, { id });
      expect(answer.body.data?.node, `${kind}: ${JSON.stringify(answer.body)} ${stack.logs.filter((l) => l.includes('error')).slice(-2).join('\n')}`).toEqual({ __typename: RESOURCE_KINDS[kind].typename, id });
    }
    for (const odd of ['', 'constructor_x', '__proto___1', 'sec', 'xyz_1']) expect(kinds.kindOfId(odd)).toBeNull();
  });
});
