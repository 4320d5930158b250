// SelfConfig bench (issue 10, item 8), run by the API workspace's `npm run bench`.
//
// 200 OpenClawSelfConfig requests over 20 instances, created at once, until every one is
// terminal: requests per second, and Kubernetes API requests the controller made per request
// (counted by its client, by verb). Side by side in this run, the floor for the same changes
// without the controller: one GET and one server-side apply per request, made directly. The
// ratio says what the controller's bookkeeping (Pending, events, owner reference, status,
// history in PostgreSQL) costs over the bare apply; nothing is asserted (this machine is shared).
// Everything goes through client-node over HTTP to the embedded API server. PostgreSQL: a scratch
// database created beside DATABASE_URL's (and dropped after) when it is set, else embedded PGlite.

import pg from 'pg';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { OPENCLAW_CRD_DIR } from '../../packages/kube-emulator/src/crds.ts';
import { startKubeEmulator } from '../../packages/kube-emulator/src/server.ts';
import { createDb } from '../../apps/api/src/db/client.ts';
import { startEmbeddedPostgres } from '../../apps/api/src/db/embedded-postgres.ts';
import { migrateDatabase } from '../../apps/api/src/db/migrate.ts';
import { createLogger } from '../../apps/api/src/log.ts';
import { kubernetesSelfConfigCluster } from '../../apps/api/src/selfconfig/cluster.ts';
import { createSelfConfigController } from '../../apps/api/src/selfconfig/controller.ts';

const INSTANCES = 20;
const REQUESTS = 200;
const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';
const ssa = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
const instanceName = (i: number) => `agent-00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

async function scratchDatabase(url: string): Promise<{ url: string; close(): Promise<void> }> {
  const name = `occ_bench_selfconfig_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return {
    url: scratch.toString(),
    async close() {
      const again = new pg.Client({ connectionString: url });
      await again.connect();
      await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await again.end();
    },
  };
}

const emulator = await startKubeEmulator({ crdDirs: [OPENCLAW_CRD_DIR] });
const database = process.env.DATABASE_URL ? await scratchDatabase(process.env.DATABASE_URL) : await startEmbeddedPostgres({});
const databaseUrl = database.url;
try {
  await migrateDatabase(databaseUrl);
  const db = createDb(databaseUrl, { poolSize: process.env.DATABASE_URL ? 8 : 1 });
  const kubeConfig = emulator.kubeConfig();
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const core = kubeConfig.makeApiClient(CoreV1Api);

  async function setUp(namespace: string): Promise<void> {
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    for (let i = 0; i < INSTANCES; i++) {
      await custom.patchNamespacedCustomObject(
        {
          group: GROUP, version: VERSION, plural: 'openclawinstances', namespace, name: instanceName(i), fieldManager: 'occ-controller', force: true,
          body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawInstance', metadata: { name: instanceName(i) }, spec: { image: 'i', skills: ['base'], selfConfigure: { enabled: true, allowedActions: ['skills', 'envVars'] } } },
        },
        ssa,
      );
    }
  }
  const change = (r: number) => ({ addSkills: [`skill-${r}`], addEnvVars: [{ name: `VAR_${r}`, value: String(r) }] });

  // The floor: what the same 200 changes cost as direct GET + apply pairs, 4 at a time.
  await setUp('floor');
  const floorStart = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let r = next++; r < REQUESTS; r = next++) {
        const name = instanceName(r % INSTANCES);
        const live = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawinstances', namespace: 'floor', name })) as { metadata: { resourceVersion: string } };
        const c = change(r);
        await custom.patchNamespacedCustomObject(
          {
            group: GROUP, version: VERSION, plural: 'openclawinstances', namespace: 'floor', name, fieldManager: `bench-${r}`, force: true,
            body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawInstance', metadata: { name, resourceVersion: live.metadata.resourceVersion }, spec: { skills: c.addSkills, env: c.addEnvVars } },
          },
          ssa,
        ).catch(() => undefined);
      }
    }),
  );
  const floorMs = performance.now() - floorStart;

  // The controller, with its own counting client, on requests created all at once.
  await setUp('bench');
  const cluster = kubernetesSelfConfigCluster(kubeConfig);
  const controller = createSelfConfigController({ cluster, db, logger: createLogger(() => undefined, 'error'), resyncMs: 3_600_000 });
  controller.start();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: REQUESTS }, (_, r) =>
      custom.createNamespacedCustomObject({
        group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: 'bench',
        body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawSelfConfig', metadata: { name: `req-${r}` }, spec: { instanceRef: instanceName(r % INSTANCES), ...change(r) } },
      }),
    ),
  );
  const phases = new Map<string, number>();
  for (;;) {
    const list = (await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: 'bench' })) as { items: Array<{ status?: { phase?: string } }> };
    phases.clear();
    for (const item of list.items) phases.set(item.status?.phase ?? 'none', (phases.get(item.status?.phase ?? 'none') ?? 0) + 1);
    const terminal = (phases.get('Applied') ?? 0) + (phases.get('Failed') ?? 0) + (phases.get('Denied') ?? 0);
    if (terminal === REQUESTS) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const controllerMs = performance.now() - started;
  await controller.stop();
  await db.$disconnect();

  const calls = Object.values(cluster.calls).reduce((a, b) => a + b, 0);
  const perRequest = Object.fromEntries(Object.entries(cluster.calls).map(([verb, n]) => [verb, +(n / REQUESTS).toFixed(2)]));
  const rps = (REQUESTS / controllerMs) * 1000;
  const floorRps = (REQUESTS / floorMs) * 1000;
  console.log(`selfconfig: ${REQUESTS} requests over ${INSTANCES} instances, phases ${JSON.stringify(Object.fromEntries(phases))}`);
  console.log(`  controller: ${rps.toFixed(1)} requests/s until terminal (${controllerMs.toFixed(0)} ms)`);
  console.log(`  floor (GET + apply, no controller): ${floorRps.toFixed(1)} changes/s (${floorMs.toFixed(0)} ms)`);
  console.log(`  ratio controller/floor: ${(rps / floorRps).toFixed(2)}`);
  console.log(`  Kubernetes API requests per request: ${(calls / REQUESTS).toFixed(2)} ${JSON.stringify(perRequest)} (floor: 2.00)`);
} finally {
  await emulator.close();
  await database.close();
}
