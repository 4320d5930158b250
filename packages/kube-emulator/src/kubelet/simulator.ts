// The kubelet simulator (rule E3): a controller that plays kubelet and deployment controller for
// gateway Deployments, through client-node watches only, so it runs against the embedded server
// and a real API server alike. A gateway Deployment is one labelled
// app.kubernetes.io/component=openclaw-gateway (GATEWAY_LABEL_SELECTOR; overridable).
//
// As the deployment controller, it keeps the ReplicaSet of each template, found among those the
// Deployment owns by comparing templates without the pod-template-hash label, so that after a
// restart it adopts what exists; a new one is named by the hash of the template's canonical form and
// numbered by `deployment.kubernetes.io/revision` (a template rolled back to gets a new number), and
// the Deployment carries its current revision (written through /status, as the controller does, so
// its generation does not move) and the status and conditions the controller writes, including
// ProgressDeadlineExceeded. Old ReplicaSets keep their Pods until the new one is available. As the
// ReplicaSet controller, it makes Pods from the ReplicaSet's template: its labels and annotations.
//
// As the kubelet (gateway-status.ts, pod-config.ts), it mounts volumes, then resolves each
// container's environment: Pods wait with ContainerCreating and FailedMount events, or
// CreateContainerConfigError and Failed events (events.ts), with the kubelet's words. When a
// container starts, its environment and files are read from the Secrets and ConfigMaps (one GET
// each) and kept in memory, shown to tests by `containers()` and `serveView()` (container-view.ts),
// never written anywhere. A running container keeps running. It registers its Node (node.ts) and
// binds the Pods it makes to it, as the scheduler would; what each container writes (logs.ts) is
// served at the Node's kubelet endpoint, where the server's pods/log asks for it.
//
// It re-evaluates when a Deployment, Secret or ConfigMap changes or a Pod goes away, and writes only
// what differs from what is there. Secrets are watched for their key names only: values are dropped
// as each event arrives, so the process holds no secret value but what a started container was given.

import { createHash } from 'node:crypto';
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  Watch,
  type KubeConfig,
  type V1Deployment,
  type V1Pod,
  type V1ReplicaSet,
} from '@kubernetes/client-node';
import { selectorRequirements } from '../admission-match.ts';
import { matchesLabels } from '../selectors.ts';
import { kubeTimestamp } from '../types.ts';
import { ContainerView, containersQuery, serveContainerView, type ContainerFilter, type RunningContainer, type ServedView } from './container-view.ts';
import { PodEvents } from './events.ts';
import { ContainerLogs, gatewayLines } from './logs.ts';
import { renderNode, serveKubeletEndpoint } from './node.ts';
import {
  crashHook,
  deploymentStatus,
  findNewReplicaSet,
  kubeletReport,
  maxRevision,
  newReplicaSetAnnotations,
  podStatusKey,
  podTemplateHash,
  POD_TEMPLATE_HASH_LABEL,
  replicasAnnotations,
  REVISION_ANNOTATION,
  type ContainerExit,
  type ContainerStatus,
  type DeploymentCondition,
  type GatewayDeployment,
  type GatewayStatus,
  type KubeletPod,
  type RolloutCounts,
} from './gateway-status.ts';
import {
  containerEnvironment,
  containerFiles,
  keysOfValues,
  referencedConfig,
  type ConfigKeys,
  type ConfigObject,
  type ConfigSource,
  type ConfigValues,
  type PodSpec,
} from './pod-config.ts';

export const GATEWAY_LABEL_KEY = 'app.kubernetes.io/component';
export const GATEWAY_LABEL_VALUE = 'openclaw-gateway';
export const GATEWAY_LABEL_SELECTOR = `${GATEWAY_LABEL_KEY}=${GATEWAY_LABEL_VALUE}`;

export interface KubeletSimulatorOptions {
  /** Which Deployments to run; GATEWAY_LABEL_SELECTOR by default. */
  labelSelector?: string;
  /** Field manager of every write; "kubelet-simulator" by default. */
  fieldManager?: string;
  /** The Node it registers and binds its Pods to, and its events name as their source host; "kubelet-simulator" by default. */
  nodeName?: string;
  clock?: () => Date;
  /** How long to wait before retrying a failed write or a broken watch (1000 ms by default). */
  retryDelayMs?: number;
  onError?: (error: unknown) => void;
}

export interface KubeletSimulator {
  /** The running containers of the namespace's Pods that exist now: what each was started with. */
  containers(namespace: string, filter?: ContainerFilter): RunningContainer[];
  /** The same view over loopback HTTP, for tests in another process (fetchContainers). Closed by stop(). */
  serveView(): Promise<ServedView>;
  stop(): Promise<void>;
}

/** Reads a simulator's view served by `serveView()`: the same answer as `containers()` in its own process. */
export async function fetchContainers(url: string, namespace: string, filter: ContainerFilter = {}): Promise<RunningContainer[]> {
  const response = await fetch(`${url}${containersQuery(namespace, filter)}`);
  if (!response.ok) throw new Error(`container view answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as RunningContainer[];
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

interface Listed {
  metadata?: { resourceVersion?: string };
  items: { metadata?: { name?: string; namespace?: string; resourceVersion?: string }; data?: Record<string, string>; binaryData?: Record<string, string> }[];
}

/**
 * A list-and-watch of Secrets or ConfigMaps that keeps only which keys each one has. A watch that
 * ends or idles out (client-node's 30 s inactivity timeout) resumes from the last resourceVersion
 * seen; it lists again only after 410 Expired or a failure, as client-go's reflector does.
 */
class KeyIndex {
  private readonly keys = new Map<string, ConfigKeys>();
  private resourceVersion: string | undefined;
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

  get(namespace: string, name: string): ConfigKeys | undefined {
    return this.keys.get(`${namespace}/${name}`);
  }

  async start(): Promise<void> {
    if (this.resourceVersion === undefined) {
      const listed = await this.list();
      const before = new Set(this.keys.keys());
      this.keys.clear();
      for (const item of listed.items) this.keys.set(this.keyOf(item), this.keyNames(item));
      for (const key of new Set([...before, ...this.keys.keys()])) this.notify(key);
      this.resourceVersion = listed.metadata?.resourceVersion ?? '';
    }
    if (this.stopped) return;
    this.abort = await new Watch(this.kubeConfig).watch(
      this.path,
      { resourceVersion: this.resourceVersion, allowWatchBookmarks: true },
      (type: string, object: Listed['items'][number] & { code?: number }) => {
        if (type === 'ERROR') {
          if (object.code === 410) this.resourceVersion = undefined;
          return;
        }
        this.resourceVersion = object.metadata?.resourceVersion ?? this.resourceVersion;
        if (type === 'ADDED' || type === 'MODIFIED') this.keys.set(this.keyOf(object), this.keyNames(object));
        else if (type === 'DELETED') this.keys.delete(this.keyOf(object));
        else return;
        this.notify(this.keyOf(object));
      },
      (error: unknown) => {
        if (this.stopped) return;
        const failed = error !== null && error !== undefined && (error as { name?: string }).name !== 'TimeoutError';
        if (failed) {
          this.onError(error);
          this.resourceVersion = undefined;
        }
        this.timer = setTimeout(() => void this.start().catch((e: unknown) => this.retry(e)), failed ? this.retryDelayMs : 0);
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
    this.resourceVersion = undefined;
    this.timer = setTimeout(() => void this.start().catch((e: unknown) => this.retry(e)), this.retryDelayMs);
  }

  private keyOf(item: Listed['items'][number]): string {
    return `${item.metadata?.namespace ?? ''}/${item.metadata?.name ?? ''}`;
  }

  private keyNames(item: Listed['items'][number]): ConfigKeys {
    return { data: new Set(Object.keys(item.data ?? {})), binaryData: new Set(Object.keys(item.binaryData ?? {})) };
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

/**
 * A label selector's matchLabels as the `labelSelector` query parameter; undefined when it has
 * matchExpressions too (then the caller lists everything and ownership alone decides).
 */
function selectorString(selector: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] } | undefined): string | undefined {
  if (!selector || (selector.matchExpressions?.length ?? 0) > 0) return undefined;
  const pairs = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`);
  return pairs.length > 0 ? pairs.join(',') : undefined;
}

/** The uid of an object's controller (its ownerReference with controller: true). */
function controllerUid(object: { metadata?: { ownerReferences?: Array<{ uid?: string; controller?: boolean }> } }): string | undefined {
  return object.metadata?.ownerReferences?.find((r) => r.controller === true)?.uid;
}

function controllerRef(kind: string, object: { metadata?: { name?: string; uid?: string } }) {
  return [{ apiVersion: 'apps/v1', kind, name: object.metadata?.name ?? '', uid: object.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }];
}

/** The message of a Status an ApiException carries (client-node keeps the body as text or parsed). */
function statusMessage(body: unknown): string {
  try {
    const parsed = typeof body === 'string' ? (JSON.parse(body) as { message?: unknown }) : (body as { message?: unknown });
    return typeof parsed?.message === 'string' ? parsed.message : String(body);
  } catch {
    return String(body);
  }
}

function notFound(error: unknown): boolean {
  return error instanceof ApiException && error.code === 404;
}

const decoded = (data: Record<string, string> | undefined) => Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

export async function startKubeletSimulator(kubeConfig: KubeConfig, options: KubeletSimulatorOptions = {}): Promise<KubeletSimulator> {
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const labelSelector = options.labelSelector ?? GATEWAY_LABEL_SELECTOR;
  const fieldManager = options.fieldManager ?? 'kubelet-simulator';
  const clock = options.clock ?? (() => new Date());
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const onError = options.onError ?? (() => undefined);
  const view = new ContainerView();
  const nodeName = options.nodeName ?? 'kubelet-simulator';
  const events = new PodEvents(core, clock, nodeName, fieldManager);
  const logs = new ContainerLogs();
  const kubelet = await serveKubeletEndpoint(logs);
  const served = new Set<ServedView>();
  let stopped = false;

  const pending = new Set<string>();
  let draining: Promise<void> | undefined;
  const retries = new Set<NodeJS.Timeout>();
  const later = (run: () => void): void => {
    const timer = setTimeout(() => {
      retries.delete(timer);
      run();
    }, retryDelayMs);
    retries.add(timer);
  };

  const deployments = makeInformer(
    kubeConfig,
    '/apis/apps/v1/deployments',
    () => apps.listDeploymentForAllNamespaces({ labelSelector }),
    labelSelector,
  );
  // Pods are watched for what goes away: the view forgets them, and their ReplicaSet makes new ones.
  const pods = makeInformer(kubeConfig, '/api/v1/pods', () => core.listPodForAllNamespaces());
  // A Secret or ConfigMap that changed matters to the Deployments whose Pods use it (a kubelet
  // looks again at the Pods that mount or read it), not to every Deployment of its namespace: a
  // namespace of n gateways, each writing its own ConfigMap, would otherwise cost n syncs a write.
  const enqueueReferrers =
    (kind: 'Secret' | 'ConfigMap') =>
    (namespace: string, name: string): void => {
      for (const d of deployments.list(namespace)) {
        const spec = d.spec?.template?.spec as PodSpec | undefined;
        if (spec && referencedConfig(spec).some((r) => r.kind === kind && r.name === name)) enqueue(`${namespace}/${d.metadata?.name ?? ''}`);
      }
    };
  const secrets = new KeyIndex(kubeConfig, '/api/v1/secrets', () => core.listSecretForAllNamespaces(), enqueueReferrers('Secret'), retryDelayMs, onError);
  const configMaps = new KeyIndex(kubeConfig, '/api/v1/configmaps', () => core.listConfigMapForAllNamespaces(), enqueueReferrers('ConfigMap'), retryDelayMs, onError);
  const source: ConfigSource = {
    keysOf: (kind, namespace, name) => (kind === 'Secret' ? secrets : configMaps).get(namespace, name),
  };

  // When each rollout (Deployment uid + ReplicaSet) started, for its progress deadline.
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
    const { counts, revision } = await rollOut(deployment as V1Deployment & GatewayDeployment, namespace, now);
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
    // SetDeploymentRevision: the controller writes the annotation with UpdateStatus, so the spec's generation stays.
    const writeRevision = revision !== '' && deployment.metadata?.annotations?.[REVISION_ANNOTATION] !== revision;
    const statusSame = sameStatus(desiredStatus, deployment.status);
    if (statusSame && !writeRevision) return;
    const body = {
      ...(writeRevision ? { metadata: { annotations: { [REVISION_ANNOTATION]: revision } } } : {}),
      ...(statusSame ? {} : { status: { ...desiredStatus, conditions: stamped(desiredStatus.conditions, deployment.status, kubeTimestamp(now)) } }),
    };
    await apps.patchNamespacedDeploymentStatus({ name, namespace, body, fieldManager }, mergePatch);
  }

  /**
   * What the deployment controller, the ReplicaSet controller and the kubelet would have done by
   * now: the template's ReplicaSet, found or made, with its Pods, each Pod's status as its kubelet
   * reports it. Old ReplicaSets keep their Pods until the new one is available (maxUnavailable 0
   * for one replica), then scale to zero.
   */
  async function rollOut(deployment: V1Deployment & GatewayDeployment, namespace: string, now: Date): Promise<{ counts: RolloutCounts; revision: string }> {
    const desired = deployment.spec?.replicas ?? 1;
    const uid = deployment.metadata?.uid;
    // Only what the Deployment's selector selects, as its controllers list it, so a sync reads its
    // own ReplicaSets and Pods, not the namespace's; ownership (the controller's uid) decides.
    const labelSelector = selectorString(deployment.spec?.selector);
    const sets = (await apps.listNamespacedReplicaSet({ namespace, ...(labelSelector ? { labelSelector } : {}) })).items.filter((rs) => controllerUid(rs) === uid && !rs.metadata?.deletionTimestamp);
    const allPods = (await core.listNamespacedPod({ namespace, ...(labelSelector ? { labelSelector } : {}) })).items.filter((p) => !p.metadata?.deletionTimestamp);
    const found = findNewReplicaSet(deployment.spec?.template, sets);
    const olds = sets.filter((rs) => rs !== found);
    const current = found ? await annotateReplicaSet(found, deployment, namespace, maxRevision(olds)) : await createReplicaSet(deployment, namespace, maxRevision(olds));
    const newName = current.metadata?.name ?? '';
    const podsOf = (rs: V1ReplicaSet) => allPods.filter((p) => controllerUid(p) === rs.metadata?.uid);

    // The new ReplicaSet's Pods, made or removed to its size (removing those not running first, then the newest).
    const rank = (p: V1Pod) => (p.status?.phase === 'Running' ? 1 : 0);
    const created = (p: V1Pod) => String(p.metadata?.creationTimestamp instanceof Date ? p.metadata.creationTimestamp.toISOString() : (p.metadata?.creationTimestamp ?? ''));
    const newPods = podsOf(current).sort((a, b) => rank(b) - rank(a) || created(a).localeCompare(created(b)));
    for (const extra of newPods.slice(desired)) await deletePod(extra, namespace);
    const keptPods = newPods.slice(0, desired);
    for (let i = keptPods.length; i < desired; i++) {
      const pod = await createPod(current, namespace);
      if (!pod) break; // refused (Pod Security): the ReplicaSet controller tries again on its next sync
      keptPods.push(pod);
    }
    let newReady = 0;
    for (const pod of keptPods) if (await runPod(pod, namespace, now)) newReady++;
    await scaleReplicaSet(current, deployment, namespace, desired, newReady);

    // Old ReplicaSets keep serving until the new one is available.
    let oldPods = 0;
    let oldReady = 0;
    let oldDesired = 0;
    for (const rs of olds) {
      const rsPods = podsOf(rs);
      if (newReady >= desired || desired === 0) {
        for (const p of rsPods) await deletePod(p, namespace);
        await scaleReplicaSet(rs, deployment, namespace, 0, 0);
        continue;
      }
      oldPods += rsPods.length;
      for (const p of rsPods) if (await runPod(p, namespace, now)) oldReady++;
      oldDesired += rs.spec?.replicas ?? 0;
    }
    return {
      counts: {
        newReplicaSet: newName,
        replicas: keptPods.length + oldPods,
        updatedReplicas: keptPods.length,
        readyReplicas: newReady + oldReady,
        availableReplicas: newReady + oldReady,
        desiredTotal: desired + oldDesired,
      },
      revision: current.metadata?.annotations?.[REVISION_ANNOTATION] ?? '',
    };
  }

  /** getNewReplicaSet for a template without one: `<deployment>-<hash>`, owned by the Deployment. */
  async function createReplicaSet(deployment: V1Deployment & GatewayDeployment, namespace: string, maxOldRevision: number): Promise<V1ReplicaSet> {
    const template = deployment.spec?.template ?? {};
    const hash = podTemplateHash(template);
    const name = `${deployment.metadata?.name ?? ''}-${hash}`;
    const labels = { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
    const selector = deployment.spec?.selector ?? {};
    const body: V1ReplicaSet = {
      metadata: { name, labels, annotations: newReplicaSetAnnotations(deployment, {}, maxOldRevision, false), ownerReferences: controllerRef('Deployment', deployment) },
      spec: {
        replicas: deployment.spec?.replicas ?? 1,
        ...(deployment.spec?.minReadySeconds !== undefined ? { minReadySeconds: deployment.spec.minReadySeconds } : {}),
        selector: { ...selector, matchLabels: { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash } },
        template: { ...template, metadata: { ...(template.metadata ?? {}), labels } },
      },
    };
    for (let attempt = 0; ; attempt++) {
      try {
        return await apps.createNamespacedReplicaSet({ namespace, body, fieldManager });
      } catch (error) {
        if (!(error instanceof ApiException && error.code === 409)) throw error;
        // Ours already, made by an evaluation whose list did not show it yet; otherwise a hash collision.
        const existing = await apps.readNamespacedReplicaSet({ name, namespace });
        if (controllerUid(existing) === deployment.metadata?.uid && findNewReplicaSet(template, [existing])) return existing;
        // A ReplicaSet whose Deployment was deleted and made again under the same name: on a
        // cluster without a garbage collector (the E8 lane) it is left behind; collect it, and its
        // Pods, as the collector would, then make ours.
        if (attempt === 0 && (await ownerGone(existing, namespace))) {
          for (const pod of (await core.listNamespacedPod({ namespace })).items.filter((p) => controllerUid(p) === existing.metadata?.uid)) await deletePod(pod, namespace);
          await apps.deleteNamespacedReplicaSet({ name, namespace, body: { preconditions: { uid: existing.metadata?.uid } } }).catch(() => undefined);
          continue;
        }
        throw new Error(`ReplicaSet ${namespace}/${name} exists with another template or owner (pod-template-hash collision)`);
      }
    }
  }

  /** Whether a ReplicaSet's controlling Deployment is gone (the name now holds another object, or none). */
  async function ownerGone(rs: V1ReplicaSet, namespace: string): Promise<boolean> {
    const owner = (rs.metadata?.ownerReferences ?? []).find((r) => r.controller);
    if (!owner || owner.kind !== 'Deployment') return false;
    try {
      return (await apps.readNamespacedDeployment({ name: owner.name, namespace })).metadata?.uid !== owner.uid;
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return true;
      throw error;
    }
  }

  /** SetNewReplicaSetAnnotations on the template's existing ReplicaSet: the Deployment's annotations, a new revision on rollback. */
  async function annotateReplicaSet(rs: V1ReplicaSet, deployment: V1Deployment & GatewayDeployment, namespace: string, maxOldRevision: number): Promise<V1ReplicaSet> {
    const current = rs.metadata?.annotations ?? {};
    const wanted = newReplicaSetAnnotations(deployment, current, maxOldRevision, true);
    const changed = Object.fromEntries(Object.entries(wanted).filter(([key, value]) => current[key] !== value));
    if (Object.keys(changed).length === 0) return rs;
    return apps.patchNamespacedReplicaSet({ name: rs.metadata?.name ?? '', namespace, body: { metadata: { annotations: changed } }, fieldManager }, mergePatch);
  }

  /**
   * controller.GetPodFromTemplate: the ReplicaSet template's labels, annotations and spec, a
   * generated name. A Pod the server forbids (Pod Security Admission) is not made: the ReplicaSet
   * controller records a FailedCreate event on the ReplicaSet, in its words, and answers null.
   */
  async function createPod(rs: V1ReplicaSet, namespace: string): Promise<V1Pod | null> {
    const template = rs.spec?.template ?? {};
    return createPodFrom(rs, namespace, template).catch(async (error: unknown) => {
      if (!(error instanceof ApiException && error.code === 403)) throw error;
      const message = `Error creating: ${statusMessage(error.body)}`;
      await recordFailedCreate(rs, namespace, message);
      return null;
    });
  }

  /** The ReplicaSet controller's FailedCreate event, once per ReplicaSet and message. */
  async function recordFailedCreate(rs: V1ReplicaSet, namespace: string, message: string): Promise<void> {
    const uid = rs.metadata?.uid ?? '';
    // The message names the Pod's generated name, new at each attempt: one event per problem.
    const problem = message.replace(/pods "[^"]*"/, 'pods');
    const name = `${rs.metadata?.name ?? ''}.${createHash('sha256').update(`${uid}\n${problem}`).digest('hex').slice(0, 16)}`;
    const at = clock();
    await core
      .createNamespacedEvent({
        namespace,
        body: {
          metadata: { name, namespace },
          involvedObject: { kind: 'ReplicaSet', apiVersion: 'apps/v1', name: rs.metadata?.name ?? '', namespace, uid, resourceVersion: rs.metadata?.resourceVersion ?? '' },
          reason: 'FailedCreate',
          message,
          type: 'Warning',
          source: { component: 'replicaset-controller' },
          reportingComponent: 'replicaset-controller',
          firstTimestamp: at,
          lastTimestamp: at,
          count: 1,
        },
      })
      .catch((error: unknown) => {
        if (!(error instanceof ApiException && error.code === 409)) throw error;
      });
  }

  async function createPodFrom(rs: V1ReplicaSet, namespace: string, template: NonNullable<V1ReplicaSet['spec']>['template'] & object): Promise<V1Pod> {
    return core.createNamespacedPod({
      namespace,
      body: {
        metadata: {
          generateName: `${rs.metadata?.name ?? ''}-`,
          labels: { ...(template.metadata?.labels ?? {}) },
          ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
          ownerReferences: controllerRef('ReplicaSet', rs),
        },
        // Bound at once, as the scheduler would bind it to the one node there is.
        spec: { ...(template.spec ?? { containers: [] }), nodeName },
      },
      fieldManager,
    });
  }

  /** Registers the Node as a kubelet does (created once, its status written at each start: Ready, where its logs are served). */
  async function registerNode(): Promise<void> {
    const node = renderNode(nodeName, kubelet.port, kubeTimestamp(clock()));
    await core.createNode({ body: { metadata: node.metadata }, fieldManager }).catch((error: unknown) => {
      if (!(error instanceof ApiException && error.code === 409)) throw error;
    });
    await core.patchNodeStatus({ name: nodeName, body: { status: node.status }, fieldManager }, mergePatch);
  }

  async function deletePod(pod: V1Pod, namespace: string): Promise<void> {
    // A real server keeps a Pod bound to a node until that node's kubelet confirms it stopped (a
    // delete with grace 0); the simulator is that kubelet, so it deletes with grace 0 at once.
    await core.deleteNamespacedPod({ name: pod.metadata?.name ?? '', namespace, gracePeriodSeconds: 0 }).catch((error: unknown) => {
      if (!notFound(error)) throw error;
    });
    podGone(pod.metadata?.uid ?? '');
  }

  function podGone(uid: string): void {
    view.forget(uid);
    logs.forget(uid);
    events.forget(uid);
  }

  /** The Secrets and ConfigMaps a Pod names, read now (a container starts with what is there now). */
  async function readConfig(namespace: string, spec: PodSpec): Promise<ConfigValues> {
    const found = new Map<string, ConfigObject>();
    for (const { kind, name } of referencedConfig(spec)) {
      try {
        if (kind === 'Secret') {
          const secret = await core.readNamespacedSecret({ name, namespace });
          found.set(`${kind}/${name}`, { data: decoded(secret.data), binaryData: {} });
        } else {
          const configMap = await core.readNamespacedConfigMap({ name, namespace });
          found.set(`${kind}/${name}`, { data: { ...(configMap.data ?? {}) }, binaryData: decoded(configMap.binaryData) });
        }
      } catch (error) {
        if (!notFound(error)) throw error;
      }
    }
    return { valuesOf: (kind, name) => found.get(`${kind}/${name}`) };
  }

  /** One Pod as its kubelet runs it: its events, its running containers in the view, its status. Answers whether it is ready. */
  async function runPod(pod: V1Pod, namespace: string, now: Date): Promise<boolean> {
    const spec = (pod.spec ?? {}) as PodSpec;
    const uid = pod.metadata?.uid ?? '';
    if (view.isGone(uid)) return false;
    let report = kubeletReport(pod as KubeletPod, source, kubeTimestamp(now));
    let values: ConfigValues | undefined;
    if (report.starting.length > 0) {
      // Decide on what the containers would start with, not on the index of a moment ago; a
      // container whose mounted config asks for the crash hook exits instead of starting.
      values = await readConfig(namespace, spec);
      const exits = new Map<string, ContainerExit>();
      for (const name of report.starting) {
        const container = (spec.containers ?? []).find((c) => c.name === name) ?? {};
        const exit = crashHook(containerFiles(spec, container, values));
        if (exit) exits.set(name, exit);
      }
      report = kubeletReport(pod as KubeletPod, keysOfValues(values), kubeTimestamp(now), exits);
    }
    view.refresh(pod);
    // Containers that start now, and those found running (by a simulator before this one) not yet in the view.
    const unseen = report.status.containerStatuses.filter((c) => c.state.running && !view.has(uid, c.name)).map((c) => c.name);
    if (unseen.length > 0) {
      values ??= await readConfig(namespace, spec);
      for (const name of unseen) {
        const container = (spec.containers ?? []).find((c) => c.name === name) ?? {};
        view.record(pod, name, { env: containerEnvironment(pod as KubeletPod, container, values), files: containerFiles(spec, container, values) });
      }
    }
    const unlogged = report.status.containerStatuses.some((c) => (c.state.running ?? c.lastState?.terminated) !== undefined && !logs.has(namespace, pod.metadata?.name ?? '', uid, c.name));
    if (unlogged) values ??= await readConfig(namespace, spec);
    recordLogs(pod, namespace, report.status.containerStatuses, values, now);
    await events.sync(pod, report.events);
    if (podStatusKey(pod.status) !== podStatusKey(report.status)) {
      try {
        await core.patchNamespacedPodStatus({ name: pod.metadata?.name ?? '', namespace, body: { status: report.status }, fieldManager }, mergePatch);
      } catch (error) {
        if (!notFound(error)) throw error;
        // Deleted since the list: its ReplicaSet makes another on the evaluation its deletion queues.
        podGone(uid);
        return false;
      }
    }
    return report.status.containerStatuses.every((c) => c.ready);
  }

  /** What each container wrote when its instance started (once per instance), or why it has not started. */
  function recordLogs(pod: V1Pod, namespace: string, statuses: ContainerStatus[], values: ConfigValues | undefined, now: Date): void {
    const spec = (pod.spec ?? {}) as PodSpec;
    const name = pod.metadata?.name ?? '';
    const uid = pod.metadata?.uid ?? '';
    for (const status of statuses) {
      const waiting = status.state.waiting?.reason;
      const exit = status.lastState?.terminated;
      if (status.state.running === undefined && exit === undefined) {
        if (waiting) logs.waiting(namespace, name, uid, status.name, waiting);
        continue;
      }
      if (logs.has(namespace, name, uid, status.name)) continue;
      const container = (spec.containers ?? []).find((c) => c.name === status.name) ?? {};
      const files = values ? containerFiles(spec, container, values) : {};
      const crashed = status.state.running === undefined && exit ? { code: exit.exitCode, message: exit.message } : undefined;
      logs.started(namespace, name, uid, status.name, gatewayLines(status.image || (container.image ?? ''), files, kubeTimestamp(now), crashed), crashed !== undefined);
    }
  }

  async function scaleReplicaSet(rs: V1ReplicaSet, deployment: GatewayDeployment, namespace: string, replicas: number, ready: number): Promise<void> {
    const name = rs.metadata?.name ?? '';
    if ((rs.spec?.replicas ?? 0) !== replicas) {
      const body = { metadata: { annotations: replicasAnnotations(deployment) }, spec: { replicas } };
      await apps.patchNamespacedReplicaSet({ name, namespace, body, fieldManager }, mergePatch);
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
          later(() => enqueue(next));
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
  deployments.on('delete', (d: V1Deployment) => {
    for (const key of [...progressSince.keys()].filter((k) => k.startsWith(`${d.metadata?.uid ?? ''}/`))) {
      progressSince.delete(key);
      clearTimeout(deadlineTimers.get(key));
      deadlineTimers.delete(key);
    }
  });
  pods.on('delete', (pod: V1Pod) => {
    podGone(pod.metadata?.uid ?? '');
    // Its ReplicaSet makes another: the Deployments whose selector selects it sync.
    const namespace = pod.metadata?.namespace ?? '';
    const labels = pod.metadata?.labels ?? {};
    for (const d of deployments.list(namespace)) {
      if (matchesLabels(selectorRequirements(d.spec?.selector), labels)) enqueue(`${namespace}/${d.metadata?.name ?? ''}`);
    }
  });
  // A Pod of this node deleted gracefully (by a user, say) stays, terminating, until its kubelet
  // has stopped it and confirms with a delete of grace 0: a real server waits for that on a bound Pod.
  pods.on('update', (pod: V1Pod) => {
    if (pod.metadata?.deletionTimestamp && pod.spec?.nodeName === nodeName) void deletePod(pod, pod.metadata.namespace ?? '').catch(onError);
  });
  for (const informer of [deployments, pods] as const) {
    informer.on('error', (error: unknown) => {
      if (stopped) return;
      onError(error);
      later(() => void informer.start().catch(onError));
    });
  }

  // References resolve against the indexes, so fill them before the first evaluation.
  await Promise.all([secrets.start(), configMaps.start(), pods.start()]);
  await registerNode();
  await deployments.start();

  return {
    containers: (namespace, filter) => view.containers(namespace, filter),
    async serveView() {
      const endpoint = await serveContainerView(view);
      served.add(endpoint);
      return {
        url: endpoint.url,
        close: async () => {
          served.delete(endpoint);
          await endpoint.close();
        },
      };
    },
    async stop() {
      stopped = true;
      for (const timer of retries) clearTimeout(timer);
      for (const timer of deadlineTimers.values()) clearTimeout(timer);
      secrets.stop();
      configMaps.stop();
      await Promise.all([deployments.stop(), pods.stop()]);
      await draining;
      await Promise.all([...served].map((endpoint) => endpoint.close()));
      await kubelet.close();
    },
  };
}
