import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { createLogger } from './log.ts';
import { startRuntime } from './runtime.ts';
import { createSecret } from './services/secrets.ts';
import { dropDatabase, recreateDatabase, testDatabaseMode } from './test/database.ts';
import { waitFor } from './test/operations.ts';
import { createNamespace } from './services/namespaces.ts';
import type { Actor } from './services/deps.ts';

// The start path itself: `prisma migrate deploy`, the embedded servers and their data directory.

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const logger = createLogger(() => {}, 'error');

describe('runtime', () => {
  it('embedded defaults keep the database and the Kubernetes objects across a restart; the bootstrap key is shown only on the first start', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'occ-runtime-'));
    dirs.push(dataDir);
    const env = { dataDir, databaseUrl: null, kubeconfig: null };

    const first = await startRuntime({ env, logger });
    expect(first.embedded).toEqual({ postgres: true, kubernetes: true });
    expect(first.installation.bootstrapApiKey).toMatch(/^occ_/);
    const kubeconfig = await readFile(path.join(dataDir, 'kubeconfig.yaml'), 'utf8');
    expect(kubeconfig).toContain('server: https://127.0.0.1:'); // E5: HTTPS, with its CA in the kubeconfig
    expect(kubeconfig).toContain('certificate-authority-data:');
    const actor: Actor = { principalId: first.installation.bootstrapPrincipalId, kind: 'SERVICE', name: 'bootstrap', apiKeyId: 'n/a' };
    const ns = await createNamespace(first.deps, actor, { name: 'durable' });
    first.worker.kick();
    await waitFor(async () => (await first.db.namespace.findUnique({ where: { id: ns.id } }))?.status === 'READY', 'READY');
    const secret = await createSecret(first.deps, actor, { namespaceId: ns.id, name: 'kept', value: 'survives' });
    await first.close();

    const second = await startRuntime({ env, logger });
    try {
      // The embedded cluster serves the product's CRDs (K2) from deploy/crds.
      const crds = await second.kubeConfig.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
      expect(crds.items.map((c) => c.metadata?.name).sort()).toEqual(['openclawinstances.openclaw.rocks', 'openclawselfconfigs.openclaw.rocks']);
      expect(second.installation.bootstrapApiKey).toBeNull();
      expect(second.installation.bootstrapPrincipalId).toBe(first.installation.bootstrapPrincipalId);
      const row = await second.db.secret.findUniqueOrThrow({ where: { id: secret.id } });
      const resolved = await second.deps.secretDriver.resolve(secret.backend, { namespaceId: ns.id, secretId: secret.id });
      expect(resolved.state).toBe('present');
      expect(row.backendUid).toBe(secret.backend.uid);
    } finally {
      await second.close();
    }
  }, 120_000);

  it.runIf(testDatabaseMode() === 'postgres')('prisma migrate deploy applies the committed migrations to a fresh PostgreSQL database (PostgreSQL runs; the PGlite run proves it through the embedded start above)', async () => {
    const name = `occ_test_migrate_${process.pid}`;
    const url = await recreateDatabase(process.env.DATABASE_URL!, name);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'occ-runtime-'));
    dirs.push(dataDir);
    const runtime = await startRuntime({ env: { dataDir, databaseUrl: url, kubeconfig: null }, logger, inMemory: true });
    await runtime.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const applied = await client.query(`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL`);
      expect(applied.rows.length).toBeGreaterThan(0);
      const columns = await client.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'Secret'`);
      expect(columns.rows.map((r) => r.column_name)).not.toContain('value');
    } finally {
      await client.end();
      await dropDatabase(process.env.DATABASE_URL!, name);
    }
  }, 120_000);
});
