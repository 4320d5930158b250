import { randomBytes } from 'node:crypto';
import { newId } from '../ids.ts';
import { grantAccess } from '../services/access-grants.ts';
import { createAgent } from '../services/agents.ts';
import { createConfiguration } from '../services/configurations.ts';
import type { Actor, Deps } from '../services/deps.ts';
import { createNamespace } from '../services/namespaces.ts';
import { createSecret } from '../services/secrets.ts';
import { kinds } from '../services/resource-kinds.ts';

// Fills one namespace through the application services, so every row is one the product itself
// would write (authorization, locks, the Kubernetes Secret, audit events): for benchmarks, the
// statement-count tests and demos. Audit history is the exception: a million events through the
// services would take hours, so `audit` extra events are written in batches with the same columns
// the services write, drawn from the actions, actors and resources this fill created.

export interface FillPlan {
  namespace: string;
  secrets: number;
  /** Each binds one secret (round robin); at least one when there are agents. */
  configurations: number;
  agents: number;
  /** Extra audit events on top of those the services write. */
  audit: number;
}

export interface FillProgress {
  phase: 'namespace' | 'secrets' | 'configurations' | 'agents' | 'audit';
  done: number;
  total: number;
}

export interface FillResult {
  namespaceId: string;
  secretIds: string[];
  configurationIds: string[];
  agentIds: string[];
  /** The agents' service principals, in the agents' order. */
  principalIds: string[];
  auditEvents: number;
}

export class FillError extends Error {
  override name = 'FillError';
}

const PROGRESS_EVERY_MS = 1000;

/** Runs `count` jobs, at most `parallel` at a time, reporting progress at most once a second. */
async function inParallel(count: number, parallel: number, job: (i: number) => Promise<void>, progress: (done: number) => void): Promise<void> {
  let next = 0;
  let done = 0;
  let reported = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      for (let i = next++; i < count; i = next++) {
        await job(i);
        done++;
        if (Date.now() - reported >= PROGRESS_EVERY_MS || done === count) {
          reported = Date.now();
          progress(done);
        }
      }
    }),
  );
}

function pad(i: number, total: number): string {
  return String(i).padStart(String(Math.max(total - 1, 1)).length, '0');
}

export async function fillNamespace(
  deps: Deps,
  actor: Actor,
  plan: FillPlan,
  options: { parallel?: number; onProgress?: (p: FillProgress) => void; waitReadyMs?: number } = {},
): Promise<FillResult> {
  const parallel = options.parallel ?? 4;
  const report = options.onProgress ?? (() => {});
  if (plan.agents > 0 && plan.configurations < 1) throw new FillError('agents need at least one configuration');
  if (plan.configurations > 0 && plan.secrets < 1) throw new FillError('configurations bind secrets: seed at least one secret');

  report({ phase: 'namespace', done: 0, total: 1 });
  const namespace = await createNamespace(deps, actor, { name: plan.namespace });
  deps.kickWorker?.();
  const deadline = Date.now() + (options.waitReadyMs ?? 60_000);
  for (;;) {
    const current = await kinds.get(deps, actor, 'namespace', namespace.id);
    if (current?.status === 'READY') break;
    if (current?.status === 'FAILED') throw new FillError(`namespace ${plan.namespace} failed to provision`);
    if (Date.now() > deadline) throw new FillError(`namespace ${plan.namespace} was not ready in time: is the worker running?`);
    await new Promise((r) => setTimeout(r, 100));
  }
  report({ phase: 'namespace', done: 1, total: 1 });
  const namespaceId = namespace.id;

  // Secret values are random and never returned: a seeded installation holds no known value.
  const secretIds: string[] = new Array(plan.secrets);
  await inParallel(
    plan.secrets,
    parallel,
    async (i) => {
      const secret = await createSecret(deps, actor, { namespaceId, name: `secret-${pad(i, plan.secrets)}`, value: randomBytes(24).toString('base64url') });
      secretIds[i] = secret.id;
    },
    (done) => report({ phase: 'secrets', done, total: plan.secrets }),
  );

  const configurationIds: string[] = new Array(plan.configurations);
  await inParallel(
    plan.configurations,
    parallel,
    async (i) => {
      const configuration = await createConfiguration(deps, actor, {
        namespaceId,
        name: `configuration-${pad(i, plan.configurations)}`,
        values: { channels: { telegram: { enabled: true } } },
        secretBindings: [{ envName: 'TELEGRAM_BOT_TOKEN', source: { id: secretIds[i % secretIds.length]! } }],
      });
      configurationIds[i] = configuration.id;
    },
    (done) => report({ phase: 'configurations', done, total: plan.configurations }),
  );

  // Each agent selects a configuration and uses a model key; its principal gets operate on the
  // model key only, so half of what it needs is granted and `missingGrants` has something to say.
  const agentIds: string[] = new Array(plan.agents);
  const principalIds: string[] = new Array(plan.agents);
  const operator = plan.agents > 0 ? await deps.db.role.findFirst({ where: { name: 'secret-operator', namespaceId: null }, select: { id: true } }) : null;
  if (plan.agents > 0 && !operator) throw new FillError('the built-in role secret-operator is missing: is the database migrated?');
  await inParallel(
    plan.agents,
    parallel,
    async (i) => {
      // The model key comes after the configurations' secrets, so with enough secrets an agent's
      // two secrets differ (and a page of agents reads the same shape of data at any size).
      const model = secretIds[(plan.configurations + i) % secretIds.length]!;
      const agent = await createAgent(deps, actor, {
        namespaceId,
        name: `agent-${pad(i, plan.agents)}`,
        configurationId: configurationIds[i % configurationIds.length]!,
        harnessAuth: { provider: 'openai', source: { id: model } },
      });
      await grantAccess(deps, actor, {
        subjectId: agent.servicePrincipalId,
        roleId: operator!.id,
        scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: model, namespaceId },
      });
      agentIds[i] = agent.id;
      principalIds[i] = agent.servicePrincipalId;
    },
    (done) => report({ phase: 'agents', done, total: plan.agents }),
  );

  const actors = [actor.principalId, ...principalIds];
  await fillAudit(deps, { namespaceId, actors, resources: [...secretIds, ...configurationIds, ...agentIds], count: plan.audit }, (done) =>
    report({ phase: 'audit', done, total: plan.audit }),
  );
  // Statistics for the rows just written, so that plans are right from the start:
  // PGlite runs no autovacuum at all, PostgreSQL's analyses a minute or so later. The lists'
  // visibility ranges hold without them, but a list filtered on two columns (an actor's events in
  // a namespace) is planned by them.
  await deps.db.$executeRawUnsafe('ANALYZE "Secret", "Configuration", "ConfigurationSecretBinding", "Agent", "AccessBinding", "Principal", "AuditEvent", "WorkItem"');
  return { namespaceId, secretIds, configurationIds, agentIds, principalIds, auditEvents: plan.audit };
}

const AUDIT_BATCH = 5000;
const AUDIT_SHAPES = [
  { action: 'secret.read', resourceKind: 'secret', outcome: 'SUCCESS' },
  { action: 'secret.update', resourceKind: 'secret', outcome: 'SUCCESS' },
  { action: 'secret.delete', resourceKind: 'secret', outcome: 'DENIED', reason: 'no access binding grants this' },
  { action: 'configuration.update', resourceKind: 'configuration', outcome: 'SUCCESS' },
  { action: 'agent.create', resourceKind: 'agent', outcome: 'SUCCESS' },
  { action: 'accessBinding.create', resourceKind: 'accessBinding', outcome: 'SUCCESS' },
] as const;

/**
 * Extra history, spread over the last 30 days, its actors taken in turn from the caller and the
 * agents' principals (so a filter by actor selects a realistic share).
 */
async function fillAudit(deps: Deps, input: { namespaceId: string; actors: string[]; resources: string[]; count: number }, progress: (done: number) => void): Promise<void> {
  if (input.count === 0) return;
  const span = 30 * 24 * 3600 * 1000;
  const start = Date.now() - span;
  let reported = 0;
  for (let offset = 0; offset < input.count; offset += AUDIT_BATCH) {
    const size = Math.min(AUDIT_BATCH, input.count - offset);
    const rows = Array.from({ length: size }, (_, j) => {
      const i = offset + j;
      const shape = AUDIT_SHAPES[i % AUDIT_SHAPES.length]!;
      const resourceId = shape.resourceKind === 'accessBinding' ? newId('accessBinding') : (input.resources[i % Math.max(input.resources.length, 1)] ?? null);
      return {
        id: newId('audit'),
        at: new Date(start + Math.floor((span * i) / input.count)).toISOString(),
        actorId: input.actors[i % input.actors.length]!,
        action: shape.action,
        resourceKind: shape.resourceKind,
        resourceId,
        namespaceId: input.namespaceId,
        outcome: shape.outcome,
        reason: 'reason' in shape ? shape.reason : null,
      };
    });
    // One statement per batch with arrays as parameters: a multi-row INSERT would bind ten
    // parameters per row, and PostgreSQL plans such statements slowly.
    const column = <K extends keyof (typeof rows)[number]>(key: K) => rows.map((row) => row[key]);
    await deps.db.$executeRaw`
      INSERT INTO "AuditEvent" ("id", "at", "actorId", "action", "resourceKind", "resourceId", "namespaceId", "outcome", "reason", "details")
      SELECT id, at, "actorId", action, "resourceKind", "resourceId", "namespaceId", outcome::"AuditOutcome", reason, '{"seeded": true}'::jsonb
      FROM unnest(${column('id')}::text[], ${column('at')}::timestamp(3)[], ${column('actorId')}::text[], ${column('action')}::text[],
                  ${column('resourceKind')}::text[], ${column('resourceId')}::text[], ${column('namespaceId')}::text[], ${column('outcome')}::text[],
                  ${column('reason')}::text[])
        AS t(id, at, "actorId", action, "resourceKind", "resourceId", "namespaceId", outcome, reason)`;
    if (Date.now() - reported >= PROGRESS_EVERY_MS || offset + size === input.count) {
      reported = Date.now();
      progress(offset + size);
    }
  }
}
