import type { ComputeRevisionContext, RevisionSource } from '@occ/domain/compute-driver';
import type { RenderRevision } from '@occ/domain/revision-render';
import { BackendIdentityChanged, BackendObjectMissing } from '@occ/domain/secret-driver';
import type { Db, Tx } from '../db/client.ts';
import { defineWorkKind, PermanentWorkError, type StepContext, type WorkKind } from '../worker.ts';
import { audit } from './audit.ts';
import { recheckRevision } from './deploy-checks.ts';
import { DEPLOY_REVISION_KIND, DeployRevisionPayload } from './deploy-work-payload.ts';
import type { Deps } from './deps.ts';
import { findRevision, type RevisionView } from './revisions.ts';

// The worker's side of a deploy (W1–W5), as named steps of one work kind. Each step is
// idempotent and re-reads the revision: a retry, or another worker taking the item over, starts
// from the world as it is. Every failure goes through one path (onPermanentFailure): the revision
// fails with a code, in the transaction that ends the item, with an audit event.

const PENDING = ['QUEUED', 'PREPARING', 'PREPARED', 'ACTIVATING'] as const;

function renderable(revision: RevisionView): RenderRevision {
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
 * W3: the secret context of one run, from metadata: each source's Kubernetes Secret name and uid
 * as the Secret rows record them now, and the namespace's Kubernetes namespace. Built for each
 * step that needs it and never written anywhere.
 */
async function secretContext(db: Db | Tx, installationId: string, revision: RevisionView): Promise<ComputeRevisionContext> {
  const namespace = await db.namespace.findUnique({ where: { id: revision.namespaceId }, select: { k8sName: true } });
  if (!namespace) throw new PermanentWorkError('NAMESPACE_NOT_READY', 'The namespace no longer exists.');
  const ids = [...new Set(revision.secrets.map((s) => s.source.id))];
  const rows = await db.secret.findMany({ where: { id: { in: ids } }, select: { id: true, namespaceId: true, backendNamespace: true, backendName: true, backendUid: true, driverId: true } });
  const sources: RevisionSource[] = ids.map((id) => {
    const row = rows.find((r) => r.id === id);
    if (!row || row.namespaceId !== revision.namespaceId) throw new PermanentWorkError('SECRET_MISSING', `Secret ${id} no longer exists in the agent's namespace.`);
    if (row.driverId !== revision.secretDriverId) throw new PermanentWorkError('SECRET_DRIVER_CHANGED', `Secret ${id} is now stored by another driver than the revision admitted.`);
    if (row.backendNamespace !== namespace.k8sName) throw new PermanentWorkError('BACKEND_IDENTITY_CHANGED', `Secret ${id} is stored outside the agent's Kubernetes namespace.`);
    return { secretId: id, namespaceId: row.namespaceId, name: row.backendName, uid: row.backendUid };
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
 * The kubelet names the Kubernetes Secret it could not read; a revision never holds a backend
 * locator (S4, D4), so its failure names the product's secret id instead, which readers of the
 * revision can resolve as far as they may read it.
 */
export function withoutLocators(message: string, context: Pick<ComputeRevisionContext, 'k8sNamespace' | 'sources'>): string {
  let out = message;
  for (const source of context.sources) {
    out = out.split(`${context.k8sNamespace}/${source.name}`).join(source.secretId).split(source.name).join(source.secretId);
  }
  return out;
}

/** Delivery stops on a source that is not the recorded object (W4): nothing is created or applied. */
async function verified(deps: Deps, context: ComputeRevisionContext): Promise<void> {
  try {
    await deps.computeDriver.verifySources(context);
  } catch (error) {
    if (error instanceof BackendIdentityChanged) throw new PermanentWorkError('BACKEND_IDENTITY_CHANGED', `A source Secret is not the one recorded: ${error.reason}. Nothing was delivered.`);
    if (error instanceof BackendObjectMissing) throw new PermanentWorkError('BACKEND_IDENTITY_CHANGED', `A source Secret (${error.objectName}) no longer exists. Nothing was delivered.`);
    throw error;
  }
}

/**
 * D5 W4: preparation never adopts an object that is not the control plane's (the revision's
 * model-auth Secret already there without its labels, a source that lost its key since the check):
 * retrying cannot make it ours, so the revision fails with the code D3 uses, and the running
 * gateway is not touched (activation has not started).
 */
async function prepared(deps: Deps, revision: RevisionView, context: ComputeRevisionContext): Promise<void> {
  try {
    await deps.computeDriver.prepareRevision(renderable(revision), context);
  } catch (error) {
    if (error instanceof BackendIdentityChanged) throw new PermanentWorkError('BACKEND_IDENTITY_CHANGED', `Preparation stopped: ${error.reason}. The running gateway was not changed.`);
    if (error instanceof BackendObjectMissing) throw new PermanentWorkError('BACKEND_IDENTITY_CHANGED', `Preparation stopped: a source Secret no longer exists. The running gateway was not changed.`);
    throw error;
  }
}

async function load(deps: Deps, revisionId: string): Promise<RevisionView | null> {
  return findRevision(deps.db, revisionId);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Moves a revision from one state to the next only if it is still in the first (compare-and-set). */
async function transition(tx: Tx, revisionId: string, from: (typeof PENDING)[number], to: 'PREPARING' | 'PREPARED' | 'ACTIVATING' | 'ACTIVE'): Promise<boolean> {
  const n = await tx.agentRevision.updateMany({ where: { id: revisionId, state: from }, data: { state: to } });
  return n.count === 1;
}

export function deployRevisionKind(deps: Deps, options: { pollMs?: number } = {}): WorkKind<DeployRevisionPayload> {
  const pollMs = options.pollMs ?? 200;
  const steps = [
    {
      name: 'recheck-before-preparation',
      async run(payload: DeployRevisionPayload, ctx: StepContext) {
        const revision = await load(deps, payload.revisionId);
        if (!revision || revision.state !== 'queued') return;
        await recheck(deps.db, revision, 'before preparation');
        await ctx.commit((tx) => transition(tx, revision.id, 'QUEUED', 'PREPARING'));
      },
    },
    {
      name: 'prepare',
      async run(payload: DeployRevisionPayload, ctx: StepContext) {
        const revision = await load(deps, payload.revisionId);
        if (!revision || revision.state !== 'preparing') return;
        const context = await secretContext(deps.db, deps.installationId, revision);
        await verified(deps, context);
        if (ctx.signal.aborted) return;
        await prepared(deps, revision, context);
        await ctx.commit((tx) => transition(tx, revision.id, 'PREPARING', 'PREPARED'));
      },
    },
    {
      name: 'recheck-and-commit-activation',
      async run(payload: DeployRevisionPayload, ctx: StepContext) {
        const revision = await load(deps, payload.revisionId);
        if (!revision || revision.state !== 'prepared') return;
        await recheck(deps.db, revision, 'before activation');
        // W5: the revision becomes the agent's active one before the gateway is replaced, so a
        // corrected deploy can recover from a gateway that cannot start.
        await ctx.commit(async (tx) => {
          const agent = await tx.$queryRaw<Array<{ activeRevisionId: string | null }>>`SELECT "activeRevisionId" FROM "Agent" WHERE id = ${revision.agentId} FOR UPDATE`;
          const previousId = agent[0]?.activeRevisionId ?? null;
          if (previousId && previousId !== revision.id) {
            const previous = await tx.agentRevision.findUnique({ where: { id: previousId }, select: { number: true } });
            if (previous && previous.number > revision.number) throw new PermanentWorkError('SUPERSEDED_BEFORE_ACTIVATION', `A newer revision (${previous.number}) was activated first.`);
            await tx.agentRevision.updateMany({ where: { id: previousId, state: 'ACTIVE' }, data: { state: 'SUPERSEDED' } });
          }
          if (!(await transition(tx, revision.id, 'PREPARED', 'ACTIVATING'))) return;
          const set = await tx.agent.updateMany({
            where: { id: revision.agentId, activeRevisionId: previousId },
            data: { activeRevisionId: revision.id, status: 'activating' },
          });
          if (set.count !== 1) throw new Error('the active revision changed under the agent lock');
          await audit(tx, {
            actorId: null,
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
        const revision = await load(deps, payload.revisionId);
        if (!revision || revision.state !== 'activating') return;
        const context = await secretContext(deps.db, deps.installationId, revision);
        await verified(deps, context);
        if (ctx.signal.aborted) return;
        await deps.computeDriver.activateRevision(renderable(revision), context);
      },
    },
    {
      name: 'wait-ready',
      async run(payload: DeployRevisionPayload, ctx: StepContext) {
        const started = Date.now();
        for (;;) {
          const revision = await load(deps, payload.revisionId);
          // Superseded by a newer deploy meanwhile: that one owns the gateway now.
          if (!revision || revision.state !== 'activating') return;
          const context = await secretContext(deps.db, deps.installationId, revision);
          const readiness = await deps.computeDriver.gatewayReadiness(renderable(revision), context);
          if (readiness.state === 'ready') {
            await ctx.commit(async (tx) => {
              if (!(await transition(tx, revision.id, 'ACTIVATING', 'ACTIVE'))) return;
              await tx.agent.updateMany({ where: { id: revision.agentId, activeRevisionId: revision.id }, data: { status: 'running' } });
              await audit(tx, {
                actorId: null,
                action: 'revision.ready',
                resourceKind: 'agentRevision',
                resourceId: revision.id,
                namespaceId: revision.namespaceId,
                outcome: 'SUCCESS',
                details: { agentId: revision.agentId, number: revision.number },
              });
            });
            // D5: the model keys of the revisions this one replaced are retired with them.
            await deps.computeDriver.retireModelAuth(revision.agentId, context.k8sNamespace, revision.number).catch((error) => deps.logger.warn('could not retire model-auth Secrets', { error }));
            return;
          }
          if (readiness.state === 'failed') throw new PermanentWorkError('GATEWAY_NOT_READY', `The gateway cannot start (${readiness.reason}): ${withoutLocators(readiness.message, context)}`);
          if (Date.now() - started > deps.gatewayReadyTimeoutMs) {
            throw new PermanentWorkError('GATEWAY_NOT_READY', `The gateway did not become ready within ${Math.round(deps.gatewayReadyTimeoutMs / 1000)} s: ${withoutLocators(readiness.message, context)}`);
          }
          await sleep(pollMs, ctx.signal);
          if (ctx.signal.aborted) return;
        }
      },
    },
  ];
  return defineWorkKind({
    kind: DEPLOY_REVISION_KIND,
    payload: DeployRevisionPayload,
    steps,
    async onPermanentFailure(tx, payload, failure) {
      const failed = await tx.agentRevision.updateMany({
        where: { id: payload.revisionId, state: { in: [...PENDING] } },
        data: { state: 'FAILED', failureCode: failure.code, failureMessage: failure.message.slice(0, 2000) },
      });
      if (failed.count === 0) return;
      await tx.agent.updateMany({ where: { id: payload.agentId, OR: [{ activeRevisionId: payload.revisionId }, { activeRevisionId: null }] }, data: { status: 'failed' } });
      await audit(tx, {
        actorId: null,
        action: 'revision.fail',
        resourceKind: 'agentRevision',
        resourceId: payload.revisionId,
        namespaceId: payload.namespaceId,
        outcome: 'FAILURE',
        reason: failure.code,
        details: { agentId: payload.agentId, deployedBy: payload.actorId, code: failure.code },
      });
    },
  });
}
