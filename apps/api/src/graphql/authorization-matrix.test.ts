import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { agentInstanceName, secretLabels } from '@occ/domain/kubernetes-names';
import { newId } from '../ids.ts';
import type { Actor } from '../services/deps.ts';
import { generateApiKey } from '../services/api-keys.ts';
import { createAgent } from '../services/agents.ts';
import { createConfiguration } from '../services/configurations.ts';
import { createHumanPrincipal, grantBuiltInRole, type GrantScope } from '../services/principals.ts';
import { createSecret } from '../services/secrets.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { createReadyNamespace, waitFor } from '../test/operations.ts';

// Every mutation × every kind of caller × {not granted, granted}: allowed or denied, and every
// denial audited (A2, A3, and the S/C/A rules' "needs …" clauses). Each denied cell has one exact
// answer (P6): FORBIDDEN where the caller can see the target, NOT_FOUND where it cannot.

type Subject = 'installationAdmin' | 'namespaceAdmin' | 'namespaceViewer' | 'unrelatedUser' | 'agentPrincipal' | 'anonymous';
const SUBJECTS: Subject[] = ['installationAdmin', 'namespaceAdmin', 'namespaceViewer', 'unrelatedUser', 'agentPrincipal', 'anonymous'];

let stack: TestStack;
let nsId: string;
let boot: Actor;
const keys = {} as Record<Subject, string | null>;
const principals = {} as Record<Subject, string>;

interface Case {
  mutation: string;
  /** Fresh variables for one call. */
  input: () => Promise<Record<string, unknown>>;
  /** Who may call it with the baseline grants. */
  allowed: Subject[];
  /** The grant that makes a denied caller allowed. */
  grant: (subjectId: string) => Promise<string>;
  /**
   * Who can see the target (P6): a denied caller among them is FORBIDDEN (it can read but not
   * act); any other is NOT_FOUND, exactly as for a target that does not exist.
   */
  readers: Subject[];
}

const uniq = () => Math.random().toString(36).slice(2, 9);
const secret = async () => (await createSecret(stack.runtime.deps, boot, { namespaceId: nsId, name: `s-${uniq()}`, value: 'v' })).id;
const configuration = async () => (await createConfiguration(stack.runtime.deps, boot, { namespaceId: nsId, name: `c-${uniq()}`, values: {} })).id;
const agent = async () => createAgent(stack.runtime.deps, boot, { namespaceId: nsId, name: `a-${uniq()}` });
/** SG3: a fresh request of a fresh agent, waiting for approval (as the controller leaves it). */
const awaitingRequest = async () => {
  const a = await agent();
  const id = newId('selfConfigRequest');
  await stack.runtime.db.selfConfigRequest.create({
    data: { id, uid: randomUUID(), k8sNamespace: 'occ-matrix', name: `r-${uniq()}`, instanceRef: agentInstanceName(a.id), namespaceId: nsId, agentId: a.id, phase: 'AwaitingApproval' },
  });
  return id;
};
const user = async () => createHumanPrincipal(stack.runtime.db, `u-${uniq()}`, boot.principalId);

/** S5: a backend object labelled as ours that no secret points at. */
async function plantOrphan(): Promise<Record<string, unknown>> {
  const k8sNamespace = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: nsId } })).k8sName;
  const labels = secretLabels(nsId, newId('secret'), stack.runtime.installation.installationId);
  const created = await stack.core.createNamespacedSecret({ namespace: k8sNamespace, body: { metadata: { name: `orphan-${uniq()}`, labels }, data: { value: 'eA==' } } });
  return { k8sNamespace, name: created.metadata!.name!, uid: created.metadata!.uid! };
}

async function customRole(permissions: Array<{ action: string; resourceKind: string }>): Promise<string> {
  const id = `rol_test-${uniq()}`;
  await stack.runtime.db.role.create({ data: { id, name: id, permissions } });
  return id;
}

async function bind(subjectId: string, roleId: string, scope: GrantScope): Promise<string> {
  const id = newId('accessBinding');
  await stack.runtime.db.accessBinding.create({
    data: {
      id,
      subjectId,
      roleId,
      scopeKind: scope.kind === 'installation' ? 'INSTALLATION' : scope.kind === 'namespace' ? 'NAMESPACE' : 'RESOURCE',
      namespaceId: scope.kind === 'installation' ? null : scope.namespaceId,
      createdById: 'test',
    },
  });
  return id;
}

const editorInNamespace = (s: string) => bind(s, 'rol_namespace-editor', { kind: 'namespace', namespaceId: nsId });
const viewerInNamespace = (s: string) => bind(s, 'rol_namespace-viewer', { kind: 'namespace', namespaceId: nsId });
const adminInNamespace = (s: string) => bind(s, 'rol_namespace-admin', { kind: 'namespace', namespaceId: nsId });
const atInstallation = (permissions: Array<{ action: string; resourceKind: string }>) => async (s: string) =>
  bind(s, await customRole(permissions), { kind: 'installation' });

const NS_WRITERS: Subject[] = ['installationAdmin', 'namespaceAdmin'];
const INSTALLATION_ONLY: Subject[] = ['installationAdmin'];
/** Who reads the namespace and what is in it (the viewer's role). */
const NS_READERS: Subject[] = ['installationAdmin', 'namespaceAdmin', 'namespaceViewer'];
/** No target to hide: every denial is FORBIDDEN. */
const EVERYONE: Subject[] = SUBJECTS;

const CASES: Case[] = [
  { mutation: 'createNamespace', input: async () => ({ name: `n-${uniq()}` }), allowed: INSTALLATION_ONLY, grant: atInstallation([{ action: 'create', resourceKind: 'namespace' }]), readers: EVERYONE },
  { mutation: 'createSecret', input: async () => ({ namespaceId: nsId, name: `s-${uniq()}`, value: 'v' }), allowed: NS_WRITERS, grant: editorInNamespace, readers: NS_READERS },
  { mutation: 'updateSecret', input: async () => ({ id: await secret(), value: 'w' }), allowed: NS_WRITERS, grant: editorInNamespace, readers: NS_READERS },
  { mutation: 'deleteSecret', input: async () => ({ id: await secret() }), allowed: NS_WRITERS, grant: editorInNamespace, readers: NS_READERS },
  { mutation: 'createConfiguration', input: async () => ({ namespaceId: nsId, name: `c-${uniq()}`, values: {} }), allowed: NS_WRITERS, grant: editorInNamespace, readers: NS_READERS },
  { mutation: 'updateConfiguration', input: async () => ({ id: await configuration(), expectedGeneration: 1, values: { x: 1 } }), allowed: NS_WRITERS, grant: editorInNamespace, readers: NS_READERS },
  { mutation: 'createAgent', input: async () => ({ namespaceId: nsId, name: `a-${uniq()}` }), allowed: NS_WRITERS, grant: editorInNamespace, readers: NS_READERS },
  { mutation: 'updateAgent', input: async () => ({ id: (await agent()).id, selfConfigure: { enabled: true, allowedActions: ['skills'] } }), allowed: NS_WRITERS, grant: editorInNamespace, readers: NS_READERS },
  { mutation: 'deleteConfiguration', input: async () => ({ id: await configuration() }), allowed: NS_WRITERS, grant: editorInNamespace, readers: NS_READERS },
  { mutation: 'stopAgent', input: async () => ({ agentId: (await agent()).id }), allowed: NS_WRITERS, grant: editorInNamespace, readers: NS_READERS },
  // SG4: lifting an agent's self-configuration pause is administer on the agent (an editor may not).
  { mutation: 'resumeSelfConfig', input: async () => ({ agentId: (await agent()).id }), allowed: NS_WRITERS, grant: adminInNamespace, readers: NS_READERS },
  // SG3: deciding a waiting request is administer on its agent, as resuming is.
  { mutation: 'approveSelfConfig', input: async () => ({ requestId: await awaitingRequest() }), allowed: NS_WRITERS, grant: adminInNamespace, readers: NS_READERS },
  { mutation: 'rejectSelfConfig', input: async () => ({ requestId: await awaitingRequest(), reason: 'no' }), allowed: NS_WRITERS, grant: adminInNamespace, readers: NS_READERS },
  { mutation: 'redeployConsumers', input: async () => ({ secretId: await secret() }), allowed: NS_READERS, grant: viewerInNamespace, readers: NS_READERS },
  { mutation: 'deleteAgent', input: async () => ({ id: (await agent()).id }), allowed: NS_WRITERS, grant: editorInNamespace, readers: NS_READERS },
  {
    mutation: 'deleteOrphanedSecretBackend',
    input: plantOrphan,
    allowed: INSTALLATION_ONLY,
    grant: atInstallation([{ action: 'administer', resourceKind: 'installation' }]),
    readers: EVERYONE,
  },
  { mutation: 'createRole', input: async () => ({ namespaceId: nsId, name: `r-${uniq()}`, permissions: [{ action: 'read', resourceKind: 'secret' }] }), allowed: NS_WRITERS, grant: adminInNamespace, readers: NS_READERS },
  {
    mutation: 'grantAccess',
    input: async () => ({ subjectId: (await user()).principalId, roleId: 'rol_namespace-viewer', scope: { kind: 'NAMESPACE', namespaceId: nsId } }),
    allowed: NS_WRITERS,
    grant: adminInNamespace,
    readers: NS_READERS,
  },
  {
    mutation: 'revokeAccess',
    input: async () => ({ bindingId: await grantBuiltInRole(stack.runtime.db, (await user()).principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: nsId }, boot.principalId) }),
    allowed: NS_WRITERS,
    grant: adminInNamespace,
    readers: NS_WRITERS,
  },
  { mutation: 'createUser', input: async () => ({ name: `u-${uniq()}` }), allowed: INSTALLATION_ONLY, grant: atInstallation([{ action: 'create', resourceKind: 'principal' }]), readers: EVERYONE },
  { mutation: 'disableUser', input: async () => ({ id: (await user()).principalId }), allowed: INSTALLATION_ONLY, grant: atInstallation([{ action: 'administer', resourceKind: 'principal' }]), readers: INSTALLATION_ONLY },
  { mutation: 'createApiKey', input: async () => ({ principalId: (await user()).principalId }), allowed: INSTALLATION_ONLY, grant: atInstallation([{ action: 'administer', resourceKind: 'principal' }]), readers: INSTALLATION_ONLY },
  { mutation: 'revokeApiKey', input: async () => ({ id: (await user()).apiKeyId }), allowed: INSTALLATION_ONLY, grant: atInstallation([{ action: 'administer', resourceKind: 'principal' }]), readers: INSTALLATION_ONLY },
];

function document(mutation: string): string {
  const input = mutation.charAt(0).toUpperCase() + mutation.slice(1) + 'Input';
  return `mutation($input: ${input}!) { ${mutation}(input: $input) { __typename ... on Error { code message } ... on ForbiddenError { missingGrant { subjectId } } } }`;
}

async function deniedCount(subject: Subject, mutation: string): Promise<number> {
  if (subject === 'anonymous') {
    // Anonymous refusals are coalesced per client address and minute, counted per action (P5).
    const [row] = await stack.runtime.db.$queryRaw<Array<{ n: number }>>`
      SELECT COALESCE(SUM(("details"->'counts'->>${`${mutation}:UNAUTHENTICATED`})::int), 0)::int AS n
      FROM "AuditEvent" WHERE "coalesceKey" IS NOT NULL AND "actorId" IS NULL AND "outcome" = 'DENIED'`;
    return row!.n;
  }
  return stack.runtime.db.auditEvent.count({ where: { actorId: principals[subject], outcome: 'DENIED' } });
}

async function call(c: Case, subject: Subject) {
  const res = await stack.gql(document(c.mutation), { input: await c.input() }, { key: keys[subject] });
  return res;
}

beforeAll(async () => {
  stack = await startTestStack();
  boot = { principalId: stack.runtime.installation.bootstrapPrincipalId, kind: 'SERVICE', name: 'bootstrap', apiKeyId: 'n/a' };
  nsId = await createReadyNamespace(stack, 'matrix');
  const roles: Array<[Subject, string | null, GrantScope | null]> = [
    ['installationAdmin', 'installation-admin', { kind: 'installation' }],
    ['namespaceAdmin', 'namespace-admin', { kind: 'namespace', namespaceId: nsId }],
    ['namespaceViewer', 'namespace-viewer', { kind: 'namespace', namespaceId: nsId }],
    ['unrelatedUser', null, null],
  ];
  for (const [subject, role, scope] of roles) {
    const u = await createHumanPrincipal(stack.runtime.db, subject, boot.principalId);
    if (role && scope) await grantBuiltInRole(stack.runtime.db, u.principalId, role, scope, boot.principalId);
    keys[subject] = u.apiKey;
    principals[subject] = u.principalId;
  }
  // The Agent's service principal signs in with a key of its own (as a running agent would).
  const a = await agent();
  const k = generateApiKey();
  await stack.runtime.db.apiKey.create({ data: { id: newId('apiKey'), principalId: a.servicePrincipalId, prefix: k.prefix, hash: k.hash } });
  keys.agentPrincipal = k.key;
  principals.agentPrincipal = a.servicePrincipalId;
  keys.anonymous = null;
  principals.anonymous = '';
}, 120_000);
afterAll(() => stack?.close());

describe('authorization matrix', () => {
  for (const c of CASES) {
    it(`A2 A3 P6 ${c.mutation}: allowed for ${c.allowed.join(', ')}; denied and audited for everyone else, FORBIDDEN to those who can see the target and NOT_FOUND to the rest; a grant turns a denial into an allow`, async () => {
      for (const subject of SUBJECTS) {
        const before = await deniedCount(subject, c.mutation);
        const res = await call(c, subject);
        const result = res.body.data?.[c.mutation] as { __typename: string; code?: string; message?: string; missingGrant?: unknown } | undefined;
        if (subject === 'anonymous') {
          expect(res.body.errors?.[0]?.extensions?.code, `${c.mutation} as ${subject}`).toBe('UNAUTHENTICATED');
          await waitFor(async () => (await deniedCount(subject, c.mutation)) > before, `audit of the anonymous ${c.mutation}`, 5000);
          continue;
        }
        if (c.allowed.includes(subject)) {
          expect(String(result?.__typename), `${c.mutation} as ${subject}: ${JSON.stringify(res.body)}`).toMatch(/Success$/);
          continue;
        }
        const expected = c.readers.includes(subject) ? 'ForbiddenError' : 'NotFoundError';
        expect(result?.__typename, `P6 ${c.mutation} as ${subject}: ${JSON.stringify(res.body)}`).toBe(expected);
        if (expected === 'ForbiddenError') expect(result).toMatchObject({ code: 'FORBIDDEN', message: 'You are not allowed to do this.', missingGrant: null });
        else expect(result).toMatchObject({ code: 'NOT_FOUND' });
        expect(await deniedCount(subject, c.mutation), `${c.mutation} as ${subject} audited`).toBeGreaterThan(before);

        const bindingId = await c.grant(principals[subject]);
        try {
          const granted = await call(c, subject);
          const r = granted.body.data?.[c.mutation] as { __typename: string } | undefined;
          expect(r?.__typename, `${c.mutation} as ${subject} once granted: ${JSON.stringify(granted.body)}`).toMatch(/Success$/);
        } finally {
          await stack.runtime.db.accessBinding.delete({ where: { id: bindingId } });
        }
      }
    });
  }
});
