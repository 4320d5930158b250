import type { ComputeRevisionContext, RevisionSource } from '@occ/domain/compute-driver';
import { withoutBackendNames } from '@occ/domain/kubernetes-names';
import type { RenderRevision } from '@occ/domain/revision-render';
import { BackendIdentityChanged, BackendObjectMissing } from '@occ/domain/secret-driver';
import type { Db, Tx } from '../db/client.ts';
import { InstanceRefused } from '../drivers/kubernetes-compute.ts';
import { defineWorkKind, PermanentWorkError, type StepContext, type WorkKind } from '../worker.ts';
import { audit } from './audit.ts';
import { moveRevisions } from './revision-states.ts';
import { recheckRevision } from './deploy-checks.ts';
import { AWAIT_REVISION_KIND, AwaitRevisionPayload, DEPLOY_REVISION_KIND, DeployRevisionPayload } from './deploy-work-payload.ts';
import type { Deps } from './deps.ts';
import { findRevision, revisionState, type RevisionView } from './revisions.ts';
import { recordTakeovers } from './selfconfig-takeovers.ts';
import { enqueue } from './work-queue.ts';

// The worker's side of a deploy (W1–W5, RC1, RC3, RC7, RC8), as named steps. Each step is
// idempotent and re-reads the revision: a retry, or another worker taking the item over, starts
// from the world as it is. Every failure goes through one path (failRevision): the revision fails
// with a code, in the transaction that ends the item, with an audit event.
//
// revision.deploy runs one at a time per agent (its concurrency key): coalesce or re-check, prepare
// (the model-auth Secret, a dry run of the instance apply), activate (the re-check and the
// compare-and-set in one transaction holding the locks revokeAccess takes, RC7), then apply the
// revision's fields to the agent's OpenClawInstance, its one desired state (RC1); the reconciler
// makes the gateway follow. revision.await then waits for the instance to report the revision's
// generation Ready (W5), without holding the agent: a newer deploy may replace it meanwhile.

const PENDING = ['QUEUED', 'PREPARING', 'PREPARED', 'ACTIVATING'] as const;

export function renderable(revision: RevisionView): RenderRevision {
  return {
    agentId: revision.agentId,
    namespaceId: revision.namespaceId,
    number: revision.number,
    configuration: revision.configurationId ? { id: revision.configurationId, generation: revision.configurationGeneration ?? 0, values: revision.values } : null,
    secrets: revision.secrets,
    harnessAuth: revision.harnessAuth
      ? { provider: revision.harnessAuth.provider, envName: revision.secrets.find((s) => s.purpose === 'harnessAuth')?.envName ?? '', source: revision.harnessAuth.source }
      : null,
    selfConfigure: revision.selfConfigure,
  };
}

/**
 * W3 V2: the secret context of one run, from metadata: for each source, the Kubernetes Secret of
 * the exact version the revision froze (its name and uid as that version's row records them), and
 * the namespace's Kubernetes namespace. Built for each step that needs it and never written
 * anywhere. A version V3 retired is never delivered in its place by another version.
 */
export async function secretContext(db: Db | Tx, installationId: string, revision: Pick<RevisionView, 'id' | 'namespaceId' | 'secrets' | 'secretDriverId'>): Promise<ComputeRevisionContext> {
  const namespace = await db.namespace.findUnique({ where: { id: revision.namespaceId }, select: { k8sName: true, status: true } });
  if (!namespace) throw new PermanentWorkError('NAMESPACE_NOT_READY', 'The namespace no longer exists.');
  if (namespace.status === 'LOST') throw new PermanentWorkError('NAMESPACE_NOT_READY', 'The Kubernetes namespace was deleted outside the product.');
  // One version per secret: a revision freezes each secret once, whatever the bindings naming it.
  const frozen = new Map(revision.secrets.map((s) => [s.source.id, s.version]));
  const ids = [...frozen.keys()];
  const [rows, versions] = await Promise.all([
    db.secret.findMany({ where: { id: { in: ids } }, select: { id: true, namespaceId: true, driverId: true, version: true, outsideChangeSeenAt: true } }),
    ids.length === 0 ? [] : db.secretVersion.findMany({ where: { OR: [...frozen].map(([secretId, number]) => ({ secretId, number })) } }),
  ]);
  const sources: RevisionSource[] = ids.map((id) => {
    const row = rows.find((r) => r.id === id);
    if (!row || row.namespaceId !== revision.namespaceId) throw new PermanentWorkError('SECRET_MISSING', `Secret ${id} no longer exists in the agent's namespace.`);
    if (row.driverId !== revision.secretDriverId) throw new PermanentWorkError('SECRET_DRIVER_CHANGED', `Secret ${id} is now stored by another driver than the revision admitted.`);
    const number = frozen.get(id)!;
    const version = versions.find((v) => v.secretId === id && v.number === number);
    if (!version || version.retiredAt) {
      throw new PermanentWorkError('SECRET_VERSION_RETIRED', `Version ${number} of secret ${id} is retired (V3): its Kubernetes Secret was deleted. Deploy again to deliver the current version.`);
    }
    if (version.backendNamespace !== namespace.k8sName) throw new PermanentWorkError('BACKEND_IDENTITY_CHANGED', `Secret ${id} is stored outside the agent's Kubernetes namespace.`);
    // RC4: a change outside the product is accepted only as the version that recorded it.
    const outsideChangeSeenAt = row.version === number ? row.outsideChangeSeenAt : null;
    return { secretId: id, namespaceId: row.namespaceId, name: version.backendName, uid: version.backendUid, outsideChangeSeenAt };
  });
  return { installationId, k8sNamespace: namespace.k8sName, revisionId: revision.id, sources };
}

async function recheck(db: Db | Tx, revision: RevisionView, when: string): Promise<void> {
  const failure = await recheckRevision(db, {
    agentId: revision.agentId,
    namespaceId: revision.namespaceId,
    servicePrincipalId: revision.servicePrincipalId,
    secretDriverId: revision.secretDriverId,
    createdById: revision.createdById,
    secretIds: [...new Set(revision.secrets.map((s) => s.source.id))],
  });
  if (failure) throw new PermanentWorkError(failure.code, `${failure.message} (re-checked ${when})`);
}

/**
 * Delivery stops on a source that is not the recorded object (W4, D3): nothing is created or
 * applied. The message names the product's secret, never the Kubernetes Secret (S4, D4).
 */
async function verified(deps: Deps, context: ComputeRevisionContext): Promise<void> {
  try {
    await deps.computeDriver.verifySources(context);
  } catch (error) {
    if (error instanceof BackendIdentityChanged) throw new PermanentWorkError('BACKEND_IDENTITY_CHANGED', withoutBackendNames(`A source Secret is not the one recorded: ${error.reason}. Nothing was delivered.`));
    if (error instanceof BackendObjectMissing) {
      const secretId = context.sources.find((s) => s.name === error.objectName)?.secretId ?? 'a source secret';
      throw new PermanentWorkError('BACKEND_IDENTITY_CHANGED', `The Kubernetes Secret of ${secretId} no longer exists. Nothing was delivered.`);
    }
    throw error;
  }
}

/**
 * D5 W4: preparation never adopts an object that is not the control plane's (the revision's
 * model-auth Secret already there without its labels, a source that lost its key since the check),
 * and a dry run finds fields the API server refuses: no retry mends either, so the revision fails,
 * and the running gateway is not touched (nothing of the instance changed).
 */
async function prepared(deps: Deps, revision: RevisionView, context: ComputeRevisionContext): Promise<void> {
  try {
    await deps.computeDriver.prepareRevision(renderable(revision), context);
  } catch (error) {
    if (error instanceof BackendIdentityChanged) throw new PermanentWorkError('BACKEND_IDENTITY_CHANGED', withoutBackendNames(`Preparation stopped: ${error.reason}. The running gateway was not changed.`));
    if (error instanceof BackendObjectMissing) throw new PermanentWorkError('BACKEND_IDENTITY_CHANGED', 'Preparation stopped: a source Secret no longer exists. The running gateway was not changed.');
    if (error instanceof InstanceRefused) throw new PermanentWorkError('INSTANCE_REFUSED', `${error.message}. The running gateway was not changed.`);
    throw error;
  }
}

/** Applies one of W1's step events to a revision; false when it was no longer in the step's state (compare-and-set). */
async function transition(tx: Tx, revisionId: string, event: 'checked' | 'prepared' | 'activationCommitted' | 'gatewayReady'): Promise<boolean> {
  return (await moveRevisions(tx, { id: revisionId }, event)) === 1;
}

/** RC8: a newer revision of the agent that is on its way or running, if any. */
async function newerRevision(db: Db | Tx, revision: Pick<RevisionView, 'agentId' | 'number'>): Promise<{ id: string; number: number } | null> {
  return db.agentRevision.findFirst({
    where: { agentId: revision.agentId, number: { gt: revision.number }, state: { in: [...PENDING, 'ACTIVE'] } },
    orderBy: { number: 'desc' },
    select: { id: true, number: true },
  });
}

/**
 * RC7: the locks revokeAccess takes (the subject's Principal row) on both principals the re-check
 * decides for, after the agent's row (the order deleteAgent takes them in). A revoke that committed
 * first is seen by the re-check; one that comes later waits for this commit.
 */
async function lockForActivation(tx: Tx, revision: RevisionView): Promise<void> {
  await tx.$queryRaw`SELECT id FROM "Agent" WHERE id = ${revision.agentId} FOR UPDATE`;
  const subjects = [...new Set([revision.createdById, revision.servicePrincipalId])].sort();
  await tx.$queryRaw`SELECT id FROM "Principal" WHERE id = ANY(${subjects}::text[]) ORDER BY id FOR UPDATE`;
}

export interface DeployWorkOptions {
  /** Tests: called inside the activation's transaction once its locks are held (RC7 interleavings). */
  onActivationLocked?: (revisionId: string) => Promise<void>;
}

async function failRevision(tx: Tx, payload: Pick<DeployRevisionPayload, 'revisionId' | 'agentId' | 'namespaceId' | 'actorId'>, failure: { code: string; message: string }): Promise<void> {
  const failed = await moveRevisions(tx, { id: payload.revisionId }, 'failed', {
    failureCode: failure.code,
    failureMessage: withoutBackendNames(failure.message).slice(0, 2000),
  });
  if (failed === 0) return;
  await audit(tx, {
    actorId: null,
    system: 'worker',
    action: 'revision.fail',
    resourceKind: 'agentRevision',
    resourceId: payload.revisionId,
    namespaceId: payload.namespaceId,
    outcome: 'FAILURE',
    reason: failure.code,
    details: { agentId: payload.agentId, deployedBy: payload.actorId, code: failure.code },
  });
}

/**
 * Each step re-reads its revision. What a revision froze (configuration, bindings, principals)
 * never changes after it is written, so it is read once per process and kept (a bounded memo);
 * each step reads again only what moves: its state, its failure, the generation its apply made.
 */
export function revisionReader(db: Db): (id: string) => Promise<RevisionView | null> {
  const frozen = new Map<string, RevisionView>();
  return async (id) => {
    const known = frozen.get(id);
    if (!known) {
      const revision = await findRevision(db, id);
      if (revision) {
        if (frozen.size >= 512) frozen.delete(frozen.keys().next().value!);
        frozen.set(id, revision);
      }
      return revision;
    }
    const row = await db.agentRevision.findUnique({ where: { id }, select: { state: true, failureCode: true, failureMessage: true, instanceGeneration: true, takeovers: true, updatedAt: true } });
    if (!row) {
      frozen.delete(id);
      return null;
    }
    return {
      ...known,
      state: revisionState(row.state),
      failure: row.failureCode ? { code: row.failureCode, message: row.failureMessage ?? '' } : null,
      instanceGeneration: row.instanceGeneration,
      takeovers: Array.isArray(row.takeovers) ? (row.takeovers as unknown as RevisionView['takeovers']) : [],
      updatedAt: row.updatedAt,
    };
  };
}

export function deployRevisionKind(deps: Deps, options: DeployWorkOptions = {}): WorkKind<DeployRevisionPayload> {
  const load = revisionReader(deps.db);
  const steps = [
    {
      name: 'recheck-before-preparation',
      async run(payload: DeployRevisionPayload, ctx: StepContext) {
        const revision = await load(payload.revisionId);
        if (!revision || revision.state !== 'queued') return;
        // RC8: a newer deploy of the agent came after this one: this one is never rolled out.
        const newer = await newerRevision(deps.db, revision);
        if (newer) {
          await ctx.commit(async (tx) => {
            const superseded = await moveRevisions(tx, { id: revision.id }, 'newerDeployed', {
              failureCode: 'SUPERSEDED_BEFORE_PREPARATION',
              failureMessage: `Revision ${newer.number} was deployed before this one was prepared; this one was never rolled out.`,
            });
            if (superseded === 1) {
              await audit(tx, {
                actorId: null,
                system: 'worker',
                action: 'revision.supersede',
                resourceKind: 'agentRevision',
                resourceId: revision.id,
                namespaceId: revision.namespaceId,
                outcome: 'SUCCESS',
                details: { agentId: revision.agentId, number: revision.number, supersededBy: newer.id, supersededByNumber: newer.number, beforePreparation: true },
              });
            }
          });
          return;
        }
        await recheck(deps.db, revision, 'before preparation');
        await ctx.commit((tx) => transition(tx, revision.id, 'checked'));
      },
    },
    {
      name: 'prepare',
      async run(payload: DeployRevisionPayload, ctx: StepContext) {
        const revision = await load(payload.revisionId);
        if (!revision || revision.state !== 'preparing') return;
        const context = await secretContext(deps.db, deps.installationId, revision);
        await verified(deps, context);
        if (ctx.signal.aborted) return;
        await prepared(deps, revision, context);
        await ctx.commit((tx) => transition(tx, revision.id, 'prepared'));
      },
    },
    {
      name: 'recheck-and-commit-activation',
      async run(payload: DeployRevisionPayload, ctx: StepContext) {
        const revision = await load(payload.revisionId);
        if (!revision || revision.state !== 'prepared') return;
        // W5 RC7: the re-check and the compare-and-set commit together, under the locks a revoke
        // takes; the revision becomes the agent's active one before its fields reach the instance,
        // so a corrected deploy can recover from a gateway that cannot start.
        await ctx.commit(async (tx) => {
          await lockForActivation(tx, revision);
          await options.onActivationLocked?.(revision.id);
          await recheck(tx, revision, 'before activation');
          const agent = await tx.agent.findUnique({ where: { id: revision.agentId }, select: { activeRevisionId: true } });
          const previousId = agent?.activeRevisionId ?? null;
          if (previousId && previousId !== revision.id) {
            const previous = await tx.agentRevision.findUnique({ where: { id: previousId }, select: { number: true } });
            if (previous && previous.number > revision.number) throw new PermanentWorkError('SUPERSEDED_BEFORE_ACTIVATION', `A newer revision (${previous.number}) was activated first.`);
          }
          // RC8: whatever was the agent's active revision, activating or active, is superseded now;
          // the partial unique index holds at most one of them per agent.
          await moveRevisions(tx, { agentId: revision.agentId, id: { not: revision.id } }, 'newerActivated');
          if (!(await transition(tx, revision.id, 'activationCommitted'))) return;
          await tx.agent.update({ where: { id: revision.agentId }, data: { activeRevisionId: revision.id } });
          await audit(tx, {
            actorId: null,
            system: 'worker',
            action: 'revision.activate',
            resourceKind: 'agentRevision',
            resourceId: revision.id,
            namespaceId: revision.namespaceId,
            outcome: 'SUCCESS',
            details: { agentId: revision.agentId, number: revision.number, supersededRevisionId: previousId },
          });
        });
      },
    },
    {
      name: 'apply-gateway',
      async run(payload: DeployRevisionPayload, ctx: StepContext) {
        const revision = await load(payload.revisionId);
        if (!revision || revision.state !== 'activating') return;
        const agent = await deps.db.agent.findUnique({ where: { id: revision.agentId }, select: { activeRevisionId: true } });
        if (agent?.activeRevisionId !== revision.id) return;
        const context = await secretContext(deps.db, deps.installationId, revision);
        await verified(deps, context);
        if (ctx.signal.aborted) return;
        let applied;
        try {
          applied = await deps.computeDriver.applyRevision(renderable(revision), context);
        } catch (error) {
          if (error instanceof InstanceRefused) throw new PermanentWorkError('INSTANCE_REFUSED', error.message);
          throw error;
        }
        // W5: the wait for readiness is its own item (revision.await), queued with the apply's
        // record, so the agent's next deploy need not wait for this gateway.
        await ctx.commit(async (tx) => {
          await tx.agentRevision.update({ where: { id: revision.id }, data: { instanceGeneration: applied.generation } });
          await recordTakeovers(tx, revision, applied.takeovers, new Date());
          const next: AwaitRevisionPayload = { ...payload, since: new Date().toISOString() };
          await enqueue(tx, AWAIT_REVISION_KIND, `${AWAIT_REVISION_KIND}:${revision.id}`, next, { concurrencyKey: awaitKey(revision.agentId) });
        });
        deps.kickWorker?.();
      },
    },
  ];
  return defineWorkKind({
    kind: DEPLOY_REVISION_KIND,
    payload: DeployRevisionPayload,
    steps,
    // An item an earlier release left after its apply applies again (a no-op) and queues the wait.
    retiredSteps: { 'wait-ready': 'apply-gateway' },
    onPermanentFailure: (tx, payload, failure) => failRevision(tx, payload, failure),
  });
}

/** Deploy items of one agent run one at a time (RC8); so do its waits, apart from the deploys. */
export function deployKey(agentId: string): string {
  return agentId;
}

export function awaitKey(agentId: string): string {
  return `await:${agentId}`;
}

/** W5: from the apply to Ready (or the failure the reconciler reports), within the deadline. */
export function awaitRevisionKind(deps: Deps): WorkKind<AwaitRevisionPayload> {
  const load = revisionReader(deps.db);
  return defineWorkKind({
    kind: AWAIT_REVISION_KIND,
    payload: AwaitRevisionPayload,
    steps: [
      {
        name: 'wait-ready',
        async run(payload: AwaitRevisionPayload, ctx: StepContext) {
          for (;;) {
            const revision = await load(payload.revisionId);
            // Superseded by a newer deploy or stopped meanwhile: that one owns the instance now.
            if (!revision || revision.state !== 'activating') return;
            // Waiting reads no Secret: the context names only where the instance is.
            const namespace = await deps.db.namespace.findUnique({ where: { id: revision.namespaceId }, select: { k8sName: true } });
            if (!namespace) throw new PermanentWorkError('NAMESPACE_NOT_READY', 'The namespace no longer exists.');
            const context: ComputeRevisionContext = { installationId: deps.installationId, k8sNamespace: namespace.k8sName, revisionId: revision.id, sources: [] };
            const left = Date.parse(payload.since) + deps.gatewayReadyTimeoutMs - Date.now();
            const readiness = await deps.computeDriver.awaitRevision(renderable(revision), context, revision.instanceGeneration ?? 1, Math.max(0, Math.min(left, 15_000)), ctx.signal);
            if (ctx.signal.aborted) return;
            if (readiness.state === 'ready') {
              await ctx.commit(async (tx) => {
                if (!(await transition(tx, revision.id, 'gatewayReady'))) return;
                await audit(tx, {
                  actorId: null,
                  system: 'worker',
                  action: 'revision.ready',
                  resourceKind: 'agentRevision',
                  resourceId: revision.id,
                  namespaceId: revision.namespaceId,
                  outcome: 'SUCCESS',
                  details: { agentId: revision.agentId, number: revision.number, instanceGeneration: readiness.generation },
                });
              });
              // D5: the model keys of the revisions this one replaced are retired with them.
              await deps.computeDriver.retireModelAuth(revision.agentId, context.k8sNamespace, revision.number).catch((error) => deps.logger.warn('could not retire model-auth Secrets', { error }));
              return;
            }
            if (readiness.state === 'replaced') {
              // Another revision's fields or a stop replaced these; if the database still names
              // this one as running, the instance was changed under it.
              const again = await load(payload.revisionId);
              if (again?.state === 'activating') throw new PermanentWorkError('INSTANCE_REPLACED', `The instance no longer holds this revision: ${readiness.message}.`);
              return;
            }
            if (readiness.state === 'failed') {
              const code = readiness.reason === 'InstanceMissing' ? 'INSTANCE_MISSING' : 'GATEWAY_NOT_READY';
              throw new PermanentWorkError(code, withoutBackendNames(`The gateway cannot start (${readiness.reason}): ${readiness.message}`));
            }
            if (Date.parse(payload.since) + deps.gatewayReadyTimeoutMs <= Date.now()) {
              throw new PermanentWorkError('GATEWAY_NOT_READY', withoutBackendNames(`The gateway did not become ready within ${Math.round(deps.gatewayReadyTimeoutMs / 1000)} s: ${readiness.message}`));
            }
          }
        },
      },
    ],
    onPermanentFailure: (tx, payload, failure) => failRevision(tx, payload, failure),
  });
}
