import { ConflictError, NotFoundError, ValidationError } from '@occ/domain/errors';
import type { RevisionSecretPurpose } from '@occ/domain/revision';
import type { Tx } from '../db/client.ts';
import { authorize } from './access.ts';
import { deployAgent } from './deploy-agent.ts';
import { readSelection, selectionSecretIds, type ConfigurationRow, type DeploySelection } from './deploy-checks.ts';
import type { Actor, Deps } from './deps.ts';
import { type RevisionView } from './revisions.ts';
import { kinds } from './resource-kinds.ts';
import { capabilityRequest } from './capabilities.ts';

// V7 rollbackAgent: a NEW revision frozen from an earlier revision's configuration snapshot
// (values and bindings) and harnessAuth, not from the Configuration as it is now, admitted by
// deployAgent's own path (D1–D4, C6: every check, the same refusals, the same work item); only the
// audit action and its details differ. What stays the agent's as it is now: its service principal
// (immutable) and selfConfigure, a permission an administrator sets on the agent, which a rollback
// of configuration must not quietly widen again.

export interface RollbackDelivery {
  purpose: RevisionSecretPurpose;
  envName: string;
  secretId: string;
  /** The version the earlier revision delivered. */
  requestedVersion: number;
  /** The version the new revision delivers. */
  versionUsed: number;
  /** Whether the requested version is still retained (not retired, V3): then it is the one delivered. */
  requestedVersionRetained: boolean;
}

export interface RollbackResult {
  revision: RevisionView;
  from: RevisionView;
  deliveries: RollbackDelivery[];
}

/**
 * Whether a revision ever ran Ready: active now, or recorded by the worker's `revision.ready`
 * audit event, written in the transaction that made it ACTIVE (so it cannot be missing for one
 * that was).
 */
async function becameActive(deps: Deps, revision: RevisionView): Promise<boolean> {
  if (revision.state === 'active') return true;
  const ready = await deps.db.auditEvent.findFirst({ where: { action: 'revision.ready', resourceId: revision.id, outcome: 'SUCCESS' }, select: { id: true } });
  return ready !== null;
}

/**
 * The agent's selection with the earlier revision's frozen configuration and harnessAuth in it, and
 * each secret at the version that revision delivered while that version is retained (V3 has not
 * retired it), else at its current one. A retained version stands in for the secret's current
 * object, so D3 checks the identity of exactly the object the new revision will deliver (V2).
 */
function frozenSelection(from: RevisionView) {
  return async (tx: Tx, agentId: string): Promise<DeploySelection | null> => {
    const current = await readSelection(tx, agentId);
    if (!current) return null;
    const agent = { ...current.agent, harnessProvider: from.harnessAuth?.provider ?? null, harnessSecretId: from.harnessAuth?.source.id ?? null };
    const bindings = from.secrets.filter((s) => s.purpose === 'binding').map((s) => ({ envName: s.envName, secretId: s.source.id, deliveryType: 'env' }));
    const configuration: ConfigurationRow | null = from.configurationId
      ? { id: from.configurationId, namespaceId: from.namespaceId, generation: from.configurationGeneration ?? 0, values: from.values, bindings }
      : null;
    const ids = selectionSecretIds(agent, configuration);
    const rows = ids.length ? await tx.secret.findMany({ where: { id: { in: ids } } }) : [];
    // One revision freezes one version per secret (freezeRevision keys them by secret id).
    const requested = new Map(from.secrets.map((s) => [s.source.id, s.version]));
    const retained = rows.length
      ? await tx.secretVersion.findMany({ where: { retiredAt: null, OR: rows.map((r) => ({ secretId: r.id, number: requested.get(r.id) ?? r.version })) } })
      : [];
    const secrets = rows.map((row) => {
      const version = retained.find((v) => v.secretId === row.id);
      if (!version || version.number === row.version) return row;
      return { ...row, version: version.number, backendNamespace: version.backendNamespace, backendName: version.backendName, backendKey: version.backendKey, backendUid: version.backendUid };
    });
    return { ...current, agent, configuration, secrets };
  };
}

export async function rollbackAgent(deps: Deps, actor: Actor, input: { agentId: string; toRevision: string }, options: { rolloutStep?: string; auditDetails?: Record<string, unknown> } = {}): Promise<RollbackResult> {
  const agent = await kinds.require(deps, actor, 'agent', input.agentId);
  await authorize(deps, actor, capabilityRequest('agent', 'deploy', agent));
  // A revision the caller cannot read answers exactly as one that does not exist (P6).
  const from = await kinds.get(deps, actor, 'agentRevision', input.toRevision);
  if (!from) throw new NotFoundError('No such revision.');
  if (from.agentId !== agent.id) throw new ValidationError('REVISION_OF_ANOTHER_AGENT', 'The revision belongs to another agent; an agent rolls back only to one of its own revisions.', 'toRevision');
  // Rolling back returns to a state that ran: a revision that failed, or was superseded before it
  // was Ready, never proved it does. Its configuration can still be deployed the ordinary way.
  if (!(await becameActive(deps, from))) {
    throw new ConflictError(`Revision ${from.number} never became active; only a revision that ran Ready can be rolled back to.`, 'REVISION_NEVER_ACTIVE');
  }
  const revision = await deployAgent(deps, actor, { agentId: agent.id }, {
    select: frozenSelection(from),
    auditAction: 'agent.rollback',
    auditDetails: { ...options.auditDetails, rolledBackTo: { revisionId: from.id, number: from.number, secrets: from.secrets.map((s) => ({ envName: s.envName, secretId: s.source.id, version: s.version })) } },
    ...(options.rolloutStep ? { rolloutStep: options.rolloutStep } : {}),
  });
  const requested = new Map(from.secrets.map((s) => [s.envName, s.version]));
  const deliveries = revision.secrets.map((s) => {
    const requestedVersion = requested.get(s.envName) ?? s.version;
    return { purpose: s.purpose, envName: s.envName, secretId: s.source.id, requestedVersion, versionUsed: s.version, requestedVersionRetained: requestedVersion === s.version };
  });
  return { revision, from, deliveries };
}
