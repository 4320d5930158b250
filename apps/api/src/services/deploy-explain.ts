import type { Takeover } from '@occ/domain/composition';
import { NotFoundError } from '@occ/domain/errors';
import { freezeRevision } from '@occ/domain/revision';

import { evaluateDeploy, readSelection, type DeployCheck, type DeploySelection } from './deploy-checks.ts';
import type { Actor, Deps } from './deps.ts';
import { kinds } from './resource-kinds.ts';

// explainDeploy (D6): the checks deployAgent would apply, each with pass or fail and a fix,
// without writing anything: no revision, no work item, no audit event, no lock held. RC3: and what
// the deploy would take from the agent's own changes on its instance, before the click.

export interface DeployExplanation {
  agentId: string;
  /** Whether deployAgent would admit the agent now. */
  allowed: boolean;
  checks: DeployCheck[];
  /** RC3: the items the agent set that this deploy would replace; null when they could not be read. */
  takeovers: Takeover[] | null;
}

/** RC3: the takeovers of a deploy of the selection as it is now, read from the live instance (writes nothing). */
async function previewTakeovers(deps: Deps, selection: DeploySelection): Promise<Takeover[] | null> {
  const { agent, configuration, namespace } = selection;
  const versions = new Map(selection.secrets.map((s) => [s.id, s.version]));
  let frozen;
  try {
    frozen = freezeRevision({
      agent: {
        id: agent.id,
        namespaceId: agent.namespaceId,
        servicePrincipalId: agent.servicePrincipalId,
        harnessProvider: agent.harnessProvider,
        harnessSecretId: agent.harnessSecretId,
        selfConfigure: { enabled: agent.selfConfigureEnabled, allowedActions: agent.selfConfigureActions, approval: agent.selfConfigureApproval },
      },
      configuration,
      secretVersions: versions,
      secretDriverId: deps.secretDriver.id,
      previousNumber: 0,
      createdById: agent.servicePrincipalId,
    });
  } catch {
    // A selection admission would refuse (a missing or foreign secret): the checks say why.
    return null;
  }
  const sources = selection.secrets.filter((s) => s.namespaceId === agent.namespaceId).map((s) => ({ secretId: s.id, namespaceId: s.namespaceId, name: s.backendName, uid: s.backendUid, outsideChangeSeenAt: s.outsideChangeSeenAt }));
  try {
    return await deps.computeDriver.previewTakeovers(frozen, { installationId: deps.installationId, k8sNamespace: namespace.k8sName, revisionId: 'preview', sources });
  } catch (error) {
    deps.logger.warn('explainDeploy could not read the instance for takeovers', { error, agentId: agent.id });
    return null;
  }
}

export async function explainDeploy(deps: Deps, actor: Actor, input: { agentId: string }): Promise<DeployExplanation> {
  const agent = await kinds.require(deps, actor, 'agent', input.agentId);
  const selection = await readSelection(deps.db, agent.id);
  if (!selection) throw new NotFoundError('No such agent.');
  const checks = await evaluateDeploy(deps, deps.db, actor.principalId, selection);
  const takeovers = selection.namespace.status === 'READY' ? await previewTakeovers(deps, selection) : [];
  return { agentId: agent.id, allowed: checks.every((c) => c.passed), checks, takeovers };
}
