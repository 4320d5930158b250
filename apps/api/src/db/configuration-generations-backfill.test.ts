import { describe, expect, it } from 'vitest';
import { testDatabaseMode } from '../test/database.ts';
import { backfillDatabase } from '../test/migration-backfill.ts';

// The migration that adds ConfigurationGeneration backfills one row per existing
// configuration, for its current generation, with its values, its bindings as references and the
// actor of the audited change that reached that generation. The migrations before it are applied
// as plain SQL, rows are written as the old schema held them, then the migration runs.

const withDatabase = backfillDatabase('20261201033000_configuration_generations', `occ_test_backfill_${process.pid}`);

describe('C5 generation history backfill', () => {
  it.runIf(testDatabaseMode() === 'postgres')(
    'C5 the migration writes one generation per existing configuration: its current generation, values and binding references, made by the actor of the audited change that reached it (else its creator), at its last update (PostgreSQL only)',
    () =>
      withDatabase(async (client, migrate) => {
        await client.query(`
          INSERT INTO "Namespace"(id, name, "k8sName", status, "createdById", "updatedAt") VALUES ('ns_1', 'n', 'occ-n', 'READY', 'prn_creator', now());
          INSERT INTO "Secret"(id, "namespaceId", name, "driverId", "backendNamespace", "backendName", "backendKey", "backendUid", "createdById", "updatedAt")
            VALUES ('sec_1', 'ns_1', 's1', 'kubernetes', 'k', 'b1', 'value', 'u1', 'prn_creator', now()), ('sec_2', 'ns_1', 's2', 'kubernetes', 'k', 'b2', 'value', 'u2', 'prn_creator', now());
          INSERT INTO "Configuration"(id, "namespaceId", name, generation, "values", "createdById", "updatedAt")
            VALUES ('cfg_a', 'ns_1', 'a', 3, '{"x": 1}', 'prn_creator', '2026-11-30T10:00:00Z'), ('cfg_b', 'ns_1', 'b', 1, '{}', 'prn_creator', '2026-11-30T11:00:00Z');
          INSERT INTO "ConfigurationSecretBinding" VALUES ('cfg_a', 'Z_TOKEN', 'sec_2', 'env'), ('cfg_a', 'A_TOKEN', 'sec_1', 'env');
          INSERT INTO "AuditEvent"(id, "actorId", action, "resourceKind", "resourceId", outcome, details) VALUES
            ('aud_1', 'prn_creator', 'configuration.create', 'configuration', 'cfg_a', 'SUCCESS', '{"generation": 1}'),
            ('aud_2', 'prn_second', 'configuration.update', 'configuration', 'cfg_a', 'SUCCESS', '{"generation": 2}'),
            ('aud_3', 'prn_third', 'configuration.update', 'configuration', 'cfg_a', 'SUCCESS', '{"generation": 3}'),
            ('aud_4', 'prn_denied', 'configuration.update', 'configuration', 'cfg_a', 'DENIED', '{"generation": 3}');
        `);
        await migrate();
        const rows = (await client.query(`SELECT "configurationId", generation, "values", "secretBindings", "createdById", "createdAt" FROM "ConfigurationGeneration" ORDER BY 1`)).rows;
        expect(rows).toEqual([
          {
            configurationId: 'cfg_a',
            generation: 3,
            values: { x: 1 },
            secretBindings: [
              { envName: 'A_TOKEN', secretId: 'sec_1', deliveryType: 'env' },
              { envName: 'Z_TOKEN', secretId: 'sec_2', deliveryType: 'env' },
            ],
            createdById: 'prn_third',
            createdAt: expect.any(Date),
          },
          { configurationId: 'cfg_b', generation: 1, values: {}, secretBindings: [], createdById: 'prn_creator', createdAt: expect.any(Date) },
        ]);
        // Deleting a configuration deletes its history (the foreign key cascades).
        await client.query(`DELETE FROM "ConfigurationSecretBinding" WHERE "configurationId" = 'cfg_a'; DELETE FROM "Configuration" WHERE id = 'cfg_a'`);
        expect((await client.query(`SELECT count(*)::int AS n FROM "ConfigurationGeneration"`)).rows[0].n).toBe(1);
      }),
  );
});
