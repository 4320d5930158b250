// What a kubelet and the deployment controller would report for a gateway Deployment, as a pure
// function of the Deployment and the Secrets and ConfigMaps its containers reference. A
// container whose env needs a missing Secret or ConfigMap, or a missing key of one, cannot be
// created (the kubelet's CreateContainerConfigError), so no replica becomes available.

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
interface Container {
  name?: string;
  env?: EnvVar[];
  envFrom?: EnvFrom[];
}
export interface GatewayDeployment {
  metadata?: { name?: string; namespace?: string; generation?: number };
  spec?: { replicas?: number; template?: { spec?: { containers?: Container[]; initContainers?: Container[] } } };
}

/** Why each container could not be created, worded as the kubelet does, then which env needs it. */
export function missingReferences(deployment: GatewayDeployment, source: ConfigSource): string[] {
  const namespace = deployment.metadata?.namespace ?? '';
  const podSpec = deployment.spec?.template?.spec;
  const problems: string[] = [];
  for (const container of [...(podSpec?.initContainers ?? []), ...(podSpec?.containers ?? [])]) {
    const where = `container "${container.name ?? ''}"`;
    for (const from of container.envFrom ?? []) {
      for (const [kind, ref] of [
        ['Secret', from.secretRef],
        ['ConfigMap', from.configMapRef],
      ] as const) {
        if (!ref || ref.optional === true) continue;
        if (!source.keysOf(kind, namespace, ref.name ?? '')) problems.push(`${kind.toLowerCase()} "${ref.name ?? ''}" not found (envFrom of ${where})`);
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
        if (!keys) problems.push(`${kind.toLowerCase()} "${name}" not found: env ${env.name ?? ''} of ${where} needs its key "${key}"`);
        else if (!keys.has(key)) problems.push(`couldn't find key ${key} in ${kind} ${namespace}/${name}: env ${env.name ?? ''} of ${where}`);
      }
    }
  }
  return problems;
}

/** The Deployment status the simulator reports (null removes a field, as in a merge patch). */
export function gatewayStatus(deployment: GatewayDeployment, source: ConfigSource): GatewayStatus {
  const name = deployment.metadata?.name ?? '';
  const replicas = deployment.spec?.replicas ?? 1;
  const problems = replicas === 0 ? [] : missingReferences(deployment, source);
  const available = problems.length === 0;
  const count = (n: number): number | null => (n === 0 ? null : n);
  return {
    observedGeneration: deployment.metadata?.generation ?? 0,
    replicas,
    updatedReplicas: count(replicas),
    readyReplicas: count(available ? replicas : 0),
    availableReplicas: count(available ? replicas : 0),
    unavailableReplicas: count(available ? 0 : replicas),
    conditions: [
      available
        ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
        : { type: 'Available', status: 'False', reason: 'CreateContainerConfigError', message: problems.join('; ') },
      available
        ? { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `Deployment "${name}" has successfully progressed.` }
        : { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `Deployment "${name}" is progressing.` },
    ],
  };
}
