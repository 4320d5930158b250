import {
  CoreV1Api,
  CustomObjectsApi,
  makeInformer,
  PatchStrategy,
  Watch,
  setHeaderOptions,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  type ObjectCache,
} from '@kubernetes/client-node';
import { installationSelector } from '@occ/domain/kubernetes-names';
import { SELF_CONFIG_MANAGER, OPENCLAW_API_VERSION, SELF_CONFIG_KIND } from '@occ/domain/selfconfig';
import { classifyKubeError } from '../kube/errors.ts';
import { eventBody } from '../kube/events.ts';
import { kubeConfigAsServiceAccount } from '../kube/service-account-client.ts';

// The SelfConfig controller's view of the cluster, on client-node against any API server: the
// requests (list, watch, status, owner reference, delete) and the instances (a list-and-watch
// cache of the installation's instances, read, apply). Every call is counted by verb, so the
// benchmark can report Kubernetes API requests per SelfConfig request.

const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';
export const SELF_CONFIG_PLURAL = 'openclawselfconfigs';
const INSTANCE_PLURAL = 'openclawinstances';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const serverSideApply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

export interface ObjectMeta {
  name: string;
  namespace: string;
  uid: string;
  resourceVersion: string;
  generation?: number;
  creationTimestamp?: string;
  ownerReferences?: Array<{ uid?: string }>;
  managedFields?: unknown[];
  labels?: Record<string, string>;
}

export interface SelfConfigObject {
  metadata: ObjectMeta;
  spec?: unknown;
  status?: { phase?: string; message?: string; completionTime?: string; skippedRemovals?: unknown[]; changes?: string[]; healthGate?: unknown };
}

/** The instance a request names (spec.instanceRef), '' when it names none. */
export function instanceRefOf(request: Pick<SelfConfigObject, 'spec'>): string {
  return String((request.spec as { instanceRef?: unknown } | undefined)?.instanceRef ?? '');
}

export interface InstanceObject {
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  /** As the instance reconciler writes it (RC2); SG1's gate reads its conditions. */
  status?: Record<string, unknown>;
}

export interface EventInput {
  involved: { kind: string; name: string; namespace: string; uid: string; apiVersion: string };
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** ERROR: the server ended the watch with a Status (410 Gone: the version is too old); `object` is that Status. */
export type WatchEvent = { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: SelfConfigObject };

/** What the controller and the GraphQL services need of a cluster; one adapter below implements it. */
export interface SelfConfigCluster {
  listRequests(): Promise<{ items: SelfConfigObject[]; resourceVersion: string }>;
  /** Watches from a resourceVersion; `done` is called once when the watch ends (error or close). */
  watchRequests(resourceVersion: string, onEvent: (event: WatchEvent) => void, done: (error: unknown) => void): Promise<{ abort(): void }>;
  getRequest(namespace: string, name: string): Promise<SelfConfigObject | null>;
  createRequest(namespace: string, generateName: string, spec: Record<string, unknown>, labels: Record<string, string>): Promise<SelfConfigObject>;
  /**
   * A merge patch of the status subresource. With `resourceVersion` the patch carries it in
   * `metadata` as a precondition: a copy older than the stored object answers 409 Conflict (a
   * real API server and the emulator alike check it on the status subresource too).
   */
  patchRequestStatus(namespace: string, name: string, status: Record<string, unknown>, resourceVersion?: string): Promise<SelfConfigObject>;
  setRequestOwner(namespace: string, name: string, owner: InstanceObject): Promise<SelfConfigObject>;
  /** A merge patch of the request's spec (SG5: a refused request's literal values are blanked). */
  patchRequestSpec(namespace: string, name: string, spec: Record<string, unknown>): Promise<SelfConfigObject>;
  /** Deletes exactly that object (uid precondition); false when it is gone already. */
  deleteRequest(namespace: string, name: string, uid: string): Promise<boolean>;
  getInstance(namespace: string, name: string): Promise<InstanceObject | null>;
  /** One list of a namespace's instances matching a label selector (a page's instances in one request, not a GET each). */
  listInstances(namespace: string, labelSelector: string): Promise<InstanceObject[]>;
  /**
   * Opens (once) a list-and-watch cache of the installation's OpenClawInstances, cluster-wide,
   * selected by `installationSelector(installationId)`. Resolves once it has listed; a failed list
   * or watch is retried, and the cache answers nothing until it has listed again.
   */
  startInstanceCache(installationId: string): Promise<void>;
  /** Calls `listener` with an instance's namespace and name each time the cache sees it change (SG1: a gate waits on its status). */
  onInstanceChange(listener: (namespace: string, name: string) => void): () => void;
  stopInstanceCache(): Promise<void>;
  /**
   * The instance as the cache last saw it. Undefined proves nothing: the cache can lag a
   * creation, holds only instances labelled ours, and answers nothing before it has listed.
   */
  cachedInstance(namespace: string, name: string): InstanceObject | undefined;
  /** SSA as openclaw-selfconfig; the body carries the resourceVersion precondition. */
  /** SC6; with dryRun (SG2's preview) the server answers what the apply would make and stores nothing. */
  applyInstance(body: Record<string, unknown>, options?: { dryRun?: boolean }): Promise<InstanceObject>;
  /** Deletes exactly this version of an instance (uid and resourceVersion preconditions); false when it is gone or changed. */
  deleteInstance(namespace: string, name: string, preconditions: { uid: string; resourceVersion: string }): Promise<boolean>;
  createEvent(event: EventInput, now: Date): Promise<void>;
  /** Kubernetes API calls made, by verb (list, watch, get, create, patch, apply, delete). */
  readonly calls: Record<string, number>;
}

function meta(object: unknown): ObjectMeta {
  const m = (object as { metadata?: Record<string, unknown> }).metadata ?? {};
  return m as unknown as ObjectMeta;
}

async function orNull<T>(promise: Promise<T>): Promise<T | null> {
  try {
    return await promise;
  } catch (error) {
    if (classifyKubeError(error).kind === 'object-not-found') return null;
    throw error;
  }
}

export function kubernetesSelfConfigCluster(
  kubeConfig: KubeConfig,
  options: {
    retryDelayMs?: number;
    onError?: (error: unknown) => void;
    /** client-node's inactivity timeout of the requests' watch (30 s, its default); tests shorten it. */
    watchInactivityMs?: number;
  } = {},
): SelfConfigCluster {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const calls: Record<string, number> = {};
  const count = (verb: string) => {
    calls[verb] = (calls[verb] ?? 0) + 1;
  };
  const request = { group: GROUP, version: VERSION, plural: SELF_CONFIG_PLURAL };
  const instances = { group: GROUP, version: VERSION, plural: INSTANCE_PLURAL };
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const onError = options.onError ?? (() => undefined);

  // The instance cache (client-node's informer, as the instance reconciler's): one list, then one
  // watch, opened when the controller starts, never per request. After a failed list or watch it
  // answers nothing (the controller reads the server) until it has listed again.
  let informer: (Informer<KubernetesObject> & ObjectCache<KubernetesObject>) | null = null;
  let synced = false;
  const instanceListeners = new Set<(namespace: string, name: string) => void>();
  let failures = 0;
  let retry: NodeJS.Timeout | null = null;
  async function run(inf: Informer<KubernetesObject>): Promise<void> {
    const before = failures;
    await inf.start();
    if (informer === inf && failures === before) synced = true;
  }

  return {
    calls,
    async listRequests() {
      count('list');
      const list = (await custom.listClusterCustomObject(request)) as { items?: SelfConfigObject[]; metadata?: { resourceVersion?: string } };
      return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion ?? '' };
    },
    async watchRequests(resourceVersion, onEvent, done) {
      count('watch');
      const watcher = new Watch(kubeConfig);
      // client-node 2.0 keeps the timeout in a field its types call private (a test that shortens
      // it counts the reconnects it causes, so a rename fails there rather than passing unseen).
      if (options.watchInactivityMs) (watcher as unknown as { requestTimeoutMs: number }).requestTimeoutMs = options.watchInactivityMs;
      const abort = await watcher.watch(
        `/apis/${GROUP}/${VERSION}/${SELF_CONFIG_PLURAL}`,
        { resourceVersion, allowWatchBookmarks: true },
        (type: string, object: SelfConfigObject) => onEvent({ type: type as WatchEvent['type'], object }),
        (error: unknown) => done(error),
      );
      return { abort: () => abort.abort() };
    },
    async getRequest(namespace, name) {
      count('get');
      return orNull(custom.getNamespacedCustomObject({ ...request, namespace, name }) as Promise<SelfConfigObject>);
    },
    async createRequest(namespace, generateName, spec, labels) {
      count('create');
      // SC5: the webhook admits a request only from the service account of the instance it names,
      // so the control plane makes it with that account's own short-lived token (TokenRequest).
      const asInstance = (await kubeConfigAsServiceAccount(kubeConfig, namespace, String(spec.instanceRef))).makeApiClient(CustomObjectsApi);
      return (await asInstance.createNamespacedCustomObject({
        ...request,
        namespace,
        body: { apiVersion: OPENCLAW_API_VERSION, kind: SELF_CONFIG_KIND, metadata: { generateName, namespace, labels }, spec },
        fieldManager: SELF_CONFIG_MANAGER,
      })) as SelfConfigObject;
    },
    async patchRequestStatus(namespace, name, status, resourceVersion) {
      count('patch');
      const body = resourceVersion === undefined ? { status } : { metadata: { resourceVersion }, status };
      return (await custom.patchNamespacedCustomObjectStatus({ ...request, namespace, name, body, fieldManager: SELF_CONFIG_MANAGER }, mergePatch)) as SelfConfigObject;
    },
    async setRequestOwner(namespace, name, owner) {
      count('patch');
      const m = owner.metadata;
      const ownerReferences = [{ apiVersion: OPENCLAW_API_VERSION, kind: 'OpenClawInstance', name: m.name, uid: m.uid, controller: false, blockOwnerDeletion: false }];
      return (await custom.patchNamespacedCustomObject({ ...request, namespace, name, body: { metadata: { ownerReferences } }, fieldManager: SELF_CONFIG_MANAGER }, mergePatch)) as SelfConfigObject;
    },
    async patchRequestSpec(namespace, name, spec) {
      count('patch');
      return (await custom.patchNamespacedCustomObject({ ...request, namespace, name, body: { spec }, fieldManager: SELF_CONFIG_MANAGER }, mergePatch)) as SelfConfigObject;
    },
    async deleteRequest(namespace, name, uid) {
      count('delete');
      try {
        await custom.deleteNamespacedCustomObject({ ...request, namespace, name, body: { preconditions: { uid } } });
        return true;
      } catch (error) {
        const failure = classifyKubeError(error);
        // Gone, or replaced by another object of the same name that is not ours to delete.
        if (failure.kind === 'object-not-found' || (failure.kind === 'conflict' && failure.precondition)) return false;
        throw error;
      }
    },
    async getInstance(namespace, name) {
      count('get');
      return orNull(custom.getNamespacedCustomObject({ ...instances, namespace, name }) as Promise<InstanceObject>);
    },
    async listInstances(namespace, labelSelector) {
      count('list');
      const list = (await custom.listNamespacedCustomObject({ ...instances, namespace, labelSelector })) as { items?: InstanceObject[] };
      return list.items ?? [];
    },
    async startInstanceCache(installationId) {
      if (informer) return;
      const selector = installationSelector(installationId);
      const inf = makeInformer<KubernetesObject>(
        kubeConfig,
        `/apis/${GROUP}/${VERSION}/${INSTANCE_PLURAL}`,
        () => {
          count('list');
          return custom.listClusterCustomObject({ ...instances, labelSelector: selector }) as never;
        },
        selector,
      );
      informer = inf;
      synced = false;
      const changed = (object: KubernetesObject) => {
        const { namespace, name } = object.metadata ?? {};
        if (!namespace || !name) return;
        for (const listener of instanceListeners) listener(namespace, name);
      };
      inf.on('update', changed);
      inf.on('add', changed);
      // Each list is preceded by a connect, and so is each watch: counted as the watch request it opens.
      inf.on('connect', () => count('watch'));
      inf.on('error', (error: unknown) => {
        if (informer !== inf) return;
        failures++;
        synced = false;
        onError(error);
        if (retry) return;
        retry = setTimeout(() => {
          retry = null;
          if (informer === inf) void run(inf).catch(onError);
        }, retryDelayMs);
        retry.unref();
      });
      await run(inf);
    },
    async stopInstanceCache() {
      const inf = informer;
      informer = null;
      synced = false;
      if (retry) clearTimeout(retry);
      retry = null;
      await inf?.stop();
    },
    onInstanceChange(listener) {
      instanceListeners.add(listener);
      return () => instanceListeners.delete(listener);
    },
    cachedInstance(namespace, name) {
      if (!informer || !synced) return undefined;
      return informer.get(name, namespace) as unknown as InstanceObject | undefined;
    },
    async applyInstance(body, options = {}) {
      count(options.dryRun ? 'dryRunApply' : 'apply');
      const m = meta(body);
      return (await custom.patchNamespacedCustomObject(
        // force: an agent's add of a value another manager set takes that field over, as the
        // reference operator does; removals never force anything (SC7 skips them instead).
        { ...instances, namespace: m.namespace, name: m.name, body, fieldManager: SELF_CONFIG_MANAGER, force: true, ...(options.dryRun ? { dryRun: 'All' } : {}) },
        serverSideApply,
      )) as InstanceObject;
    },
    async deleteInstance(namespace, name, preconditions) {
      count('delete');
      try {
        await custom.deleteNamespacedCustomObject({ ...instances, namespace, name, body: { preconditions } });
        return true;
      } catch (error) {
        const failure = classifyKubeError(error);
        if (failure.kind === 'object-not-found' || (failure.kind === 'conflict' && failure.precondition)) return false;
        throw error;
      }
    },
    async createEvent(event, now) {
      count('create');
      const { involved } = event;
      await core.createNamespacedEvent({ namespace: involved.namespace, body: eventBody(involved, event.type, event.reason, event.message, SELF_CONFIG_MANAGER, now) });
    },
  };
}
