import { childDrift, type ForeignWriter } from '@occ/domain/child-drift';
import { isRenderable, renderGateway, type GatewayRender, type InstanceObject } from '@occ/domain/gateway-render';
import { instanceStatus, statusWrite, type InstanceCondition, type InstanceStatus, type ObservedDeployment, type ObservedPod } from '@occ/domain/instance-status';
import { AGENT_ID_LABEL, FIELD_MANAGER, NAMESPACE_ID_LABEL, withoutBackendNames } from '@occ/domain/kubernetes-names';
import type { Db } from '../db/client.ts';
import { transaction } from '../db/client.ts';
import { classifyKubeError, describeKubeFailure } from '../kube/errors.ts';
import type { Logger } from '../log.ts';
import { audit } from '../services/audit.ts';
import type { ReconcileOutcome } from '../controller/queue.ts';
import type { ChildKind, InstanceCluster, InstanceKey } from './cluster.ts';
import { agentIdOfKey, mirrorRuntime, mirrorMissing, type MirrorMemo } from './runtime-mirror.ts';
import { requestReassert } from '../services/reassert-instance.ts';
import { managerEntries } from '@occ/domain/field-ownership';
import { pathString } from '@occ/domain/fieldsv1';
import { SELF_CONFIG_MANAGER } from '@occ/domain/selfconfig';

// One OpenClawInstance, read from the caches and converged (RC2, kubebuilder's reconcile): render
// the gateway's children from the instance alone, apply what differs, repair and record what
// someone else changed (RC4), write the observed status, mirror it for the agent's derived status
// (RC6). Idempotent: a second run with nothing changed makes no request.

type Obj = Record<string, unknown> & { metadata?: Record<string, unknown> & { name?: string; uid?: string; resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: Array<{ uid?: string }> } };

export interface InstanceReconcileDeps {
  cluster: InstanceCluster;
  db: Db;
  logger: Logger;
  installationId: string;
  clock: () => Date;
  images?: { modelAuth?: string };
  /** How soon to look again while a rollout is under way (the watches usually come first). */
  progressRequeueMs?: number;
  /** How long a status still under way stands before it is written (writeStatus); 0 writes each. */
  progressStatusDelayMs?: number;
  /** Per instance, since when a status under way has been held back (the controller's memory). */
  heldStatus?: Map<string, number>;
  /** The runtime rows this process wrote last (runtime-mirror.ts). */
  mirrored?: MirrorMemo;
  /** Children this process deleted, by uid, and when (collectConfigMaps). */
  deletedChildren?: Map<string, number>;
}

interface Repaired {
  kind: ChildKind;
  name: string;
  how: 'deleted' | 'changed';
  writers: ForeignWriter[];
}

function ids(instance: InstanceObject): { agentId: string; namespaceId: string | null } {
  const labels = instance.metadata.labels ?? {};
  return { agentId: `agt_${labels[AGENT_ID_LABEL] ?? ''}`, namespaceId: labels[NAMESPACE_ID_LABEL] ? `ns_${labels[NAMESPACE_ID_LABEL]}` : null };
}

/** A PUT body that makes the live child exactly the rendering again (RC4), keeping what the server and controllers own in metadata. */
function replacement(live: Obj, rendered: Obj): Obj {
  const m = live.metadata ?? {};
  const r = (rendered.metadata ?? {}) as Obj['metadata'] & object;
  return {
    ...rendered,
    metadata: {
      name: m.name,
      namespace: m.namespace,
      resourceVersion: m.resourceVersion,
      labels: { ...(m.labels ?? {}), ...(r.labels ?? {}) },
      annotations: { ...(m.annotations ?? {}), ...(r.annotations ?? {}) },
      ownerReferences: r.ownerReferences,
    },
  };
}

function describeWriters(writers: readonly ForeignWriter[]): string {
  return writers.map((w) => `${w.manager} (${w.operation}) at ${w.paths.slice(0, 5).join(', ')}${w.paths.length > 5 ? ', …' : ''}`).join('; ');
}

export async function reconcileInstance(deps: InstanceReconcileDeps, key: InstanceKey): Promise<ReconcileOutcome> {
  const { cluster } = deps;
  const instance = cluster.instance(key);
  if (!instance || instance.metadata.deletionTimestamp) {
    await mirrorMissing(deps.db, key, deps.clock(), deps.mirrored);
    // RC1 RC4: an agent that should run has lost its desired state: its active revision's fields are applied again.
    const agentId = agentIdOfKey(key);
    const namespace = agentId ? await deps.db.agent.findUnique({ where: { id: agentId }, select: { namespaceId: true } }) : null;
    if (agentId && namespace && !instance) {
      if (await requestReassert(deps.db, { agentId, namespaceId: namespace.namespaceId, reason: 'INSTANCE_MISSING', managers: [] }, `missing:${deps.clock().toISOString()}`)) {
        deps.logger.warn('an agent\'s instance was deleted outside the product; applying its active revision again', { agentId });
      }
    }
    return {};
  }
  if (!isRenderable(instance, deps.installationId)) return {};
  await restoreProductFields(deps, instance);
  const render = renderGateway(instance, { images: deps.images });
  const generation = instance.metadata.generation ?? 1;
  const previous = (instance.status ?? {}) as Partial<InstanceStatus>;
  // Children missing at a generation already rendered were deleted by someone; before, they are new.
  const renderedBefore = previous.observedGeneration === generation;
  const repaired: Repaired[] = [];
  let applyError: string | null = null;
  let deployment: Obj | null = null;

  const children: Array<[ChildKind, Obj | null, string]> = [
    ['ServiceAccount', render.serviceAccount, render.serviceAccountName],
    ['RoleBinding', render.roleBinding, render.roleBindingName],
    ['ConfigMap', render.configMap, render.configMapName],
    ['Deployment', render.deployment, render.deploymentName],
  ];
  for (const [kind, rendered, name] of children) {
    const live = cluster.child(kind, key.namespace, name);
    try {
      if (rendered === null) {
        // selfConfigure off: the binding an earlier spec made goes (SC5).
        if (live?.metadata?.uid) await cluster.remove(kind, key.namespace, name, live.metadata.uid);
        continue;
      }
      let result: Obj | null = live ?? null;
      if (!live) {
        // A child missing at a generation already rendered may have gone with the instance (its
        // delete not in the cache yet): only an instance that still exists gets it back. A new
        // generation's child is new; made for an instance deleted meanwhile, its ownerReference
        // names a uid that is gone and the garbage collector takes it.
        if (renderedBefore && !(await cluster.instanceExists(key, instance.metadata.uid))) return {};
        result = await cluster.apply(rendered);
        if (renderedBefore) repaired.push({ kind, name, how: 'deleted', writers: [] });
      } else {
        const drift = childDrift(live, rendered, FIELD_MANAGER);
        // An immutable ConfigMap's content cannot change; a writer of its metadata is not drift.
        const writers = kind === 'ConfigMap' ? [] : drift.foreign;
        if (writers.length > 0) {
          result = await cluster.replace(kind, replacement(live, rendered));
          repaired.push({ kind, name, how: 'changed', writers });
        } else if (drift.changed) {
          result = await cluster.apply(rendered);
        }
      }
      if (kind === 'Deployment') deployment = result;
    } catch (error) {
      const failure = classifyKubeError(error);
      if (failure.kind !== 'refused' || failure.code !== 422) throw error;
      applyError = `the API server refused the ${kind} ${name}: ${describeKubeFailure(failure)}`;
      if (kind === 'Deployment') deployment = live ?? null;
    }
  }

  const pods = cluster.pods(key.namespace, render.agentUuid);
  const missingMounts = await mountProblems(deps, key, render, pods);
  const now = deps.clock();
  const status = instanceStatus(
    generation,
    render,
    { deployment: deployment as ObservedDeployment | null, pods: pods as ObservedPod[], missingMounts, applyError },
    now.toISOString(),
    (previous.conditions ?? []) as InstanceCondition[],
  );
  const statusWait = await writeStatus(deps, key, status, instance.status, now.getTime());
  await record(deps, instance, repaired);
  await mirrorRuntime(deps.db, ids(instance).agentId, generation, status, now, deps.mirrored);
  if (status.running?.generation === generation && status.conditions.some((c) => c.type === 'Ready' && c.status === 'True')) await collectConfigMaps(deps, key, render);
  const done = status.phase === 'Running' || status.phase === 'Stopped' || (status.phase === 'Degraded' && !status.conditions.some((c) => c.type === 'Progressing' && c.status === 'True'));
  if (statusWait !== null) return { requeueAfterMs: Math.min(statusWait, deps.progressRequeueMs ?? 5_000) };
  return done ? {} : { requeueAfterMs: deps.progressRequeueMs ?? 5_000 };
}

/**
 * RC2: the observed status is written when it changes, a status still under way once it has
 * stood `progressStatusDelayMs` (statusWrite). The agent's derived status (the runtime mirror)
 * follows every change. Answers how long to wait before looking again when a write was held back.
 */
async function writeStatus(deps: InstanceReconcileDeps, key: InstanceKey, status: InstanceStatus, written: unknown, now: number): Promise<number | null> {
  const id = `${key.namespace}/${key.name}`;
  const decision = statusWrite(status, written, deps.heldStatus?.get(id), now, deps.heldStatus ? (deps.progressStatusDelayMs ?? 0) : 0);
  if (decision.action === 'hold') {
    deps.heldStatus!.set(id, decision.since);
    return decision.waitMs;
  }
  deps.heldStatus?.delete(id);
  if (decision.action === 'write') await deps.cluster.patchInstanceStatus(key, status as unknown as Record<string, unknown>);
  return null;
}

/** The managers that write an instance's spec: the revision's fields, and the agent's own. */
const SPEC_MANAGERS = new Set([FIELD_MANAGER, SELF_CONFIG_MANAGER]);

/**
 * RC4: another manager wrote the instance's spec (kubectl edit, patch, apply): the fields the
 * active revision set are applied again (the agent's own items left to it), and the writers are
 * recorded; what they added of their own stays visible in the ownership matrix, and a secret
 * reference they added is never delivered (gateway-render).
 */
async function restoreProductFields(deps: InstanceReconcileDeps, instance: InstanceObject): Promise<void> {
  const writers: ForeignWriter[] = [];
  for (const entry of managerEntries(instance.metadata.managedFields)) {
    if (SPEC_MANAGERS.has(entry.manager)) continue;
    const paths = [...entry.set].filter((p) => p === 'f:spec' || p.startsWith('f:spec\u0000')).map(pathString);
    if (paths.length > 0) writers.push({ manager: entry.manager, operation: entry.operation, paths });
  }
  if (writers.length === 0) return;
  const { agentId, namespaceId } = ids(instance);
  if (!namespaceId) return;
  const requested = await requestReassert(deps.db, { agentId, namespaceId, reason: 'CHANGED_OUTSIDE', managers: writers }, `changed:${instance.metadata.resourceVersion ?? ''}`);
  if (requested) {
    await deps.cluster
      .createEvent(instance, 'Warning', 'DriftRepaired', `the spec was changed outside the product by ${describeWriters(writers)}; the active revision's fields are applied again`)
      .catch((error: unknown) => deps.logger.warn('could not record a drift event', { error }));
  }
}

/**
 * What a Pod of the current template waits to mount, as the kubelet would say it: the ConfigMap is
 * the reconciler's own (applied above), so only the model-auth Secret (made by the revision's
 * preparation, D5) can be missing for good.
 */
async function mountProblems(deps: InstanceReconcileDeps, key: InstanceKey, render: GatewayRender, pods: Obj[]): Promise<string[]> {
  const waiting = pods.some((p) => ((p.status as ObservedPod['status'])?.containerStatuses ?? []).some((c) => c.state?.waiting?.reason === 'ContainerCreating'));
  if (!waiting || !render.modelAuthSecretName) return [];
  if (await deps.cluster.secretExists(key.namespace, render.modelAuthSecretName)) return [];
  return [`MountVolume.SetUp failed for volume "model-auth" : secret "${render.modelAuthSecretName}" not found`];
}

/** RC4: each repair is an event on the instance and an audit entry naming who changed the child. */
async function record(deps: InstanceReconcileDeps, instance: InstanceObject, repaired: readonly Repaired[]): Promise<void> {
  if (repaired.length === 0) return;
  const { agentId, namespaceId } = ids(instance);
  for (const r of repaired) {
    const message =
      r.how === 'deleted'
        ? `${r.kind} ${r.name} was deleted outside the product; re-created from the instance`
        : `${r.kind} ${r.name} was changed outside the product by ${describeWriters(r.writers)}; restored from the instance`;
    // The audit entry first: it is the durable record, and whoever sees the event can find it.
    await transaction(deps.db, (tx) =>
      audit(tx, {
        actorId: null,
        system: 'reconciler',
        action: 'instance.driftRepaired',
        resourceKind: 'agent',
        resourceId: agentId,
        namespaceId,
        outcome: 'SUCCESS',
        reason: r.how === 'deleted' ? 'DELETED_OUTSIDE' : 'CHANGED_OUTSIDE',
        details: {
          instance: instance.metadata.name,
          kind: r.kind,
          name: r.name,
          writers: r.writers.map((w) => ({ manager: w.manager, operation: w.operation, paths: w.paths.slice(0, 20).map(withoutBackendNames) })),
        },
      }),
    );
    await deps.cluster.createEvent(instance, 'Warning', 'DriftRepaired', message).catch((error: unknown) => deps.logger.warn('could not record a drift event', { error }));
    deps.logger.info('instance child repaired', { instance: instance.metadata.name, kind: r.kind, how: r.how, managers: r.writers.map((w) => w.manager) });
  }
}

/**
 * Once the gateway runs the current generation, ConfigMaps of earlier renderings mount nowhere: they
 * go. One this process deleted in the last minute (by uid) is not deleted again while the cache
 * still shows it.
 */
async function collectConfigMaps(deps: InstanceReconcileDeps, key: InstanceKey, render: GatewayRender): Promise<void> {
  const deleted = deps.deletedChildren;
  const now = Date.now();
  if (deleted) for (const [uid, at] of deleted) if (now - at > 60_000) deleted.delete(uid);
  for (const cm of deps.cluster.childrenOf('ConfigMap', key.namespace, render.agentUuid)) {
    const name = cm.metadata?.name;
    const uid = cm.metadata?.uid;
    if (!name || !uid || name === render.configMapName || !name.startsWith('gateway-config-') || deleted?.has(uid)) continue;
    await deps.cluster.remove('ConfigMap', key.namespace, name, uid);
    deleted?.set(uid, now);
  }
}
