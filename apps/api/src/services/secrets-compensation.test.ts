import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANAGED_BY_LABEL } from '@occ/domain/kubernetes-names';
import { startPgProxy, type PgProxy } from '../test/pg-proxy.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { CREATE_SECRET, createReadyNamespace, payload } from '../test/operations.ts';
import { createHumanPrincipal, grantBuiltInRole } from './principals.ts';

// Rule S5: what happens to the Kubernetes Secret when the database commit fails.

let stack: TestStack;
let proxy: PgProxy | null = null;
let nsId: string;
let k8sNs: string;

beforeAll(async () => {
  stack = await startTestStack({
    connectVia: async (url) => {
      proxy = await startPgProxy(url);
      return proxy.url(url);
    },
  });
  nsId = await createReadyNamespace(stack, 'team-s5');
  k8sNs = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: nsId } })).k8sName;
  // A deferred constraint trigger fails the commit itself (SQLSTATE 23514) for one secret name,
  // so the failure happens after the Kubernetes Secret exists and after every statement ran.
  await stack.runtime.db.$executeRawUnsafe(`
    CREATE FUNCTION reject_doomed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.name = 'doomed' THEN RAISE EXCEPTION 'commit rejected by test' USING ERRCODE = 'check_violation'; END IF;
      RETURN NEW;
    END $$`);
  await stack.runtime.db.$executeRawUnsafe(`
    CREATE CONSTRAINT TRIGGER reject_doomed AFTER INSERT ON "Secret" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION reject_doomed()`);
});
afterAll(async () => {
  // The proxy first: it holds the app's connections, and the pool's end waits on them.
  await proxy?.close();
  await stack?.close();
});

async function ourObjects(): Promise<Array<{ name: string; uid: string; secretId: string }>> {
  const list = await stack.core.listNamespacedSecret({ namespace: k8sNs, labelSelector: MANAGED_BY_LABEL });
  return list.items.map((s) => ({ name: s.metadata!.name!, uid: s.metadata!.uid!, secretId: s.metadata!.labels!['openclaw.rocks/secret-id']! }));
}

describe('S5 compensation', () => {
  it('S5 a commit known to have failed deletes exactly the created Kubernetes Secret', async () => {
    const before = await ourObjects();
    const result = await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'doomed', value: 'v' } });
    // An unexpected failure is a masked GraphQL error, not a result member.
    expect(result.body.errors?.[0]?.message).toBe('Unexpected error.');
    expect(await ourObjects()).toEqual(before);
    expect(await stack.runtime.db.secret.count({ where: { name: 'doomed' } })).toBe(0);
    expect(stack.logs.some((l) => l.includes('backend object deleted'))).toBe(true);
  });

  it('S5 a failed commit gives its connection back: more failures than the pool has connections, then a create succeeds', async () => {
    for (let i = 0; i < 10; i++) {
      const result = await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'doomed', value: 'v' } });
      expect(result.body.errors?.[0]?.message).toBe('Unexpected error.');
    }
    const ok = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'after-failures', value: 'v' } }), 'createSecret');
    expect(ok.__typename).toBe('CreateSecretSuccess');
  });

  it('S5 an unknown commit outcome deletes nothing and answers OUTCOME_UNKNOWN', async () => {
    const before = await ourObjects();
    proxy!.loseNextCommitReply();
    const result = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'limbo', value: 'v' } }), 'createSecret');
    expect(result).toMatchObject({ __typename: 'OutcomeUnknownError', code: 'OUTCOME_UNKNOWN' });
    const after = await ourObjects();
    expect(after.length).toBe(before.length + 1);
    // The COMMIT did reach the server: the metadata exists and still points at the live object.
    const row = await stack.runtime.db.secret.findFirstOrThrow({ where: { name: 'limbo' } });
    expect(after.find((o) => o.uid === row.backendUid)).toBeTruthy();
  });
});

describe('S5 orphans', () => {
  const ORPHANS = `{ orphanedSecretBackends { __typename ... on OrphanedSecretBackends { items { k8sNamespace name uid namespaceId secretId } } ... on Error { code } } }`;

  it('S5 a create whose Kubernetes answer is lost answers OUTCOME_UNKNOWN, records nothing, and the object is listed as an orphan', async () => {
    const before = await ourObjects();
    stack.runtime.emulator!.faults.add({ verb: 'create', path: `/api/v1/namespaces/${k8sNs}/secrets`, times: 1, action: { type: 'lose-response' } });
    const result = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'lost-answer', value: 'v' } }), 'createSecret');
    expect(result).toMatchObject({ __typename: 'OutcomeUnknownError', code: 'OUTCOME_UNKNOWN' });
    expect(await stack.runtime.db.secret.count({ where: { name: 'lost-answer' } })).toBe(0);
    const after = await ourObjects();
    const created = after.filter((o) => !before.some((b) => b.uid === o.uid));
    expect(created).toHaveLength(1);
    const listed = payload(await stack.gql(ORPHANS), 'orphanedSecretBackends');
    expect(listed.items).toContainEqual({ k8sNamespace: k8sNs, name: created[0]!.name, uid: created[0]!.uid, namespaceId: nsId, secretId: `sec_${created[0]!.secretId}` });
    // Objects that metadata points at are not orphans.
    const rows = await stack.runtime.db.secret.findMany({ select: { backendUid: true } });
    for (const row of rows) expect(listed.items.map((i: { uid: string }) => i.uid)).not.toContain(row.backendUid);
  });

  it('S5 only installation administrators list orphans', async () => {
    const user = await createHumanPrincipal(stack.runtime.db, 'not-admin', 'test');
    await grantBuiltInRole(stack.runtime.db, user.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: nsId }, 'test');
    expect(payload(await stack.gql(ORPHANS, {}, { key: user.apiKey }), 'orphanedSecretBackends')).toEqual({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
  });
});
