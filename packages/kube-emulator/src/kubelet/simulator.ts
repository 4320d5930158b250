// The kubelet simulator (rule E3): a controller that plays kubelet and deployment controller for
// gateway Deployments, through client-node watches only, so it runs against the embedded server
// and a real API server alike. A gateway Deployment is one labelled
// app.kubernetes.io/component=openclaw-gateway (GATEWAY_LABEL_SELECTOR; overridable). For each,
// it keeps a ReplicaSet per template and its Pods as the controllers would, reports each Pod's
// containers as its kubelet does (running, or waiting with CreateContainerConfigError and the
// kubelet's message when a non-optional secretKeyRef or configMapKeyRef does not resolve), and
// writes the Deployment's status and conditions as the deployment controller does, including
// ProgressDeadlineExceeded (gateway-status.ts). It re-evaluates when a Deployment, Secret or
// ConfigMap changes, and writes only what differs from what is there.
//
// Secrets are watched for their key names only: values are dropped as each event arrives, so
// the process that runs the simulator holds no secret value beyond the moment of decoding.

import { randomBytes } from 'node:crypto';
import { AppsV1Api, CoreV1Api, makeInformer, Watch, type KubeConfig, type V1Deployment, type V1Pod, type V1ReplicaSet } from '@kubernetes/client-node';
import { setHeaderOptions, PatchStrategy } from '@kubernetes/client-node';
import { kubeTimestamp } from '../types.ts';
import {
  deploymentStatus,
  podStatus,
  podTemplateHash,
  type ConfigSource,
  type DeploymentCondition,
  type GatewayDeployment,
  type GatewayStatus,
  type PodSpec,
  type RolloutCounts,
} from './gateway-status.ts';

/** The five characters the ReplicaSet controller appends to a Pod's name. */
function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return Array.from(randomBytes(5), (b) => alphabet[b % alphabet.length]).join('');
}

export const GATEWAY_LABEL_KEY = 'app.kubernetes.io/component';
export const GATEWAY_LABEL_VALUE = 'openclaw-gateway';
export const GATEWAY_LABEL_SELECTOR = `${GATEWAY_LABEL_KEY}=${GATEWAY_LABEL_VALUE}`;

export interface KubeletSimulatorOptions {
  /** Which Deployments to run; GATEWAY_LABEL_SELECTOR by default. */
  labelSelector?: string;
  /** Field manager of the status writes; "kubelet-simulator" by default. */
  fieldManager?: string;
  clock?: () => Date;
  /** How long to wait before retrying a failed status write or a broken watch (1000 ms by default). */
  retryDelayMs?: number;
  onError?: (error: unknown) => void;
}

export interface KubeletSimulator {
  stop(): Promise<void>;
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

interface Listed {
  metadata?: { resourceVersion?: string };
  items: { metadata?: { name?: string; namespace?: string }; data?: Record<string, string>; binaryData?: Record<string, string> }[];
}

/** A list-and-watch of Secrets or ConfigMaps that keeps only which keys each one has. */
class KeyIndex {
  private readonly keys = new Map<string, Set<string>>();
  private abort: AbortController | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly path: string,
    private readonly list: () => Promise<Listed>,
    private readonly changed: (namespace: string, name: string) => void,
    private readonly retryDelayMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  get(namespace: string, name: string): ReadonlySet<string> | undefined {
    return this.keys.get(`${namespace}/${name}`);
  }

  async start(): Promise<void> {
    const listed = await this.list();
    const before = new Set(this.keys.keys());
    this.keys.clear();
    for (const item of listed.items) this.keys.set(this.keyOf(item), this.keyNames(item));
    for (const key of new Set([...before, ...this.keys.keys()])) this.notify(key);
    if (this.stopped) return;
    this.abort = await new Watch(this.kubeConfig).watch(
      this.path,
      { resourceVersion: listed.metadata?.resourceVersion, allowWatchBookmarks: true },
      (type: string, object: Listed['items'][number]) => {
        if (type === 'ADDED' || type === 'MODIFIED') this.keys.set(this.keyOf(object), this.keyNames(object));
        else if (type === 'DELETED') this.keys.delete(this.keyOf(object));
        else return;
        this.notify(this.keyOf(object));
      },
      (error: unknown) => {
        if (this.stopped) return;
        if (error) this.onError(error);
        this.timer = setTimeout(() => void this.start().catch((e: unknown) => this.retry(e)), error ? this.retryDelayMs : 0);
      },
    );
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort?.abort();
  }

  private retry(error: unknown): void {
    if (this.stopped) return;
    this.onError(error);
    this.timer = setTimeout(() => void this.start().catch((e: unknown) => this.retry(e)), this.retryDelayMs);
  }

  private keyOf(item: Listed['items'][number]): string {
    return `${item.metadata?.namespace ?? ''}/${item.metadata?.name ?? ''}`;
  }

  private keyNames(item: Listed['items'][number]): Set<string> {
    return new Set([...Object.keys(item.data ?? {}), ...Object.keys(item.binaryData ?? {})]);
  }

  private notify(key: string): void {
    const slash = key.indexOf('/');
    this.changed(key.slice(0, slash), key.slice(slash + 1));
  }
}

function sameStatus(desired: GatewayStatus, current: V1Deployment['status']): boolean {
  if (!current) return false;
  const scalar = (value: number | null) => value ?? undefined;
  if (
    current.observedGeneration !== desired.observedGeneration ||
    current.replicas !== desired.replicas ||
    current.updatedReplicas !== scalar(desired.updatedReplicas) ||
    current.readyReplicas !== scalar(desired.readyReplicas) ||
    current.availableReplicas !== scalar(desired.availableReplicas) ||
    current.unavailableReplicas !== scalar(desired.unavailableReplicas)
  ) {
    return false;
  }
  const conditions = current.conditions ?? [];
  return (
    conditions.length === desired.conditions.length &&
    desired.conditions.every((d) => conditions.some((c) => c.type === d.type && c.status === d.status && c.reason === d.reason && c.message === d.message))
  );
}

/** Conditions with their times: a condition whose status did not change keeps its transition time. */
function stamped(desired: DeploymentCondition[], current: V1Deployment['status'], now: string): DeploymentCondition[] {
  return desired.map((condition) => {
    const previous = current?.conditions?.find((c) => c.type === condition.type);
    const same = previous && previous.status === condition.status && previous.reason === condition.reason && previous.message === condition.message;
    const time = (value: Date | string | undefined) => (value instanceof Date ? kubeTimestamp(value) : value) ?? now;
    return {
      ...condition,
      lastUpdateTime: same ? time(previous.lastUpdateTime) : now,
      lastTransitionTime: previous && previous.status === condition.status ? time(previous.lastTransitionTime) : now,
    };
  });
}

export async function startKubeletSimulator(kubeConfig: KubeConfig, options: KubeletSimulatorOptions = {}): Promise<KubeletSimulator> {
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const labelSelector = options.labelSelector ?? GATEWAY_LABEL_SELECTOR;
  const fieldManager = options.fieldManager ?? 'kubelet-simulator';
  const clock = options.clock ?? (() => new Date());
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const onError = options.onError ?? (() => undefined);
  let stopped = false;

  const pending = new Set<string>();
  let draining: Promise<void> | undefined;
  const retries = new Set<NodeJS.Timeout>();

  const deployments = makeInformer(
    kubeConfig,
    '/apis/apps/v1/deployments',
    () => apps.listDeploymentForAllNamespaces({ labelSelector }),
    labelSelector,
  );
  const enqueueNamespace = (namespace: string): void => {
    for (const d of deployments.list(namespace)) enqueue(`${namespace}/${d.metadata?.name ?? ''}`);
  };
  const secrets = new KeyIndex(kubeConfig, '/api/v1/secrets', () => core.listSecretForAllNamespaces(), enqueueNamespace, retryDelayMs, onError);
  const configMaps = new KeyIndex(kubeConfig, '/api/v1/configmaps', () => core.listConfigMapForAllNamespaces(), enqueueNamespace, retryDelayMs, onError);
  const source: ConfigSource = {
    keysOf: (kind, namespace, name) => (kind === 'Secret' ? secrets : configMaps).get(namespace, name),
  };

  // When each rollout (Deployment uid + template hash) started, for its progress deadline.
  const progressSince = new Map<string, number>();
  const deadlineTimers = new Map<string, NodeJS.Timeout>();

  async function reconcile(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const deployment = deployments.get(key.slice(slash + 1), key.slice(0, slash));
    if (!deployment) return;
    const namespace = deployment.metadata?.namespace ?? '';
    const name = deployment.metadata?.name ?? '';
    const uid = deployment.metadata?.uid ?? '';
    const now = clock();
    const counts = await rollOut(deployment as V1Deployment & GatewayDeployment, namespace, now);
    const rolloutKey = `${uid}/${counts.newReplicaSet}`;
    const desired = deployment.spec?.replicas ?? 1;
    const complete = counts.updatedReplicas === desired && counts.availableReplicas >= desired && counts.replicas === desired;
    let exceeded = false;
    if (complete) {
      progressSince.delete(rolloutKey);
    } else {
      const since = progressSince.get(rolloutKey) ?? now.getTime();
      progressSince.set(rolloutKey, since);
      const deadlineMs = (deployment.spec?.progressDeadlineSeconds ?? 600) * 1000;
      exceeded = now.getTime() - since >= deadlineMs;
      if (!exceeded && !deadlineTimers.has(rolloutKey)) {
        const timer = setTimeout(() => {
          deadlineTimers.delete(rolloutKey);
          enqueue(key);
        }, since + deadlineMs - now.getTime() + 5);
        deadlineTimers.set(rolloutKey, timer);
      }
    }
    const desiredStatus = deploymentStatus(deployment as GatewayDeployment, counts, exceeded);
    if (sameStatus(desiredStatus, deployment.status)) return;
    const status = { ...desiredStatus, conditions: stamped(desiredStatus.conditions, deployment.status, kubeTimestamp(now)) };
    await apps.patchNamespacedDeploymentStatus({ name, namespace, body: { status }, fieldManager }, mergePatch);
  }

  /**
   * What the deployment controller and the kubelet would have done by now: a ReplicaSet per
   * template (named by its pod-template-hash, owned by the Deployment) with its Pods (owned by
   * the ReplicaSet), each Pod's status as its kubelet reports it. Old ReplicaSets keep their Pods
   * until the new one is available (maxUnavailable 0 for one replica), then scale to zero.
   */
  async function rollOut(deployment: V1Deployment & GatewayDeployment, namespace: string, now: Date): Promise<RolloutCounts> {
    const name = deployment.metadata?.name ?? '';
    const desired = deployment.spec?.replicas ?? 1;
    const hash = podTemplateHash(deployment.spec?.template);
    const newName = `${name}-${hash}`;
    const owner = (kind: string, object: { metadata?: { name?: string; uid?: string } }, apiVersion: string) => [
      { apiVersion, kind, name: object.metadata?.name ?? '', uid: object.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true },
    ];
    const owned = (o: { metadata?: { ownerReferences?: Array<{ uid?: string }> } }, ownerUid: string | undefined) => (o.metadata?.ownerReferences ?? []).some((r) => r.uid === ownerUid);
    const sets = (await apps.listNamespacedReplicaSet({ namespace })).items.filter((rs) => owned(rs, deployment.metadata?.uid));
    const pods = (await core.listNamespacedPod({ namespace })).items;
    let current = sets.find((rs) => rs.metadata?.name === newName);
    const templateLabels = { ...(deployment.spec?.template?.metadata?.labels ?? {}), 'pod-template-hash': hash };
    if (!current) {
      current = await apps.createNamespacedReplicaSet({
        namespace,
        body: {
          metadata: { name: newName, labels: templateLabels, ownerReferences: owner('Deployment', deployment, 'apps/v1') },
          spec: {
            replicas: desired,
            selector: { matchLabels: { ...(deployment.spec?.selector?.matchLabels ?? {}), 'pod-template-hash': hash } },
            template: { ...(deployment.spec?.template ?? {}), metadata: { ...(deployment.spec?.template?.metadata ?? {}), labels: templateLabels } },
          },
        },
        fieldManager,
      });
    }
    const podsOf = (rs: V1ReplicaSet) => pods.filter((p) => owned(p, rs.metadata?.uid));
    const podReady = (p: V1Pod) => (p.status?.containerStatuses ?? []).length > 0 && (p.status?.containerStatuses ?? []).every((c) => c.ready);
    // The new ReplicaSet's Pods, created or removed to its size, each with its kubelet status.
    const newPods = podsOf(current);
    for (const extra of newPods.slice(desired)) await core.deleteNamespacedPod({ name: extra.metadata?.name ?? '', namespace }).catch(() => undefined);
    const keptPods = newPods.slice(0, desired);
    for (let i = keptPods.length; i < desired; i++) {
      keptPods.push(
        await core.createNamespacedPod({
          namespace,
          body: {
            metadata: { name: `${newName}-${randomSuffix()}`, labels: templateLabels, ownerReferences: owner('ReplicaSet', current, 'apps/v1') },
            spec: (deployment.spec?.template?.spec ?? { containers: [] }) as V1Pod['spec'],
          },
          fieldManager,
        }),
      );
    }
    let newReady = 0;
    for (const pod of keptPods) {
      const status = podStatus((pod.spec ?? {}) as PodSpec, namespace, source, kubeTimestamp(now));
      if (status.phase === 'Running') newReady++;
      const same = pod.status?.phase === status.phase && JSON.stringify((pod.status?.containerStatuses ?? []).map((c) => [c.name, c.ready, c.state?.waiting?.message ?? null])) === JSON.stringify(status.containerStatuses.map((c) => [c.name, c.ready, c.state.waiting?.message ?? null]));
      if (!same) await core.patchNamespacedPodStatus({ name: pod.metadata?.name ?? '', namespace, body: { status }, fieldManager }, mergePatch);
    }
    await scaleReplicaSet(current, namespace, desired, newReady);
    // Old ReplicaSets keep serving until the new one is available.
    let oldPods = 0;
    let oldReady = 0;
    let oldDesired = 0;
    for (const rs of sets.filter((x) => x.metadata?.name !== newName)) {
      const rsPods = podsOf(rs);
      if (newReady >= desired || desired === 0) {
        for (const p of rsPods) await core.deleteNamespacedPod({ name: p.metadata?.name ?? '', namespace }).catch(() => undefined);
        await scaleReplicaSet(rs, namespace, 0, 0);
        continue;
      }
      oldPods += rsPods.length;
      oldReady += rsPods.filter(podReady).length;
      oldDesired += rs.spec?.replicas ?? 0;
    }
    return {
      newReplicaSet: newName,
      replicas: keptPods.length + oldPods,
      updatedReplicas: keptPods.length,
      readyReplicas: newReady + oldReady,
      availableReplicas: newReady + oldReady,
      desiredTotal: desired + oldDesired,
    };
  }

  async function scaleReplicaSet(rs: V1ReplicaSet, namespace: string, replicas: number, ready: number): Promise<void> {
    const name = rs.metadata?.name ?? '';
    if ((rs.spec?.replicas ?? 0) !== replicas) {
      await apps.patchNamespacedReplicaSet({ name, namespace, body: { spec: { replicas } }, fieldManager }, mergePatch);
    }
    const status = { replicas, fullyLabeledReplicas: replicas, readyReplicas: ready, availableReplicas: ready, observedGeneration: rs.metadata?.generation ?? 1 };
    const s = rs.status;
    if (s?.replicas !== replicas || (s?.readyReplicas ?? 0) !== ready || (s?.availableReplicas ?? 0) !== ready) {
      await apps.patchNamespacedReplicaSetStatus({ name, namespace, body: { status }, fieldManager }, mergePatch);
    }
  }

  function enqueue(key: string): void {
    if (stopped) return;
    pending.add(key);
    draining ??= (async () => {
      while (pending.size > 0 && !stopped) {
        const [next] = pending;
        if (next === undefined) break;
        pending.delete(next);
        try {
          await reconcile(next);
        } catch (error) {
          onError(error);
          const timer = setTimeout(() => {
            retries.delete(timer);
            enqueue(next);
          }, retryDelayMs);
          retries.add(timer);
        }
      }
    })().finally(() => {
      draining = undefined;
      if (pending.size > 0) enqueue([...pending][0] as string);
    });
  }

  const onDeployment = (d: V1Deployment): void => enqueue(`${d.metadata?.namespace ?? ''}/${d.metadata?.name ?? ''}`);
  deployments.on('add', onDeployment);
  deployments.on('update', onDeployment);
  deployments.on('error', (error: unknown) => {
    if (stopped) return;
    onError(error);
    const timer = setTimeout(() => {
      retries.delete(timer);
      void deployments.start().catch(onError);
    }, retryDelayMs);
    retries.add(timer);
  });

  // References resolve against the indexes, so fill them before the first evaluation.
  await Promise.all([secrets.start(), configMaps.start()]);
  await deployments.start();

  return {
    async stop() {
      stopped = true;
      for (const timer of retries) clearTimeout(timer);
      for (const timer of deadlineTimers.values()) clearTimeout(timer);
      secrets.stop();
      configMaps.stop();
      await deployments.stop();
      await draining;
    },
  };
}
