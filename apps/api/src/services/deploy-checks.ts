import { builtInRole, decide, type AccessRequest, type BindingView } from '@occ/domain/access';
import { missingChannelBindings } from '@occ/domain/configuration';
import { isRecordedOutsideChange } from '@occ/domain/field-ownership';
import type { MissingGrant } from '@occ/domain/errors';
import type { Db, Tx } from '../db/client.ts';
import { loadBindingsOf } from './access.ts';
import type { Deps } from './deps.ts';
import type { ObservedOutsideChange } from './secret-outside-change.ts';

// The admission checks of a deploy (D1–D3, C6), computed once and used twice: deployAgent stops
// at the first failure and answers it as an error; explainDeploy (D6) reports every check with a
// fix and writes nothing. The worker's re-checks (W2) reuse the authorization part.

export type DeployCheckId =
  | 'CALLER_MAY_DEPLOY'
  | 'NAMESPACE_READY'
  | 'AGENT_ACTIVE'
  | 'CHANNEL_BINDINGS'
  | 'CALLER_MAY_OPERATE_SECRET'
  | 'AGENT_MAY_OPERATE_SECRET'
  | 'BACKEND_IDENTITY';

export interface DeployCheck {
  id: DeployCheckId;
  rule: 'D1' | 'D2' | 'D3' | 'C6';
  passed: boolean;
  /** What was checked, or why it failed; names and ids only. */
  message: string;
  /** For a failure: what to do about it. */
  fix: string | null;
  secretId: string | null;
  /** For AGENT_MAY_OPERATE_SECRET: the grant to add to the Agent's service principal (A3). */
  missingGrant: MissingGrant | null;
  /** For CALLER_MAY_OPERATE_SECRET: whether the caller may read the secret (else a refusal says NOT_FOUND, P6). */
  callerSeesSecret?: boolean;
  /** For BACKEND_IDENTITY (RC4): the value was changed outside the product; a deploy records it as the next version and delivers that. */
  outsideChange?: ObservedOutsideChange;
}

export interface AgentRow {
  id: string;
  namespaceId: string;
  name: string;
  servicePrincipalId: string;
  configurationId: string | null;
  harnessProvider: string | null;
  harnessSecretId: string | null;
  selfConfigureEnabled: boolean;
  selfConfigureActions: string[];
  selfConfigureApproval: string[];
  status: string;
}

export interface ConfigurationRow {
  id: string;
  namespaceId: string;
  generation: number;
  values: unknown;
  bindings: Array<{ envName: string; secretId: string; deliveryType: string }>;
}

export interface SecretRow {
  id: string;
  namespaceId: string;
  name: string;
  driverId: string;
  backendNamespace: string;
  backendName: string;
  backendKey: string;
  backendUid: string;
  version: number;
  outsideChangeSeenAt: string | null;
}

/** What admission read: the Agent's selection as it is now, and each Secret's metadata. */
export interface DeploySelection {
  namespace: { id: string; status: string; k8sName: string };
  agent: AgentRow;
  configuration: ConfigurationRow | null;
  secrets: SecretRow[];
}

/** Agent states in which a deploy is refused (deleteAgent moves an agent through them). */
const INACTIVE_AGENT_STATUSES = new Set(['deleting', 'deleted']);

/** Every Secret id the Agent's selection delivers: bound ones, then the harnessAuth one. */
export function selectionSecretIds(agent: Pick<AgentRow, 'harnessSecretId'>, configuration: Pick<ConfigurationRow, 'bindings'> | null): string[] {
  const ids = (configuration?.bindings ?? []).map((b) => b.secretId);
  if (agent.harnessSecretId) ids.push(agent.harnessSecretId);
  return [...new Set(ids)];
}

/** Reads the Agent's selection (under the namespace lock when `db` is a transaction). */
export async function readSelection(db: Db | Tx, agentId: string): Promise<DeploySelection | null> {
  const agent = await db.agent.findUnique({ where: { id: agentId } });
  if (!agent) return null;
  const namespace = await db.namespace.findUnique({ where: { id: agent.namespaceId }, select: { id: true, status: true, k8sName: true } });
  if (!namespace) return null;
  const configuration = agent.configurationId
    ? await db.configuration.findUnique({
        where: { id: agent.configurationId },
        select: { id: true, namespaceId: true, generation: true, values: true, bindings: { select: { envName: true, secretId: true, deliveryType: true }, orderBy: { envName: 'asc' } } },
      })
    : null;
  const ids = selectionSecretIds(agent, configuration);
  const secrets = ids.length ? await db.secret.findMany({ where: { id: { in: ids } } }) : [];
  return { namespace, agent, configuration, secrets };
}

export function agentMissingGrant(agent: Pick<AgentRow, 'servicePrincipalId' | 'namespaceId'>, secretId: string): MissingGrant {
  return {
    subjectId: agent.servicePrincipalId,
    action: 'operate',
    resourceKind: 'secret',
    resourceId: secretId,
    namespaceId: agent.namespaceId,
    roleId: builtInRole('secret-operator').id,
  };
}

function pass(id: DeployCheckId, rule: DeployCheck['rule'], message: string, secretId: string | null = null): DeployCheck {
  return { id, rule, passed: true, message, fix: null, secretId, missingGrant: null };
}

function fail(id: DeployCheckId, rule: DeployCheck['rule'], message: string, fix: string, secretId: string | null = null, missingGrant: MissingGrant | null = null): DeployCheck {
  return { id, rule, passed: false, message, fix, secretId, missingGrant };
}

/**
 * Every check, in the order deployAgent applies them. D3 asks the secret driver for each Secret's
 * identity: a watch cache may confirm it as recorded; a missing or different object is always
 * decided on a live read. Authorization is decided from the bindings as `db` sees them.
 */
export async function evaluateDeploy(deps: Pick<Deps, 'secretDriver'>, db: Db | Tx, actorId: string, selection: DeploySelection): Promise<DeployCheck[]> {
  const { agent, namespace, configuration, secrets } = selection;
  const bindings = await loadBindingsOf(db, [actorId, agent.servicePrincipalId]);
  const may = (subjectId: string, request: Omit<AccessRequest, 'subjectId'>) => decide(bindings.get(subjectId) ?? ([] as BindingView[]), { ...request, subjectId }).allowed;
  const checks: DeployCheck[] = [];
  const onAgent = { resourceKind: 'agent', namespaceId: agent.namespaceId, resourceId: agent.id } as const;
  checks.push(
    may(actorId, { action: 'deploy', ...onAgent })
      ? pass('CALLER_MAY_DEPLOY', 'D1', `You may deploy agent ${agent.name}.`)
      : fail('CALLER_MAY_DEPLOY', 'D1', `You have no grant of deploy on agent ${agent.name}.`, `Ask an administrator for a role with deploy on agent ${agent.id} (namespace-editor carries it).`),
  );
  checks.push(
    namespace.status === 'READY'
      ? pass('NAMESPACE_READY', 'D1', 'The namespace is ready.')
      : fail(
          'NAMESPACE_READY',
          'D1',
          `The namespace is ${namespace.status.toLowerCase()}, not ready.`,
          namespace.status === 'LOST'
            ? 'Its Kubernetes namespace was deleted outside the product: re-provision the namespace (reprovisionNamespace), store each secret value again (updateSecret), then deploy.'
            : 'Wait for the namespace to become ready, or recreate it if it failed.',
        ),
  );
  checks.push(
    INACTIVE_AGENT_STATUSES.has(agent.status)
      ? fail('AGENT_ACTIVE', 'D1', `The agent is ${agent.status}.`, 'A deleted agent cannot be deployed; create a new one.')
      : pass('AGENT_ACTIVE', 'D1', 'The agent is active.'),
  );
  const missingChannels = configuration ? missingChannelBindings(configuration.values, configuration.bindings.map((b) => b.envName)) : [];
  checks.push(
    missingChannels.length === 0
      ? pass('CHANNEL_BINDINGS', 'C6', 'Every enabled channel credential has a binding.')
      : fail(
          'CHANNEL_BINDINGS',
          'C6',
          `Enabled channel credentials without a binding: ${missingChannels.map((m) => `${m.path} needs ${m.envName}`).join('; ')}.`,
          `Bind ${missingChannels.map((m) => m.envName).join(', ')} in configuration ${configuration!.id}, or disable the channel.`,
        ),
  );
  const byId = new Map(secrets.map((s) => [s.id, s]));
  for (const secretId of selectionSecretIds(agent, configuration)) {
    const secret = byId.get(secretId);
    const label = secret ? `secret ${secret.name} (${secretId})` : `secret ${secretId}`;
    const onSecret = { resourceKind: 'secret', namespaceId: agent.namespaceId, resourceId: secretId } as const;
    const callerSees = may(actorId, { action: 'read', ...onSecret });
    const callerCheck = may(actorId, { action: 'operate', ...onSecret })
      ? pass('CALLER_MAY_OPERATE_SECRET', 'D2', `You may operate ${label}.`, secretId)
      : fail('CALLER_MAY_OPERATE_SECRET', 'D2', `You have no grant of operate on ${label}.`, `Ask an administrator to grant you operate on secret ${secretId}.`, secretId);
    checks.push({ ...callerCheck, callerSeesSecret: callerSees });
    checks.push(
      may(agent.servicePrincipalId, { action: 'operate', ...onSecret })
        ? pass('AGENT_MAY_OPERATE_SECRET', 'D2', `The agent's service principal ${agent.servicePrincipalId} may operate ${label}.`, secretId)
        : fail(
            'AGENT_MAY_OPERATE_SECRET',
            'D2',
            `The agent's service principal ${agent.servicePrincipalId} has no grant of operate on ${label}.`,
            `Grant ${agent.servicePrincipalId} the role secret-operator on secret ${secretId}.`,
            secretId,
            agentMissingGrant(agent, secretId),
          ),
    );
    if (!secret || secret.namespaceId !== agent.namespaceId) {
      checks.push(fail('BACKEND_IDENTITY', 'D3', `${label} is not in the agent's namespace.`, 'Bind a secret of this namespace.', secretId));
      continue;
    }
    const resolved = await deps.secretDriver.resolve(
      { k8sNamespace: secret.backendNamespace, name: secret.backendName, key: secret.backendKey, uid: secret.backendUid },
      { namespaceId: secret.namespaceId, secretId: secret.id },
      { cached: true },
    );
    if (resolved.state === 'present' && resolved.outsideWriters.length > 0 && !isRecordedOutsideChange(secret.outsideChangeSeenAt, resolved.outsideWriters)) {
      const by = resolved.outsideWriters.map((w) => `${w.manager} (${w.operation})`).join(', ');
      checks.push({
        ...pass('BACKEND_IDENTITY', 'D3', `The value of ${label} was changed outside the product by ${by}: a deploy records it as version ${secret.version + 1} and delivers that version.`, secretId),
        outsideChange: { writers: resolved.outsideWriters },
      });
      continue;
    }
    checks.push(
      resolved.state === 'present'
        ? pass('BACKEND_IDENTITY', 'D3', `The Kubernetes Secret of ${label} is the one recorded.`, secretId)
        : fail(
            'BACKEND_IDENTITY',
            'D3',
            resolved.state === 'missing' ? `The Kubernetes Secret of ${label} no longer exists.` : `The Kubernetes Secret of ${label} is not the one recorded: ${resolved.reason}.`,
            'Restore the recorded object or store the value again as a new secret and bind that one; the control plane never adopts another object.',
            secretId,
          ),
    );
  }
  return checks;
}

export type RecheckFailure = { code: string; message: string };

/**
 * W2: before preparation and again before activation, the revision is admitted again against the
 * world as it is now: the deploying actor still may deploy the agent and operate each secret, the
 * agent's principal still may operate each secret, each secret still exists in the same namespace
 * with the revision's driver, and the namespace is ready. Reads only; the worker records a failure.
 */
export async function recheckRevision(
  db: Db | Tx,
  revision: { agentId: string; namespaceId: string; servicePrincipalId: string; secretDriverId: string; createdById: string; secretIds: readonly string[] },
): Promise<RecheckFailure | null> {
  const namespace = await db.namespace.findUnique({ where: { id: revision.namespaceId }, select: { status: true } });
  if (!namespace || namespace.status !== 'READY') return { code: 'NAMESPACE_NOT_READY', message: `The namespace is ${namespace ? namespace.status.toLowerCase() : 'gone'}, not ready.` };
  const agent = await db.agent.findUnique({ where: { id: revision.agentId }, select: { status: true } });
  if (!agent || INACTIVE_AGENT_STATUSES.has(agent.status)) return { code: 'AGENT_GONE', message: 'The agent was deleted.' };
  const bindings = await loadBindingsOf(db, [revision.createdById, revision.servicePrincipalId]);
  const may = (subjectId: string, request: Omit<AccessRequest, 'subjectId'>) => decide(bindings.get(subjectId) ?? [], { ...request, subjectId }).allowed;
  const creator = await db.principal.findUnique({ where: { id: revision.createdById }, select: { disabledAt: true } });
  if (!creator || creator.disabledAt || !may(revision.createdById, { action: 'deploy', resourceKind: 'agent', namespaceId: revision.namespaceId, resourceId: revision.agentId })) {
    return { code: 'ACTOR_NOT_AUTHORIZED', message: `The deploying principal ${revision.createdById} may no longer deploy this agent.` };
  }
  const secrets = await db.secret.findMany({ where: { id: { in: [...revision.secretIds] } }, select: { id: true, namespaceId: true, driverId: true } });
  const byId = new Map(secrets.map((s) => [s.id, s]));
  for (const secretId of revision.secretIds) {
    const secret = byId.get(secretId);
    if (!secret || secret.namespaceId !== revision.namespaceId) return { code: 'SECRET_MISSING', message: `Secret ${secretId} no longer exists in the agent's namespace.` };
    if (secret.driverId !== revision.secretDriverId) return { code: 'SECRET_DRIVER_CHANGED', message: `Secret ${secretId} is now stored by another driver than the revision admitted.` };
    const onSecret = { action: 'operate', resourceKind: 'secret', namespaceId: revision.namespaceId, resourceId: secretId } as const;
    if (!may(revision.createdById, onSecret)) return { code: 'ACTOR_NOT_AUTHORIZED', message: `The deploying principal ${revision.createdById} may no longer operate secret ${secretId}.` };
    if (!may(revision.servicePrincipalId, onSecret)) {
      return { code: 'AGENT_NOT_AUTHORIZED', message: `The agent's service principal ${revision.servicePrincipalId} may no longer operate secret ${secretId}.` };
    }
  }
  return null;
}
