import { CoreV1Api, ListWatch, Watch, type KubeConfig, type V1ObjectMeta, type V1Secret } from '@kubernetes/client-node';
import { installationSelector } from '@occ/domain/kubernetes-names';

// What the deploy path asks of Kubernetes Secrets most often is their identity (D3, W4): labels,
// uid, the keys present, and who wrote their data (managedFields). This cache answers that from a
// list-and-watch per Kubernetes namespace of the installation's Secrets, so admission and the
// worker's checks make no request in the usual case.
//
// - Values never stay: each object is reduced to its metadata and the names of its keys as it
//   arrives from the list or the watch (the bytes pass through memory once, as any read's do).
// - One cache per tenant namespace, not one cluster-wide: the control plane may read Secrets only
//   in the namespaces it provisioned (deploy/rbac.yaml, occ-tenant). A cache opens on first use
//   and closes after it has not been asked for a while (idleMs).
// - A cache confirms, it never refuses: callers use `lookup` for the object the cache holds and
//   read the server when the cache does not hold what they expect (absent, another uid, keys
//   missing). A refusal is always from a live read; a pass may be as old as the watch's delivery.
//   The product's own writes are seen at once that way too (read your writes).

export interface SecretShape {
  metadata: V1ObjectMeta & { name: string; namespace: string };
  /** The names of the keys in `data`; never their values. */
  keys: string[];
}

export function shapeOf(secret: V1Secret): SecretShape {
  const m = secret.metadata ?? {};
  return {
    metadata: {
      name: m.name ?? '',
      namespace: m.namespace ?? '',
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      labels: m.labels,
      annotations: m.annotations,
      creationTimestamp: m.creationTimestamp,
      deletionTimestamp: m.deletionTimestamp,
      managedFields: m.managedFields,
    },
    keys: Object.keys(secret.data ?? {}),
  };
}

export interface SecretCache {
  /** The cached shape of a Secret, once the namespace's cache has listed; null when it holds none (which proves nothing: read the server). */
  lookup(namespace: string, name: string): Promise<SecretShape | null>;
  /** The cached shapes of a namespace's Secrets of this installation matching `labels`, or null when the cache cannot answer. */
  list(namespace: string, labels: Record<string, string>): Promise<SecretShape[] | null>;
  /** Kubernetes API requests made by the caches, by verb (list, watch). */
  readonly calls: Record<string, number>;
  close(): Promise<void>;
}

interface Entry {
  informer: ListWatch<SecretShape & { apiVersion?: string; kind?: string }>;
  ready: Promise<boolean>;
  usedAt: number;
}

/**
 * @param idleMs a namespace's cache closes after this long without a lookup (10 minutes).
 */
export function kubernetesSecretCache(kubeConfig: KubeConfig, installationId: string, options: { idleMs?: number; syncTimeoutMs?: number } = {}): SecretCache {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const selector = installationSelector(installationId);
  const idleMs = options.idleMs ?? 600_000;
  const syncTimeoutMs = options.syncTimeoutMs ?? 5_000;
  const calls: Record<string, number> = {};
  const count = (verb: string) => {
    calls[verb] = (calls[verb] ?? 0) + 1;
  };
  const entries = new Map<string, Entry>();
  let closed = false;
  // Values are dropped before the informer stores anything: the watch below hands it shapes only.
  const watch = new Watch(kubeConfig);
  const shaping = {
    watch(path: string, query: Record<string, string | number | boolean | undefined>, callback: (phase: string, object: unknown, raw: unknown) => void, done: (error: unknown) => void) {
      count('watch');
      return watch.watch(path, query, (phase, object) => callback(phase, phase === 'ERROR' || phase === 'BOOKMARK' ? object : shapeOf(object as V1Secret), null), done);
    },
  } as unknown as Watch;

  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [namespace, entry] of entries) {
      if (now - entry.usedAt < idleMs) continue;
      entries.delete(namespace);
      void entry.informer.stop();
    }
  }, Math.min(idleMs, 60_000));
  sweeper.unref();

  function open(namespace: string): Entry {
    const existing = entries.get(namespace);
    if (existing) {
      existing.usedAt = Date.now();
      return existing;
    }
    const informer = new ListWatch<SecretShape & { apiVersion?: string; kind?: string }>(
      `/api/v1/namespaces/${namespace}/secrets`,
      shaping,
      async () => {
        count('list');
        const list = await core.listNamespacedSecret({ namespace, labelSelector: selector });
        return { ...list, items: list.items.map(shapeOf) } as never;
      },
      false,
      selector,
    );
    const entry: Entry = { informer, ready: Promise.resolve(false), usedAt: Date.now() };
    // A cache whose watch fails is dropped: the next lookup opens a new one (its list is a
    // fresh start), and callers read the server meanwhile.
    informer.on('error', () => {
      if (entries.get(namespace) === entry) entries.delete(namespace);
      void informer.stop();
    });
    let timer: NodeJS.Timeout | undefined;
    entry.ready = Promise.race([
      informer.start().then(
        () => entries.get(namespace) === entry,
        () => false,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), syncTimeoutMs);
        timer.unref();
      }),
    ]).finally(() => clearTimeout(timer));
    entries.set(namespace, entry);
    return entry;
  }

  async function synced(namespace: string): Promise<Entry | null> {
    if (closed) return null;
    const entry = open(namespace);
    return (await entry.ready) && entries.get(namespace) === entry ? entry : null;
  }

  return {
    calls,
    async lookup(namespace, name) {
      const entry = await synced(namespace);
      return entry?.informer.get(name, namespace) ?? null;
    },
    async list(namespace, labels) {
      const entry = await synced(namespace);
      if (!entry) return null;
      return entry.informer.list(namespace).filter((s) => Object.entries(labels).every(([k, v]) => s.metadata.labels?.[k] === v));
    },
    async close() {
      closed = true;
      clearInterval(sweeper);
      await Promise.allSettled([...entries.values()].map((e) => e.informer.stop()));
      entries.clear();
    },
  };
}
