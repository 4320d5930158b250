import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  makeInformer,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  type ObjectCache,
} from '@kubernetes/client-node';
import { AGENT_ID_LABEL, FIELD_MANAGER, installationSelector } from '@occ/domain/kubernetes-names';
import type { InstanceObject } from '@occ/domain/gateway-render';
import { INSTANCE_API_VERSION } from '@occ/domain/revision-render';
import { classifyKubeError } from '../kube/errors.ts';
import { eventBody } from '../kube/events.ts';
import type { SecretCache } from '../kube/secret-cache.ts';

// The instance reconciler's view of the cluster (RC2), on client-node against any API server: one
// list-and-watch cache per kind it reads (instances, their children, the gateway Pods, the
// Kubernetes namespaces), each selected by this installation's labels, so a reconcile reads from
// memory and writes only what differs. Every request is counted by verb, for the benchmark.

const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export type ChildKind = 'ConfigMap' | 'Deployment' | 'ServiceAccount' | 'RoleBinding';
type Obj = Record<string, unknown> & { metadata?: { name?: string; namespace?: string; uid?: string; labels?: Record<string, string>; resourceVersion?: string } };

export interface InstanceKey {
  namespace: string;
  name: string;
}

export interface InstanceCluster {
  readonly calls: Record<string, number>;
  /** Starts the caches; `changed` is told which instance an event concerns (children map to their instance). */
  start(changed: (key: InstanceKey) => void, namespaceChanged: (k8sName: string, gone: boolean) => void): Promise<void>;
  stop(): Promise<void>;
  instances(): InstanceObject[];
  instance(key: InstanceKey): InstanceObject | undefined;
  child(kind: ChildKind, namespace: string, name: string): Obj | undefined;
  /** The agent's children of a kind, by its agent label. */
  childrenOf(kind: ChildKind, namespace: string, agentUuid: string): Obj[];
  pods(namespace: string, agentUuid: string): Obj[];
  /** The Kubernetes namespaces labelled ours, by name, with their phase. */
  namespaces(): Map<string, string>;
  /** Whether the cache of namespaces has listed once (before that, absence says nothing). */
  namespacesSynced(): boolean;
  apply(object: Obj): Promise<Obj>;
  /** PUT with the live object's resourceVersion: the object becomes exactly this (RC4 repair). */
  replace(kind: ChildKind, object: Obj): Promise<Obj>;
  remove(kind: ChildKind, namespace: string, name: string, uid: string): Promise<void>;
  patchInstanceStatus(key: InstanceKey, status: Record<string, unknown>): Promise<void>;
  /** Whether a Secret exists (the Secret cache, else a GET whose data is dropped at once). */
  secretExists(namespace: string, name: string): Promise<boolean>;
  /** A GET of the instance: whether the object of this uid still exists (the caches can lag a deletion). */
  instanceExists(key: InstanceKey, uid: string): Promise<boolean>;
  /** A GET of a Kubernetes namespace: its phase, or null when it does not exist. */
  readNamespace(name: string): Promise<string | null>;
  createEvent(instance: InstanceObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
}

interface Cache {
  informer: Informer<KubernetesObject> & ObjectCache<KubernetesObject>;
  synced: boolean;
}

export function kubernetesInstanceCluster(kubeConfig: KubeConfig, installationId: string, options: { retryDelayMs?: number; onError?: (error: unknown) => void; secrets?: SecretCache } = {}): InstanceCluster {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  const selector = installationSelector(installationId);
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const onError = options.onError ?? (() => undefined);
  const calls: Record<string, number> = {};
  const count = (verb: string) => {
    calls[verb] = (calls[verb] ?? 0) + 1;
  };
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();

  const counted =
    <T>(fn: () => Promise<T>) =>
    () => {
      count('list');
      return fn();
    };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each list answers its kind's list type
  const cache = (path: string, list: () => Promise<any>): Cache => ({ informer: makeInformer(kubeConfig, path, counted(list), selector), synced: false });
  const makeCaches = () => ({
    instances: cache(`/apis/${GROUP}/${VERSION}/openclawinstances`, () => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'openclawinstances', labelSelector: selector })),
    Deployment: cache('/apis/apps/v1/deployments', () => apps.listDeploymentForAllNamespaces({ labelSelector: selector })),
    ConfigMap: cache('/api/v1/configmaps', () => core.listConfigMapForAllNamespaces({ labelSelector: selector })),
    ServiceAccount: cache('/api/v1/serviceaccounts', () => core.listServiceAccountForAllNamespaces({ labelSelector: selector })),
    RoleBinding: cache('/apis/rbac.authorization.k8s.io/v1/rolebindings', () => rbac.listRoleBindingForAllNamespaces({ labelSelector: selector })),
    pods: cache('/api/v1/pods', () => core.listPodForAllNamespaces({ labelSelector: selector })),
    namespaces: cache('/api/v1/namespaces', () => core.listNamespace({ labelSelector: selector })),
  });
  // Made anew at each start: a replica that leads again starts from fresh lists and callbacks.
  let caches = makeCaches();

  const meta = (o: KubernetesObject) => o.metadata ?? {};
  const instanceOf = (o: KubernetesObject): InstanceKey | null => {
    const uuid = meta(o).labels?.[AGENT_ID_LABEL];
    return uuid && meta(o).namespace ? { namespace: meta(o).namespace!, name: `agent-${uuid}` } : null;
  };

  async function startCache(c: Cache, onEvent: (o: KubernetesObject, deleted: boolean) => void): Promise<void> {
    c.informer.on('add', (o) => onEvent(o, false));
    c.informer.on('update', (o) => onEvent(o, false));
    c.informer.on('delete', (o) => onEvent(o, true));
    c.informer.on('connect', () => {
      c.synced = true;
    });
    c.informer.on('error', (error: unknown) => {
      if (stopped) return;
      onError(error);
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!stopped) void c.informer.start().catch(onError);
      }, retryDelayMs);
      timers.add(timer);
    });
    count('watch');
    await c.informer.start();
    c.synced = true;
  }

  return {
    calls,
    async start(changed, namespaceChanged) {
      stopped = false;
      caches = makeCaches();
      const toInstance = (o: KubernetesObject) => {
        const key = instanceOf(o);
        if (key) changed(key);
      };
      await Promise.all([
        startCache(caches.namespaces, (o, deleted) => namespaceChanged(meta(o).name ?? '', deleted || (o as { status?: { phase?: string } }).status?.phase === 'Terminating')),
        startCache(caches.Deployment, toInstance),
        startCache(caches.ConfigMap, toInstance),
        startCache(caches.ServiceAccount, toInstance),
        startCache(caches.RoleBinding, toInstance),
        startCache(caches.pods, toInstance),
      ]);
      // Instances last: their first reconciles find the children's caches filled.
      await startCache(caches.instances, (o) => changed({ namespace: meta(o).namespace ?? '', name: meta(o).name ?? '' }));
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      await Promise.allSettled(Object.values(caches).map((c) => c.informer.stop()));
    },
    instances: () => caches.instances.informer.list() as unknown as InstanceObject[],
    instance: (key) => caches.instances.informer.get(key.name, key.namespace) as unknown as InstanceObject | undefined,
    child: (kind, namespace, name) => caches[kind].informer.get(name, namespace) as Obj | undefined,
    childrenOf: (kind, namespace, agentUuid) => caches[kind].informer.list(namespace).filter((o) => meta(o).labels?.[AGENT_ID_LABEL] === agentUuid) as Obj[],
    pods: (namespace, agentUuid) => caches.pods.informer.list(namespace).filter((o) => meta(o).labels?.[AGENT_ID_LABEL] === agentUuid) as Obj[],
    namespaces: () => new Map(caches.namespaces.informer.list().map((o) => [meta(o).name ?? '', (o as { status?: { phase?: string } }).status?.phase ?? 'Active'])),
    namespacesSynced: () => caches.namespaces.synced,
    async apply(object) {
      count('apply');
      return (await objects.patch(object as KubernetesObject, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply)) as Obj;
    },
    async replace(kind, object) {
      count('update');
      return (await objects.replace(object as KubernetesObject, undefined, undefined, FIELD_MANAGER)) as Obj;
    },
    async remove(kind, namespace, name, uid) {
      count('delete');
      const apiVersion = kind === 'Deployment' ? 'apps/v1' : kind === 'RoleBinding' ? 'rbac.authorization.k8s.io/v1' : 'v1';
      try {
        await objects.delete({ apiVersion, kind, metadata: { name, namespace } } as KubernetesObject, undefined, undefined, undefined, undefined, 'Background', { preconditions: { uid } });
      } catch (error) {
        const failure = classifyKubeError(error);
        if (failure.kind === 'object-not-found' || (failure.kind === 'conflict' && failure.precondition)) return;
        throw error;
      }
    },
    async patchInstanceStatus(key, status) {
      count('patch');
      await custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, plural: 'openclawinstances', namespace: key.namespace, name: key.name, body: { status }, fieldManager: FIELD_MANAGER }, mergePatch);
    },
    async secretExists(namespace, name) {
      // The Secret cache may confirm it; its absence there is checked on the server.
      if (await options.secrets?.lookup(namespace, name)) return true;
      count('get');
      try {
        await core.readNamespacedSecret({ name, namespace });
        return true;
      } catch (error) {
        if (classifyKubeError(error).kind === 'object-not-found') return false;
        throw error;
      }
    },
    async instanceExists(key, uid) {
      count('get');
      try {
        const live = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawinstances', namespace: key.namespace, name: key.name })) as { metadata?: { uid?: string; deletionTimestamp?: string } };
        return live.metadata?.uid === uid && !live.metadata.deletionTimestamp;
      } catch (error) {
        if (classifyKubeError(error).kind === 'object-not-found') return false;
        throw error;
      }
    },
    async readNamespace(name) {
      count('get');
      try {
        return (await core.readNamespace({ name })).status?.phase ?? 'Active';
      } catch (error) {
        if (classifyKubeError(error).code === 404) return null;
        throw error;
      }
    },
    async createEvent(instance, type, reason, message) {
      count('create');
      const m = instance.metadata;
      await core.createNamespacedEvent({
        namespace: m.namespace,
        body: eventBody({ apiVersion: INSTANCE_API_VERSION, kind: 'OpenClawInstance', name: m.name, namespace: m.namespace, uid: m.uid }, type, reason, message, FIELD_MANAGER, new Date()),
      });
    },
  };
}
