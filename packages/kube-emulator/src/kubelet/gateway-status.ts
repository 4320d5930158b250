// What the kubelet and the deployment controller would report for a gateway Deployment, as pure
// functions of the objects and the Secrets and ConfigMaps its containers reference (E3). A
// container whose env needs a missing Secret or ConfigMap, or a missing key of one, cannot be
// created: its Pod waits with reason CreateContainerConfigError and the kubelet's own message
// (`secret "x" not found`, `couldn't find key value in Secret ns/x`), and no replica becomes
// available. The Deployment's conditions are the ones the deployment controller writes.

import { createHash } from 'node:crypto';

export interface ConfigSource {
  /** The keys of data (and binaryData) of a Secret or ConfigMap, or undefined when it does not exist. */
  keysOf(kind: 'Secret' | 'ConfigMap', namespace: string, name: string): ReadonlySet<string> | undefined;
}

export interface DeploymentCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface GatewayStatus {
  observedGeneration: number;
  replicas: number;
  updatedReplicas: number | null;
  readyReplicas: number | null;
  availableReplicas: number | null;
  unavailableReplicas: number | null;
  conditions: DeploymentCondition[];
}

// Loose shapes: the simulator reads what the API server sent, typed models or not.
interface EnvVar {
  name?: string;
  valueFrom?: {
    secretKeyRef?: { name?: string; key?: string; optional?: boolean };
    configMapKeyRef?: { name?: string; key?: string; optional?: boolean };
  };
}
interface EnvFrom {
  secretRef?: { name?: string; optional?: boolean };
  configMapRef?: { name?: string; optional?: boolean };
}
export interface Container {
  name?: string;
  image?: string;
  env?: EnvVar[];
  envFrom?: EnvFrom[];
}
export interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
}
export interface GatewayDeployment {
  metadata?: { name?: string; namespace?: string; generation?: number; uid?: string; labels?: Record<string, string> };
  spec?: { replicas?: number; progressDeadlineSeconds?: number; template?: { metadata?: { labels?: Record<string, string> }; spec?: PodSpec } };
}

/**
 * Why one container cannot be created, as the kubelet words it (kubelet_pods.go makeEnvironmentVariables),
 * or null. The kubelet stops at the first problem of a container.
 */
export function containerConfigError(container: Container, namespace: string, source: ConfigSource): string | null {
  for (const from of container.envFrom ?? []) {
    for (const [kind, ref] of [
      ['Secret', from.secretRef],
      ['ConfigMap', from.configMapRef],
    ] as const) {
      if (!ref || ref.optional === true) continue;
      if (!source.keysOf(kind, namespace, ref.name ?? '')) return `${kind.toLowerCase()} "${ref.name ?? ''}" not found`;
    }
  }
  for (const env of container.env ?? []) {
    for (const [kind, ref] of [
      ['Secret', env.valueFrom?.secretKeyRef],
      ['ConfigMap', env.valueFrom?.configMapKeyRef],
    ] as const) {
      if (!ref || ref.optional === true) continue;
      const name = ref.name ?? '';
      const key = ref.key ?? '';
      const keys = source.keysOf(kind, namespace, name);
      if (!keys) return `${kind.toLowerCase()} "${name}" not found`;
      if (!keys.has(key)) return `couldn't find key ${key} in ${kind} ${namespace}/${name}`;
    }
  }
  return null;
}

/** Every container's problem, `container "name": message` (for callers that want them all). */
export function missingReferences(deployment: GatewayDeployment, source: ConfigSource): string[] {
  const namespace = deployment.metadata?.namespace ?? '';
  const podSpec = deployment.spec?.template?.spec;
  const problems: string[] = [];
  for (const container of [...(podSpec?.initContainers ?? []), ...(podSpec?.containers ?? [])]) {
    const problem = containerConfigError(container, namespace, source);
    if (problem) problems.push(`container "${container.name ?? ''}": ${problem}`);
  }
  return problems;
}

export interface ContainerStatus {
  name: string;
  image: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: { waiting?: { reason: string; message: string }; running?: { startedAt: string } };
}

export interface PodStatus {
  phase: 'Pending' | 'Running';
  conditions: Array<{ type: string; status: 'True' | 'False'; reason?: string; message?: string }>;
  containerStatuses: ContainerStatus[];
}

/** A Pod's status as its kubelet reports it: each container running, or waiting on config it cannot get. */
export function podStatus(spec: PodSpec, namespace: string, source: ConfigSource, now: string): PodStatus {
  const containerStatuses: ContainerStatus[] = (spec.containers ?? []).map((c) => {
    const problem = containerConfigError(c, namespace, source);
    return {
      name: c.name ?? '',
      image: c.image ?? '',
      ready: problem === null,
      started: problem === null,
      restartCount: 0,
      state: problem === null ? { running: { startedAt: now } } : { waiting: { reason: 'CreateContainerConfigError', message: problem } },
    };
  });
  const ready = containerStatuses.every((s) => s.ready);
  const notReady = containerStatuses.filter((s) => !s.ready).map((s) => s.name);
  const readyCondition = ready
    ? { type: 'Ready', status: 'True' as const }
    : { type: 'Ready', status: 'False' as const, reason: 'ContainersNotReady', message: `containers with unready status: [${notReady.join(' ')}]` };
  return {
    phase: ready ? 'Running' : 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Initialized', status: 'True' }, readyCondition, { ...readyCondition, type: 'ContainersReady' }],
    containerStatuses,
  };
}

/** The pod-template-hash of a template (the controller's is an FNV hash; any stable short hash serves). */
export function podTemplateHash(template: unknown): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  const digest = createHash('sha256').update(JSON.stringify(template ?? {})).digest();
  return Array.from(digest.subarray(0, 10), (b) => alphabet[b % alphabet.length]).join('');
}

export interface RolloutCounts {
  /** The ReplicaSet of the current template. */
  newReplicaSet: string;
  /** Pods of every ReplicaSet of the Deployment. */
  replicas: number;
  /** Pods of the new ReplicaSet. */
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  /** The sum of the ReplicaSets' desired replicas. */
  desiredTotal: number;
}

/**
 * The Deployment's status as the deployment controller writes it (deployment/util, sync.go):
 * Available against maxUnavailable (0 for one replica with the default 25%), Progressing with
 * NewReplicaSetAvailable once the new ReplicaSet is complete, ReplicaSetUpdated while it
 * progresses, and ProgressDeadlineExceeded once `deadlineExceeded`.
 */
export function deploymentStatus(deployment: GatewayDeployment, counts: RolloutCounts, deadlineExceeded: boolean): GatewayStatus {
  const desired = deployment.spec?.replicas ?? 1;
  const maxUnavailable = Math.floor(desired * 0.25);
  const available = counts.availableReplicas >= desired - maxUnavailable;
  const complete = counts.updatedReplicas === desired && counts.replicas === desired && counts.availableReplicas >= desired;
  const count = (n: number): number | null => (n === 0 ? null : n);
  const rs = counts.newReplicaSet;
  return {
    observedGeneration: deployment.metadata?.generation ?? 0,
    replicas: counts.replicas,
    updatedReplicas: count(counts.updatedReplicas),
    readyReplicas: count(counts.readyReplicas),
    availableReplicas: count(counts.availableReplicas),
    unavailableReplicas: count(Math.max(0, counts.desiredTotal - counts.availableReplicas)),
    conditions: [
      available
        ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
        : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
      complete
        ? { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rs}" has successfully progressed.` }
        : deadlineExceeded
          ? { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rs}" has timed out progressing.` }
          : { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "${rs}" is progressing.` },
    ],
  };
}
