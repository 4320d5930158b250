import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { INSTALLATION_ID_LABEL, MANAGED_BY, MANAGED_BY_LABEL, NAMESPACE_ID_LABEL, SECRET_ID_LABEL, secretLabels } from '@occ/domain/kubernetes-names';
import { uuidOf } from '@occ/domain/ids';
import { startKubeEmulator, type KubeEmulator } from '@occ/kube-emulator/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createDb, type Db } from '../db/client.ts';
import { startEmbeddedPostgres } from '../db/embedded-postgres.ts';
import { ForeignNamespaceError } from '../drivers/kubernetes-namespaces.ts';
import { createDatabaseFromTemplate, testDatabaseMode } from '../test/database.ts';
import { createReadyNamespace, payload } from '../test/operations.ts';
import { pgliteImage, startTestStack, type TestStack } from '../test/stack.ts';
import { hashToken } from './api-keys.ts';
import { BootstrapKeyUndeliverableError, ensureInstallation } from './bootstrap-installation.ts';
import { BOOTSTRAP_SECRET_KEY, bootstrapKeyDelivery } from './bootstrap-key-delivery.ts';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** An empty, migrated database: a clone of the template on PostgreSQL, an in-memory PGlite otherwise. */
async function emptyDatabase(): Promise<string> {
  if (testDatabaseMode() === 'postgres') {
    const db = await createDatabaseFromTemplate(process.env.DATABASE_URL!, inject('templateDatabase'));
    cleanups.push(() => db.drop());
    return db.url;
  }
  // From the global setup's migrated image: initdb and the migrations in Wasm per call took most
  // of this file's time, and passed a test's timeout with two files at a time.
  const pg = await startEmbeddedPostgres({ image: await pgliteImage() });
  cleanups.push(() => pg.close());
  return pg.url;
}

function pool(url: string, size = 2): Db {
  const db = createDb(url, { poolSize: size });
  cleanups.push(() => db.$disconnect());
  return db;
}

let kube: KubeEmulator;
beforeAll(async () => {
  kube = await startKubeEmulator({});
  cleanups.push(() => kube.close());
});

describe('R3 bootstrap', () => {
  // PGlite is one session and runs one statement at a time, so replicas there cannot race.
  it.runIf(testDatabaseMode() === 'postgres')(
    'R3 five replicas starting at once against an empty database make one bootstrap principal and one key, and none fails (PostgreSQL only: PGlite serializes sessions)',
    async () => {
      const url = await emptyDatabase();
      const replicas = Array.from({ length: 5 }, () => pool(url));
      const results = await Promise.allSettled(replicas.map((db) => ensureInstallation(db)));
      expect(results.map((r) => r.status)).toEqual(Array(5).fill('fulfilled'));
      const states = results.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof ensureInstallation>>>).value);
      expect(new Set(states.map((s) => s.installationId)).size).toBe(1);
      expect(new Set(states.map((s) => s.bootstrapPrincipalId)).size).toBe(1);
      const keys = states.map((s) => s.bootstrapApiKey).filter((k) => k !== null);
      expect(keys).toHaveLength(1);
      const db = replicas[0]!;
      expect(await db.installation.count()).toBe(1);
      expect(await db.principal.count({ where: { name: 'bootstrap' } })).toBe(1);
      const apiKeys = await db.apiKey.findMany();
      expect(apiKeys.map((k) => k.hash)).toEqual([hashToken(keys[0]!)]);
      expect(await db.auditEvent.count({ where: { action: 'installation.bootstrap' } })).toBe(1);
    },
    60_000,
  );

  it('R3 the installation id is random and recorded once: a later start reads the same one', async () => {
    const url = await emptyDatabase();
    const db = pool(url);
    const first = await ensureInstallation(db);
    expect(first.installationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const again = await ensureInstallation(db);
    expect(again).toMatchObject({ installationId: first.installationId, bootstrapApiKey: null });
    const other = await ensureInstallation(pool(await emptyDatabase()));
    expect(other.installationId).not.toBe(first.installationId);
  });

  it('R3 in production the bootstrap key goes to the configured Kubernetes Secret, labelled with the installation id, and is not returned for printing', async () => {
    const db = pool(await emptyDatabase());
    const ref = { namespace: 'default', name: `occ-bootstrap-${Date.now().toString(36)}` };
    const state = await ensureInstallation(db, bootstrapKeyDelivery({ production: true, bootstrapSecret: ref, bootstrapKeyFile: null }, kube.kubeConfig()));
    expect(state.bootstrapApiKey).toBeNull();
    expect(state.bootstrapKeyDeliveredTo).toContain(`${ref.namespace}/${ref.name}`);
    const secret = await kube.kubeConfig().makeApiClient(CoreV1Api).readNamespacedSecret(ref);
    const key = Buffer.from(secret.data![BOOTSTRAP_SECRET_KEY]!, 'base64').toString('utf8');
    expect((await db.apiKey.findMany()).map((k) => k.hash)).toEqual([hashToken(key)]);
    expect(secret.metadata?.labels).toMatchObject({ [INSTALLATION_ID_LABEL]: state.installationId, [MANAGED_BY_LABEL]: MANAGED_BY });
    // Never overwritten: a second installation configured with the same Secret refuses and leaves nothing behind.
    const second = pool(await emptyDatabase());
    const refused = await ensureInstallation(second, bootstrapKeyDelivery({ production: true, bootstrapSecret: ref, bootstrapKeyFile: null }, kube.kubeConfig())).catch((e: unknown) => e);
    expect(String(refused)).toMatch(/exists already/);
    expect(await second.installation.count()).toBe(0);
    expect(Buffer.from((await kube.kubeConfig().makeApiClient(CoreV1Api).readNamespacedSecret(ref)).data![BOOTSTRAP_SECRET_KEY]!, 'base64').toString()).toBe(key);
  });

  it('R3 in production the bootstrap key goes to the configured file with mode 0600; with neither a Secret nor a file the bootstrap is refused', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'occ-r3-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'bootstrap-key');
    const db = pool(await emptyDatabase());
    const state = await ensureInstallation(db, bootstrapKeyDelivery({ production: true, bootstrapSecret: null, bootstrapKeyFile: file }, kube.kubeConfig()));
    expect(state.bootstrapApiKey).toBeNull();
    const key = (await readFile(file, 'utf8')).trim();
    expect((await db.apiKey.findMany()).map((k) => k.hash)).toEqual([hashToken(key)]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const existing = path.join(dir, 'taken');
    await writeFile(existing, 'someone else\n');
    const other = pool(await emptyDatabase());
    await expect(ensureInstallation(other, bootstrapKeyDelivery({ production: true, bootstrapSecret: null, bootstrapKeyFile: existing }, kube.kubeConfig()))).rejects.toThrow(/EEXIST/);
    expect(await readFile(existing, 'utf8')).toBe('someone else\n');
    expect(await other.installation.count()).toBe(0);

    const nowhere = pool(await emptyDatabase());
    await expect(ensureInstallation(nowhere, bootstrapKeyDelivery({ production: true, bootstrapSecret: null, bootstrapKeyFile: null }, kube.kubeConfig()))).rejects.toBeInstanceOf(
      BootstrapKeyUndeliverableError,
    );
    expect(await nowhere.installation.count()).toBe(0);
    expect(await nowhere.apiKey.count()).toBe(0);
  });
});

describe('R3 two installations on one cluster', () => {
  let a: TestStack;
  let b: TestStack;
  beforeAll(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'occ-r3-two-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const kubeconfig = path.join(dir, 'kubeconfig.yaml');
    await writeFile(kubeconfig, kube.kubeconfigYaml());
    a = await startTestStack({ kubeconfig });
    b = await startTestStack({ kubeconfig });
    cleanups.push(() => a.close(), () => b.close());
  }, 120_000);

  const CREATE_SECRET = `mutation($input: CreateSecretInput!) { createSecret(input: $input) { __typename ... on CreateSecretSuccess { secret { id } } ... on Error { code } } }`;

  it('R3 each installation labels its objects with its own id, and never lists, adopts or resolves the other\'s', async () => {
    expect(a.runtime.installation.installationId).not.toBe(b.runtime.installation.installationId);
    const nsA = await createReadyNamespace(a, 'r3-a');
    const nsB = await createReadyNamespace(b, 'r3-b');
    const rowA = await a.runtime.db.namespace.findUniqueOrThrow({ where: { id: nsA } });
    const rowB = await b.runtime.db.namespace.findUniqueOrThrow({ where: { id: nsB } });
    expect((await a.core.readNamespace({ name: rowA.k8sName })).metadata?.labels?.[INSTALLATION_ID_LABEL]).toBe(a.runtime.installation.installationId);
    expect((await a.core.readNamespace({ name: rowB.k8sName })).metadata?.labels?.[INSTALLATION_ID_LABEL]).toBe(b.runtime.installation.installationId);

    const secretA = payload(await a.gql(CREATE_SECRET, { input: { namespaceId: nsA, name: 'a', value: 'value-a' } }), 'createSecret');
    expect(secretA.__typename).toBe('CreateSecretSuccess');
    const backendA = await a.runtime.db.secret.findUniqueOrThrow({ where: { id: secretA.secret.id } });
    const liveA = await a.core.readNamespacedSecret({ name: backendA.backendName, namespace: backendA.backendNamespace });
    expect(liveA.metadata?.labels?.[INSTALLATION_ID_LABEL]).toBe(a.runtime.installation.installationId);

    // Objects labelled by A placed in B's Kubernetes namespace, next to one of B's own orphans.
    const plant = (installationId: string, name: string) =>
      b.core.createNamespacedSecret({
        namespace: rowB.k8sName,
        body: { metadata: { name, labels: secretLabels(nsB, 'sec_00000000-0000-4000-8000-000000000001', installationId) }, data: { value: 'eA==' } },
      });
    await plant(a.runtime.installation.installationId, 'planted-by-a');
    await plant(b.runtime.installation.installationId, 'orphan-of-b');
    const ORPHANS = `{ orphanedSecretBackends { ... on OrphanedSecretBackends { items { name } } } }`;
    const orphans = payload(await b.gql(ORPHANS), 'orphanedSecretBackends');
    expect(orphans.items.map((o: { name: string }) => o.name)).toEqual(['orphan-of-b']);

    // B's namespace driver never adopts A's Kubernetes namespace, even named and labelled for the same namespace id.
    await expect(b.runtime.deps.namespaceDriver.ensure(rowA.k8sName, nsA)).rejects.toBeInstanceOf(ForeignNamespaceError);
    await expect(a.runtime.deps.namespaceDriver.ensure(rowA.k8sName, nsA)).resolves.toBeUndefined();

    // B's secret driver sees A's object as not its own.
    const ref = { k8sNamespace: backendA.backendNamespace, name: backendA.backendName, key: 'value', uid: backendA.backendUid };
    expect((await b.runtime.deps.secretDriver.resolve(ref, { namespaceId: nsA, secretId: secretA.secret.id })).state).toBe('mismatch');
    expect((await a.runtime.deps.secretDriver.resolve(ref, { namespaceId: nsA, secretId: secretA.secret.id })).state).toBe('present');
    await expect(b.runtime.deps.secretDriver.update(ref, { namespaceId: nsA, secretId: secretA.secret.id }, 'overwritten')).rejects.toThrow();
    expect(liveA.metadata?.labels).toMatchObject({ [NAMESPACE_ID_LABEL]: uuidOf(nsA), [SECRET_ID_LABEL]: uuidOf(secretA.secret.id) });
  });
});
