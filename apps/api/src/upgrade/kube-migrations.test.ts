import { PatchStrategy, setHeaderOptions, type V1ConfigMap } from '@kubernetes/client-node';
import { INSTALLATION_ID_LABEL, MANAGED_BY, MANAGED_BY_LABEL, NAMESPACE_ID_LABEL, SECRET_ID_LABEL } from '@occ/domain/kubernetes-names';
import { uuidOf } from '@occ/domain/ids';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../log.ts';
import { createReadyNamespace, createSecretOk, SECRET, UPDATE_SECRET } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { KUBE_MIGRATIONS, migrateKubernetesObjects } from './kube-migrations.ts';

// Kubernetes objects migrate with the schema. These tests write what an earlier release
// wrote (its objects without openclaw.rocks/installation-id), run the recorded step as a start does,
// and read the result as a user would: labels through the Kubernetes API, updateSecret over GraphQL.

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const logger = createLogger(() => {}, 'error');
const OTHER_INSTALLATION = '11111111-2222-4333-8444-555555555555';
const OTHER_NAMESPACE = '99999999-8888-4777-8666-555555555555';

let stack: TestStack | null = null;
afterEach(async () => {
  await stack?.close();
  stack = null;
});

async function sql<T extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** What a start does, with the step's record removed first: the state as the earlier release left it. */
async function migrateAgain(s: TestStack, beforeWrite?: Parameters<typeof migrateKubernetesObjects>[0]['beforeWrite']) {
  return migrateKubernetesObjects({ databaseUrl: s.databaseUrl, kubeConfig: s.kubeConfig, installationId: s.runtime.installation.installationId, logger, ...(beforeWrite ? { beforeWrite } : {}) });
}

async function k8sNamespaceOf(s: TestStack, namespaceId: string): Promise<string> {
  return (await sql<{ k8sName: string }>(s.databaseUrl, 'SELECT "k8sName" FROM "Namespace" WHERE id = $1', [namespaceId]))[0]!.k8sName;
}

async function backendOf(s: TestStack, secretId: string): Promise<{ name: string; uid: string }> {
  const read = await s.gql(SECRET, { id: secretId });
  return read.body.data!.secret.backendLocator as { name: string; uid: string };
}

/** Takes the installation-id label off, as releases before R3 wrote their objects. */
async function asEarlierRelease(s: TestStack, k8sNamespace: string, secretNames: string[]): Promise<void> {
  const body = { metadata: { labels: { [INSTALLATION_ID_LABEL]: null } } };
  await s.core.patchNamespace({ name: k8sNamespace, body }, mergePatch);
  for (const name of secretNames) await s.core.patchNamespacedSecret({ name, namespace: k8sNamespace, body }, mergePatch);
}

async function labelsOfSecret(s: TestStack, k8sNamespace: string, name: string) {
  return (await s.core.readNamespacedSecret({ name, namespace: k8sNamespace })).metadata?.labels ?? {};
}

describe('Kubernetes object migrations', () => {
  it('R2 D3 what an earlier release wrote is labelled once and recorded; a replaced Secret and another installation\'s object are left, and D3 still refuses the replaced one', async () => {
    stack = await startTestStack();
    const s = stack;
    const installationId = s.runtime.installation.installationId;
    const namespaceId = await createReadyNamespace(s, 'upgrade-labels');
    const k8sNamespace = await k8sNamespaceOf(s, namespaceId);
    const old = await createSecretOk(s, namespaceId, 'old', 'value-old');
    const replaced = await createSecretOk(s, namespaceId, 'replaced', 'value-replaced');
    const oldBackend = await backendOf(s, old.id);
    const replacedBackend = await backendOf(s, replaced.id);
    await asEarlierRelease(s, k8sNamespace, [oldBackend.name]);
    // Someone replaced one Secret with an object of the same name and labels (another uid).
    const replacedLabels = await labelsOfSecret(s, k8sNamespace, replacedBackend.name);
    await s.core.deleteNamespacedSecret({ name: replacedBackend.name, namespace: k8sNamespace });
    const { [INSTALLATION_ID_LABEL]: _dropped, ...withoutInstallation } = replacedLabels;
    await s.core.createNamespacedSecret({ namespace: k8sNamespace, body: { metadata: { name: replacedBackend.name, labels: withoutInstallation }, stringData: { value: 'foreign' } } });
    const foreign: V1ConfigMap = { metadata: { name: 'another-installations', labels: { [MANAGED_BY_LABEL]: MANAGED_BY, [INSTALLATION_ID_LABEL]: OTHER_INSTALLATION } } };
    const oldConfigMap: V1ConfigMap = { metadata: { name: 'written-before-r3', labels: { [MANAGED_BY_LABEL]: MANAGED_BY, [NAMESPACE_ID_LABEL]: uuidOf(namespaceId) } } };
    await s.core.createNamespacedConfigMap({ namespace: k8sNamespace, body: foreign });
    await s.core.createNamespacedConfigMap({ namespace: k8sNamespace, body: oldConfigMap });

    // Before the step: the old Secret is told apart from a replaced one (D3).
    const before = await s.gql(UPDATE_SECRET, { input: { id: old.id, value: 'value-2' } });
    expect(before.body.data!.updateSecret).toMatchObject({ __typename: 'ConflictError', code: 'BACKEND_NOT_MIGRATED' });
    expect(before.body.data!.updateSecret.message).toMatch(/earlier release and is not migrated yet.*installation-id/);
    const replacedBefore = await s.gql(UPDATE_SECRET, { input: { id: replaced.id, value: 'value-2' } });
    expect(replacedBefore.body.data!.updateSecret).toMatchObject({ code: 'BACKEND_IDENTITY_CHANGED' });
    expect(replacedBefore.body.data!.updateSecret.message).toContain('uid');

    await sql(s.databaseUrl, 'DELETE FROM "KubernetesMigration"');
    const writes: string[] = [];
    const applied = await migrateAgain(s, async (o) => void writes.push(`${o.kind}/${o.name}`));
    expect(applied.map((a) => a.id)).toEqual(KUBE_MIGRATIONS.map((m) => m.id));
    expect(writes.sort()).toEqual([`ConfigMap/written-before-r3`, `Namespace/${k8sNamespace}`, `Secret/${oldBackend.name}`].sort());
    const report = applied[0]!.report;
    expect(report.changed).toBe(3);
    expect(report.skipped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'Secret', name: replacedBackend.name, reason: expect.stringContaining('replaced') }),
        expect.objectContaining({ kind: 'ConfigMap', name: 'another-installations', reason: expect.stringContaining("another installation's") }),
      ]),
    );
    const recorded = await sql<{ id: string; changed: number; skipped: unknown[] }>(s.databaseUrl, 'SELECT id, changed, skipped FROM "KubernetesMigration" WHERE id = $1', [KUBE_MIGRATIONS[0]!.id]);
    expect(recorded).toEqual([{ id: KUBE_MIGRATIONS[0]!.id, changed: 3, skipped: expect.any(Array) }]);
    expect(JSON.stringify(recorded)).not.toContain('value-');

    // Read back as a user would.
    expect((await s.core.readNamespace({ name: k8sNamespace })).metadata?.labels?.[INSTALLATION_ID_LABEL]).toBe(installationId);
    expect(await labelsOfSecret(s, k8sNamespace, oldBackend.name)).toMatchObject({ [INSTALLATION_ID_LABEL]: installationId, [SECRET_ID_LABEL]: uuidOf(old.id) });
    expect((await labelsOfSecret(s, k8sNamespace, replacedBackend.name))[INSTALLATION_ID_LABEL]).toBeUndefined();
    expect((await s.core.readNamespacedConfigMap({ name: 'another-installations', namespace: k8sNamespace })).metadata?.labels?.[INSTALLATION_ID_LABEL]).toBe(OTHER_INSTALLATION);
    expect((await s.core.readNamespacedConfigMap({ name: 'written-before-r3', namespace: k8sNamespace })).metadata?.labels?.[INSTALLATION_ID_LABEL]).toBe(installationId);
    const after = await s.gql(UPDATE_SECRET, { input: { id: old.id, value: 'value-2' } });
    expect(after.body.data!.updateSecret).toMatchObject({ __typename: 'UpdateSecretSuccess', secret: { version: 2 } });
    const replacedAfter = await s.gql(UPDATE_SECRET, { input: { id: replaced.id, value: 'value-2' } });
    expect(replacedAfter.body.data!.updateSecret).toMatchObject({ code: 'BACKEND_IDENTITY_CHANGED' });

    // Recorded: the next start runs nothing; run anyway, it writes nothing.
    expect(await migrateAgain(s)).toEqual([]);
    await sql(s.databaseUrl, 'DELETE FROM "KubernetesMigration"');
    const again: string[] = [];
    const rerun = await migrateAgain(s, async (o) => void again.push(o.name));
    expect(again).toEqual([]);
    expect(rerun[0]!.report.changed).toBe(0);
  });

  it('R2 a step stopped half-way is not recorded and the next start finishes it, writing no object twice', async () => {
    stack = await startTestStack();
    const s = stack;
    const namespaceId = await createReadyNamespace(s, 'upgrade-resume');
    const k8sNamespace = await k8sNamespaceOf(s, namespaceId);
    const names: string[] = [];
    for (let i = 0; i < 5; i++) names.push((await backendOf(s, (await createSecretOk(s, namespaceId, `s${i}`, `v${i}`)).id)).name);
    await asEarlierRelease(s, k8sNamespace, names);
    await sql(s.databaseUrl, 'DELETE FROM "KubernetesMigration"');

    const writes: string[] = [];
    await expect(
      migrateAgain(s, async (o) => {
        if (writes.length === 3) throw new Error('the process died here');
        writes.push(o.name);
      }),
    ).rejects.toThrow('the process died here');
    expect(await sql(s.databaseUrl, 'SELECT id FROM "KubernetesMigration"')).toEqual([]);
    const labelled = async () => (await Promise.all(names.map((n) => labelsOfSecret(s, k8sNamespace, n)))).filter((l) => l[INSTALLATION_ID_LABEL]).length;
    expect(await labelled()).toBe(2); // the namespace, then two Secrets

    const resumed: string[] = [];
    await migrateAgain(s, async (o) => void resumed.push(o.name));
    expect(await labelled()).toBe(5);
    expect([...writes, ...resumed].sort()).toEqual([k8sNamespace, ...names].sort());
    expect(await sql(s.databaseUrl, 'SELECT id FROM "KubernetesMigration"')).toHaveLength(KUBE_MIGRATIONS.length);
  });

  it('R3 every combination of the three ownership labels: only an object managed by the product, of this namespace or none, and of this installation or none, is labelled', async () => {
    stack = await startTestStack();
    const s = stack;
    const installationId = s.runtime.installation.installationId;
    const namespaceId = await createReadyNamespace(s, 'upgrade-matrix');
    const k8sNamespace = await k8sNamespaceOf(s, namespaceId);
    const values = {
      [MANAGED_BY_LABEL]: [MANAGED_BY, 'helm', undefined],
      [NAMESPACE_ID_LABEL]: [uuidOf(namespaceId), OTHER_NAMESPACE, undefined],
      [INSTALLATION_ID_LABEL]: [installationId, OTHER_INSTALLATION, undefined],
    } as const;
    const cases: Array<{ name: string; labels: Record<string, string>; expected: boolean }> = [];
    for (const [m, managed] of values[MANAGED_BY_LABEL].entries())
      for (const [n, ns] of values[NAMESPACE_ID_LABEL].entries())
        for (const [i, inst] of values[INSTALLATION_ID_LABEL].entries()) {
          const labels: Record<string, string> = {};
          if (managed) labels[MANAGED_BY_LABEL] = managed;
          if (ns) labels[NAMESPACE_ID_LABEL] = ns;
          if (inst) labels[INSTALLATION_ID_LABEL] = inst;
          cases.push({ name: `cm-${m}${n}${i}`, labels, expected: m === 0 && n !== 1 && i !== 1 });
        }
    for (const c of cases) await s.core.createNamespacedConfigMap({ namespace: k8sNamespace, body: { metadata: { name: c.name, labels: c.labels } } });
    await sql(s.databaseUrl, 'DELETE FROM "KubernetesMigration"');
    await migrateAgain(s);
    for (const c of cases) {
      const labels = (await s.core.readNamespacedConfigMap({ name: c.name, namespace: k8sNamespace })).metadata?.labels ?? {};
      const want = c.expected ? { ...c.labels, [INSTALLATION_ID_LABEL]: installationId, [NAMESPACE_ID_LABEL]: uuidOf(namespaceId) } : c.labels;
      expect({ name: c.name, labels }).toEqual({ name: c.name, labels: want });
    }
  });

  it('R2 K1 namespaces made before 2026.12.04.2 get the Pod Security restricted labels once; every enforce label an operator set (any value), another installation\'s namespace and a lost one are left, each listed with why', async () => {
    stack = await startTestStack();
    const s = stack;
    const ENFORCE = 'pod-security.kubernetes.io/enforce';
    const VERSION = 'pod-security.kubernetes.io/enforce-version';
    // Each case: the labels the namespace has before the step (null removes one), what it must have after.
    const cases: Array<{ name: string; before: Record<string, string | null>; after: Record<string, string | undefined>; skipped?: RegExp }> = [
      { name: 'none', before: { [ENFORCE]: null, [VERSION]: null }, after: { [ENFORCE]: 'restricted', [VERSION]: 'latest' } },
      { name: 'version-only', before: { [ENFORCE]: null, [VERSION]: 'v1.30' }, after: { [ENFORCE]: 'restricted', [VERSION]: 'latest' } },
      { name: 'restricted', before: {}, after: { [ENFORCE]: 'restricted', [VERSION]: 'latest' } },
      { name: 'baseline', before: { [ENFORCE]: 'baseline', [VERSION]: null }, after: { [ENFORCE]: 'baseline', [VERSION]: undefined }, skipped: /set by an operator/ },
      { name: 'privileged', before: { [ENFORCE]: 'privileged' }, after: { [ENFORCE]: 'privileged', [VERSION]: 'latest' }, skipped: /set by an operator/ },
      { name: 'foreign', before: { [ENFORCE]: null, [VERSION]: null, [INSTALLATION_ID_LABEL]: OTHER_INSTALLATION }, after: { [ENFORCE]: undefined, [VERSION]: undefined }, skipped: /another installation's/ },
    ];
    const k8sNames = new Map<string, string>();
    for (const c of cases) {
      const k8sName = await k8sNamespaceOf(s, await createReadyNamespace(s, `psa-${c.name}`));
      k8sNames.set(c.name, k8sName);
      await s.core.patchNamespace({ name: k8sName, body: { metadata: { labels: c.before } } }, mergePatch);
    }
    const lost = await k8sNamespaceOf(s, await createReadyNamespace(s, 'psa-lost'));
    await s.core.deleteNamespace({ name: lost });

    await sql(s.databaseUrl, 'DELETE FROM "KubernetesMigration"');
    const writes: string[] = [];
    const applied = await migrateAgain(s, async (o) => void writes.push(`${o.kind}/${o.name}`));
    const step = applied.find((a) => a.id === '2026-12-04-pod-security-labels');
    expect(step).toBeDefined();
    // Read back through the Kubernetes API, as an operator would.
    for (const c of cases) {
      const labels = (await s.core.readNamespace({ name: k8sNames.get(c.name)! })).metadata?.labels ?? {};
      expect({ name: c.name, enforce: labels[ENFORCE], version: labels[VERSION] }).toEqual({ name: c.name, enforce: c.after[ENFORCE], version: c.after[VERSION] });
      const listed = step!.report.skipped.find((k) => k.name === k8sNames.get(c.name));
      if (c.skipped) expect(listed?.reason, c.name).toMatch(c.skipped);
      else expect(listed, c.name).toBeUndefined();
    }
    expect(step!.report.skipped.find((k) => k.name === lost)?.reason).toMatch(/missing/);
    expect(step!.report.changed).toBe(2);
    expect(writes.filter((w) => w.startsWith('Namespace/')).sort()).toEqual([`Namespace/${k8sNames.get('none')}`, `Namespace/${k8sNames.get('version-only')}`].sort());

    // Run again (a start after a crash before the record): nothing is written.
    await sql(s.databaseUrl, 'DELETE FROM "KubernetesMigration"');
    const again: string[] = [];
    const rerun = await migrateAgain(s, async (o) => void again.push(o.name));
    expect(again).toEqual([]);
    expect(rerun.find((a) => a.id === '2026-12-04-pod-security-labels')!.report.changed).toBe(0);
  });
});
