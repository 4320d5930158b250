import { ConflictError, ForbiddenError, NamespaceNotReadyError, NotFoundError, ValidationError } from '@occ/domain/errors';
import { freezeRevision, revisionSecretIds } from '@occ/domain/revision';
import { afterRollback, transaction, type Tx } from '../db/client.ts';
import { newId } from '../ids.ts';
import { authorize, deny } from './access.ts';
import { audit } from './audit.ts';
import { evaluateDeploy, readSelection, type DeployCheck, type DeploySelection } from './deploy-checks.ts';
import { DEPLOY_REVISION_KIND, type DeployRevisionPayload } from './deploy-work-payload.ts';
import { deployKey } from './deploy-work.ts';
import type { Actor, Deps } from './deps.ts';
import { lockNamespace } from './locks.ts';
import { recordOutsideChange } from './secret-outside-change.ts';
import { findRevision, type RevisionView } from './revisions.ts';
import { enqueue } from './work-queue.ts';
import { kinds } from './resource-kinds.ts';
import { capabilityRequest } from './capabilities.ts';

// deployAgent (D1–D4): admits the Agent's current selection and freezes it as a queued
// AgentRevision; the worker prepares and activates it (W1–W5). Admission runs under the namespace
// lock, so bindings, grants on the namespace's secrets and deletions cannot change half-way.


/**
 * Answers the first failed check as the error deployAgent returns for it. Denials are audited
 * after the rollback (the namespace lock is held). A refusal caused by the Agent's own principal
 * names it and the grant to add (A3); every other denial is bare.
 */
async function refuse(deps: Deps, actor: Actor, tx: Tx, agent: { id: string; namespaceId: string }, failed: DeployCheck): Promise<never> {
  switch (failed.id) {
    case 'CALLER_MAY_DEPLOY':
      return deny(deps, actor, capabilityRequest('agent', 'deploy', agent), tx);
    case 'NAMESPACE_READY': {
      const ns = await tx.namespace.findUnique({ where: { id: agent.namespaceId }, select: { status: true, k8sName: true } });
      throw ns ? NamespaceNotReadyError.of(ns) : new NamespaceNotReadyError('DELETING');
    }
    case 'AGENT_ACTIVE':
      throw new ConflictError(failed.message, 'AGENT_NOT_ACTIVE');
    case 'CHANNEL_BINDINGS':
      throw new ValidationError('MISSING_CHANNEL_BINDING', failed.message, 'configuration');
    case 'CALLER_MAY_OPERATE_SECRET': {
      const request = { action: 'operate', resourceKind: 'secret', namespaceId: agent.namespaceId, resourceId: failed.secretId } as const;
      if (!failed.callerSeesSecret) {
        const error = new NotFoundError(`No secret ${failed.secretId} in this namespace.`);
        afterRollback(error, () =>
          audit(deps.db, { actorId: actor.principalId, action: 'secret.read', resourceKind: 'secret', resourceId: failed.secretId, namespaceId: agent.namespaceId, outcome: 'DENIED', reason: 'not readable: answered NOT_FOUND' }),
        );
        throw error;
      }
      return deny(deps, actor, request, tx);
    }
    case 'AGENT_MAY_OPERATE_SECRET': {
      const grant = failed.missingGrant!;
      const error = new ForbiddenError(`The agent's service principal ${grant.subjectId} may not operate secret ${grant.resourceId}: grant it the role secret-operator on that secret.`, grant);
      afterRollback(error, () =>
        audit(deps.db, {
          actorId: actor.principalId,
          action: 'agent.deploy',
          resourceKind: 'agent',
          resourceId: agent.id,
          namespaceId: agent.namespaceId,
          outcome: 'DENIED',
          reason: 'AGENT_NOT_AUTHORIZED',
          details: { missingGrant: { ...grant } },
        }),
      );
      throw error;
    }
    case 'BACKEND_IDENTITY':
      throw new ConflictError(`${failed.message} Nothing was deployed.`, 'BACKEND_IDENTITY_CHANGED');
  }
}

/**
 * What a deploy freezes, read under the namespace lock: the Agent's selection as it is now
 * (deployAgent), or an earlier revision's frozen one (rollbackAgent, V7). Either way the same
 * checks admit it and the same audit records it, under the source's action and with its details.
 */
export interface DeploySource {
  select(tx: Tx, agentId: string): Promise<DeploySelection | null>;
  auditAction: string;
  auditDetails?: Record<string, unknown>;
  /**
   * V4: the rollout step deploying it (AgentRevision.rolloutStep). A revision of the agent already
   * recorded under this step is answered instead of a second deploy: a resumed rollout never
   * deploys a member twice.
   */
  rolloutStep?: string;
}

const CURRENT_SELECTION: DeploySource = { select: readSelection, auditAction: 'agent.deploy' };

export async function deployAgent(deps: Deps, actor: Actor, input: { agentId: string }, source: DeploySource = CURRENT_SELECTION): Promise<RevisionView> {
  const agent = await kinds.require(deps, actor, 'agent', input.agentId);
  // Checked before the lock too, so a caller without deploy never waits on (or learns about) it.
  await authorize(deps, actor, capabilityRequest('agent', 'deploy', agent));
  const revisionId = await transaction(deps.db, async (tx) => {
    if (!(await lockNamespace(tx, agent.namespaceId))) throw new NotFoundError('No such agent.');
    const selection = await source.select(tx, agent.id);
    if (!selection) throw new NotFoundError('No such agent.');
    const checks = await evaluateDeploy(deps, tx, actor.principalId, selection);
    const failed = checks.find((c) => !c.passed);
    if (failed) await refuse(deps, actor, tx, agent, failed);
    // RC4: a value changed outside the product becomes the secret's next version, which this
    // revision freezes and delivers (never the version it was before).
    for (const check of checks) {
      if (!check.outsideChange || !check.secretId) continue;
      const version = await recordOutsideChange(tx, { id: check.secretId, namespaceId: agent.namespaceId }, check.outsideChange);
      const row = selection.secrets.find((s) => s.id === check.secretId);
      if (row && version !== null) row.version = version;
    }
    // D4: the number follows the agent's last revision; the agent row lock orders concurrent deploys.
    await tx.$queryRaw`SELECT id FROM "Agent" WHERE id = ${agent.id} FOR UPDATE`;
    if (source.rolloutStep) {
      const done = await tx.agentRevision.findFirst({ where: { agentId: agent.id, rolloutStep: source.rolloutStep }, select: { id: true } });
      if (done) return done.id;
    }
    const last = await tx.agentRevision.findFirst({ where: { agentId: agent.id }, orderBy: { number: 'desc' }, select: { number: true } });
    const a = selection.agent;
    const frozen = freezeRevision({
      agent: {
        id: a.id,
        namespaceId: a.namespaceId,
        servicePrincipalId: a.servicePrincipalId,
        harnessProvider: a.harnessProvider,
        harnessSecretId: a.harnessSecretId,
        selfConfigure: { enabled: a.selfConfigureEnabled, allowedActions: a.selfConfigureActions, approval: a.selfConfigureApproval },
      },
      configuration: selection.configuration,
      secretVersions: new Map(selection.secrets.map((s) => [s.id, s.version])),
      secretDriverId: deps.secretDriver.id,
      previousNumber: last?.number ?? 0,
      createdById: actor.principalId,
    });
    const id = newId('revision');
    await tx.agentRevision.create({
      data: {
        id,
        agentId: frozen.agentId,
        namespaceId: frozen.namespaceId,
        number: frozen.number,
        configurationId: frozen.configuration?.id ?? null,
        configurationGeneration: frozen.configuration?.generation ?? null,
        values: (frozen.configuration?.values ?? {}) as object,
        secretDriverId: frozen.secretDriverId,
        harnessProvider: frozen.harnessAuth?.provider ?? null,
        harnessSecretId: frozen.harnessAuth?.source.id ?? null,
        servicePrincipalId: frozen.servicePrincipalId,
        selfConfigureEnabled: frozen.selfConfigure.enabled,
        selfConfigureActions: frozen.selfConfigure.allowedActions,
        selfConfigureApproval: frozen.selfConfigure.approval ?? [],
        createdById: frozen.createdById,
        state: 'QUEUED',
        rolloutStep: source.rolloutStep ?? null,
        secrets: { create: frozen.secrets.map((s) => ({ secretId: s.source.id, purpose: s.purpose, envName: s.envName, version: s.version })) },
      },
    });
    await tx.agent.update({ where: { id: agent.id }, data: { desiredState: 'running' } });
    const payload: DeployRevisionPayload = { revisionId: id, agentId: agent.id, namespaceId: agent.namespaceId, actorId: actor.principalId, secretIds: revisionSecretIds(frozen) };
    await enqueue(tx, DEPLOY_REVISION_KIND, `${DEPLOY_REVISION_KIND}:${id}`, payload, { concurrencyKey: deployKey(agent.id) });
    await audit(tx, {
      actorId: actor.principalId,
      action: source.auditAction,
      resourceKind: 'agent',
      resourceId: agent.id,
      namespaceId: agent.namespaceId,
      outcome: 'SUCCESS',
      details: {
        ...source.auditDetails,
        revisionId: id,
        number: frozen.number,
        configurationId: frozen.configuration?.id ?? null,
        configurationGeneration: frozen.configuration?.generation ?? null,
        secrets: frozen.secrets.map((s) => ({ envName: s.envName, secretId: s.source.id, version: s.version, purpose: s.purpose })),
      },
    });
    return id;
  });
  deps.kickWorker?.();
  const revision = await findRevision(deps.db, revisionId);
  if (!revision) throw new NotFoundError('No such revision.');
  return revision;
}
