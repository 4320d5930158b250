import { describe, expect, it } from 'vitest';
import { testDatabaseMode } from '../test/database.ts';
import { backfillDatabase } from '../test/migration-backfill.ts';

// The migration that adds AuditEvent.systemActor names the part of the control plane on the rows
// earlier releases wrote with no actor, from their action. The migrations before it are applied as
// plain SQL, rows are written as the old schema held them, then the migration runs.

const withDatabase = backfillDatabase('20261206060000_audit_system_actor', `occ_test_system_actor_${process.pid}`);

describe('audit system actors backfill', () => {
  it.runIf(testDatabaseMode() === 'postgres')(
    'the migration names the worker, the reconciler and the installer on the old rows by their action, leaves principals, anonymous refusals and unknown actions as they were, and holds new rows to one actor (PostgreSQL only)',
    () =>
      withDatabase(async (client, migrate) => {
        const old: Array<[string, string | null, string]> = [
          ['aud_1', null, 'revision.activate'],
          ['aud_2', null, 'revision.fail'],
          ['aud_3', null, 'revision.takeover'],
          ['aud_4', null, 'namespace.provision'],
          ['aud_5', null, 'secret.rollout.batchReady'],
          ['aud_6', null, 'instance.driftRepaired'],
          ['aud_7', null, 'namespace.lost'],
          ['aud_8', null, 'secret.versionsRetired'],
          ['aud_9', null, 'secret.changedOutside'],
          ['aud_10', null, 'installation.bootstrap'],
          ['aud_11', null, 'anonymousRefusals'],
          ['aud_12', null, 'some.retired.action'],
          ['aud_13', 'prn_x', 'revision.activate'],
          ['aud_14', 'prn_x', 'secret.rollout.open'],
        ];
        for (const [id, actorId, action] of old) {
          await client.query(`INSERT INTO "AuditEvent"(id, "actorId", action, "resourceKind", outcome) VALUES ($1, $2, $3, 'secret', 'SUCCESS')`, [id, actorId, action]);
        }
        await migrate();
        const named = Object.fromEntries((await client.query(`SELECT id, "systemActor" FROM "AuditEvent"`)).rows.map((r: { id: string; systemActor: string | null }) => [r.id, r.systemActor]));
        expect(named).toEqual({
          aud_1: 'worker', aud_2: 'worker', aud_3: 'worker', aud_4: 'worker', aud_5: 'worker',
          aud_6: 'reconciler', aud_7: 'reconciler', aud_8: 'reconciler', aud_9: 'reconciler',
          aud_10: 'installer',
          aud_11: null, aud_12: null, aud_13: null, aud_14: null,
        });
        // From now on, exactly one actor: an unnamed row is refused, a named one is written.
        await expect(client.query(`INSERT INTO "AuditEvent"(id, action, "resourceKind", outcome) VALUES ('aud_new', 'some.retired.action', 'secret', 'SUCCESS')`)).rejects.toThrow(/AuditEvent_one_actor/);
        await client.query(`INSERT INTO "AuditEvent"(id, "systemActor", action, "resourceKind", outcome) VALUES ('aud_ok', 'worker', 'revision.ready', 'secret', 'SUCCESS')`);
      }),
  );
});
