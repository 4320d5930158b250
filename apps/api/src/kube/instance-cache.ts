import { CustomObjectsApi, makeInformer, type Informer, type KubeConfig, type KubernetesObject, type ObjectCache } from '@kubernetes/client-node';
import { installationSelector } from '@occ/domain/kubernetes-names';

// The worker's view of the installation's OpenClawInstances (W4, W5): one list-and-watch of every
// instance labelled ours, opened on first use, so the deploy path reads an instance's spec,
// managedFields and status from memory and waits for its status by watching, not by polling.
// Like the Secret cache it confirms and never refuses: an apply made from a cached instance carries
// its resourceVersion (a stale one conflicts and the caller reads the server), and anything that
// would fail a revision is read from the server first.

const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';
const PLURAL = 'openclawinstances';

export interface CachedInstance {
  metadata: { name: string; namespace: string; uid: string; generation?: number; resourceVersion?: string; managedFields?: unknown; deletionTimestamp?: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export interface InstanceCache {
  /** The cached instance, once the cache has listed; null when it holds none (which proves nothing). */
  get(namespace: string, name: string): Promise<CachedInstance | null>;
  /** Calls `listener` on each change of that instance the watch delivers (and on a re-list); answers the unsubscribe. */
  onChange(namespace: string, name: string, listener: () => void): () => void;
  readonly calls: Record<string, number>;
  close(): Promise<void>;
}

export function kubernetesInstanceCache(kubeConfig: KubeConfig, installationId: string, options: { retryDelayMs?: number; syncTimeoutMs?: number } = {}): InstanceCache {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const selector = installationSelector(installationId);
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  const syncTimeoutMs = options.syncTimeoutMs ?? 5_000;
  const calls: Record<string, number> = {};
  const count = (verb: string) => {
    calls[verb] = (calls[verb] ?? 0) + 1;
  };
  const listeners = new Map<string, Set<() => void>>();
  const notify = (o: KubernetesObject) => {
    for (const l of listeners.get(`${o.metadata?.namespace}/${o.metadata?.name}`) ?? []) l();
  };
  let informer: (Informer<KubernetesObject> & ObjectCache<KubernetesObject>) | null = null;
  let ready: Promise<boolean> | null = null;
  let retry: NodeJS.Timeout | null = null;
  let closed = false;

  function start(): Promise<boolean> {
    const inf = makeInformer(
      kubeConfig,
      `/apis/${GROUP}/${VERSION}/${PLURAL}`,
      () => {
        count('list');
        return custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, labelSelector: selector }) as never;
      },
      selector,
    );
    informer = inf;
    inf.on('add', notify);
    inf.on('update', notify);
    inf.on('delete', notify);
    inf.on('connect', () => count('watch'));
    // A failed list or watch: the cache is unusable until it lists again (callers read the server).
    inf.on('error', () => {
      if (informer !== inf || closed) return;
      ready = Promise.resolve(false);
      retry = setTimeout(() => {
        retry = null;
        if (informer === inf && !closed) ready = started(inf);
      }, retryDelayMs);
      retry.unref();
    });
    return started(inf);
  }

  function started(inf: Informer<KubernetesObject>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const listed = inf.start().then(
      () => informer === inf,
      () => false,
    );
    const result = Promise.race([
      listed,
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), syncTimeoutMs);
        timer.unref();
      }),
    ]).finally(() => clearTimeout(timer));
    // Everyone waiting on an instance looks again after a (re-)list.
    void listed.then((ok) => {
      if (ok) for (const set of listeners.values()) for (const l of set) l();
    });
    return result;
  }

  async function synced(): Promise<boolean> {
    if (closed) return false;
    ready ??= start();
    return ready;
  }

  return {
    calls,
    async get(namespace, name) {
      if (!(await synced()) || !informer) return null;
      return (informer.get(name, namespace) as unknown as CachedInstance | undefined) ?? null;
    },
    onChange(namespace, name, listener) {
      const key = `${namespace}/${name}`;
      let set = listeners.get(key);
      if (!set) listeners.set(key, (set = new Set()));
      set.add(listener);
      void synced();
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(key);
      };
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await informer?.stop();
      informer = null;
    },
  };
}
