import { NotFoundError } from '@occ/domain/errors';
import { isId } from '@occ/domain/ids';
import { agentInstanceName } from '@occ/domain/kubernetes-names';
import { appliedMessage, planSelfConfig } from '@occ/domain/selfconfig';
import { specChanges, type SpecChange } from '@occ/domain/selfconfig-preview';
import { classifyKubeError } from '../kube/errors.ts';
import { agentContext } from '../selfconfig/history.ts';
import { refusedFields } from '../selfconfig/reconcile.ts';
import { auditHiddenDenial, check, deny } from './access.ts';
import type { Actor, Deps } from './deps.ts';
import { selfConfigSpecOfInput, type RequestSelfConfigInput } from './request-selfconfig.ts';
import type { SelfConfigRequestView } from './selfconfig-requests.ts';

export interface SelfConfigPreview {
  /** What the request would end as now: Applied, or the Failed/Denied of SC3/SC4. */
  outcome: 'Applied' | 'Failed' | 'Denied';
  reason: string;
  message: string;
  changes: SpecChange[];
  skippedRemovals: SelfConfigRequestView['skippedRemovals'];
}

const MAX_CONFLICTS = 3;

/**
 * SG2 without filing: the change a request would make to the agent's instance now, computed as the
 * controller computes it (the plan, then a server-side dry-run apply of its body with the
 * openclaw-selfconfig field manager), and the removals it could not make and why (SC7). Nothing is
 * created or stored. Who may ask: the agent's own service principal (it is about to ask for the
 * change) and whoever may administer the agent (who would approve it, SG3); a reader who may not is
 * FORBIDDEN, anyone else NOT_FOUND (P6), both audited. The budget (SG4) is not consulted: a preview
 * spends none of it.
 */
export async function previewSelfConfig(deps: Deps, actor: Actor, input: RequestSelfConfigInput): Promise<SelfConfigPreview> {
  const cluster = deps.selfConfigCluster;
  if (!cluster) throw new Error('no Kubernetes cluster is wired for SelfConfig');
  const parsed = selfConfigSpecOfInput(input);
  const agent = isId('agent', input.agentId)
    ? await deps.db.agent.findUnique({ where: { id: input.agentId }, select: { id: true, namespaceId: true, servicePrincipalId: true, namespace: { select: { k8sName: true } } } })
    : null;
  if (!agent) throw new NotFoundError('No such agent.');
  const own = actor.kind === 'SERVICE' && agent.servicePrincipalId === actor.principalId;
  if (!own) {
    const target = { resourceKind: 'agent', namespaceId: agent.namespaceId, resourceId: agent.id } as const;
    if (!(await check(deps.db, actor, { action: 'administer', ...target })).allowed) {
      if (!(await check(deps.db, actor, { action: 'read', ...target })).allowed) {
        await auditHiddenDenial(deps, actor, { kind: 'agent', id: agent.id, namespaceId: agent.namespaceId });
        throw new NotFoundError('No such agent.');
      }
      await deny(deps, actor, { action: 'administer', ...target });
    }
  }

  const namespace = agent.namespace.k8sName;
  const instanceRef = agentInstanceName(agent.id);
  const spec = { ...parsed.spec, instanceRef };
  const context = await agentContext(deps.db, namespace, instanceRef);
  for (let conflicts = 0; ; conflicts++) {
    const instance = await cluster.getInstance(namespace, instanceRef);
    const decision = planSelfConfig(
      spec,
      instance ? { name: instance.metadata.name, namespace, resourceVersion: instance.metadata.resourceVersion, spec: instance.spec ?? {}, managedFields: instance.metadata.managedFields } : null,
      { secretBoundEnvNames: context?.secretBoundEnvNames ?? [] },
    );
    if (decision.phase !== 'Apply') return { outcome: decision.phase, reason: decision.reason, message: decision.message, changes: [], skippedRemovals: [] };
    try {
      const preview = await cluster.applyInstance(decision.body, { dryRun: true });
      return {
        outcome: 'Applied',
        reason: 'Applied',
        message: appliedMessage(decision.skipped),
        changes: specChanges(instance?.spec ?? {}, preview.spec ?? {}),
        skippedRemovals: decision.skipped.map((s) => ({ kind: s.kind, name: s.name, why: s.why, managers: s.managers.map((m) => ({ manager: m.manager, operation: m.operation })) })),
      };
    } catch (error) {
      const failure = classifyKubeError(error);
      // As the controller words it: the instance's schema refuses the result (a limit, SC6).
      if (failure.kind === 'refused' && failure.code === 422) {
        return { outcome: 'Failed', reason: 'Invalid', message: `the instance refused the change (422 Invalid): ${refusedFields(error)}`, changes: [], skippedRemovals: [] };
      }
      // The instance changed between the read and the dry run: read it again.
      if (failure.kind !== 'conflict' || conflicts >= MAX_CONFLICTS) throw error;
    }
  }
}
