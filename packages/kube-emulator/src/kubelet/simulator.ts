// The kubelet simulator (rule E3): a controller that plays kubelet and deployment controller for
// gateway Deployments, through client-node watches only, so it runs against the embedded server
// and a real API server alike. A gateway Deployment is one labelled
// app.kubernetes.io/component=openclaw-gateway (GATEWAY_LABEL_SELECTOR; overridable). For each,
// it reports status (gateway-status.ts): available when every non-optional secretKeyRef and
// configMapKeyRef resolves, otherwise Available=False with reason CreateContainerConfigError
// naming the missing Secret or ConfigMap and key. It re-evaluates when a Deployment, Secret or
// ConfigMap changes, and writes status only when it differs from what is there.
//
// Secrets are watched for their key names only: values are dropped as each event arrives, so
// the process that runs the simulator holds no secret value beyond the moment of decoding.

import { AppsV1Api, CoreV1Api, makeInformer, Watch, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';
import { setHeaderOptions, PatchStrategy } from '@kubernetes/client-node';
import { kubeTimestamp } from '../types.ts';
import { gatewayStatus, type ConfigSource, type DeploymentCondition, type GatewayDeployment, type GatewayStatus } from './gateway-status.ts';

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

  async function reconcile(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const deployment = deployments.get(key.slice(slash + 1), key.slice(0, slash));
    if (!deployment) return;
    const desired = gatewayStatus(deployment as GatewayDeployment, source);
    if (sameStatus(desired, deployment.status)) return;
    const status = { ...desired, conditions: stamped(desired.conditions, deployment.status, kubeTimestamp(clock())) };
    await apps.patchNamespacedDeploymentStatus(
      { name: deployment.metadata?.name ?? '', namespace: deployment.metadata?.namespace ?? '', body: { status }, fieldManager },
      mergePatch,
    );
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
      secrets.stop();
      configMaps.stop();
      await deployments.stop();
      await draining;
    },
  };
}
