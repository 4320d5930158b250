// The storage layer (this emulator's etcd): objects keyed by storage collection, namespace and
// name; one global resourceVersion counter bumped on every write; a bounded history of write
// events so that watches can resume from a recent resourceVersion; and live subscribers.
// It knows nothing about HTTP or about kinds: the API layer decides what may be written.

import { clone, type KubeObject } from './types.ts';

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: StoreEventType;
  storageKey: string;
  resourceVersion: number;
  object: KubeObject;
  /** The object before this write (MODIFIED and DELETED), for selector transitions in watches. */
  previous?: KubeObject;
}

export interface StoreSnapshot {
  resourceVersion: number;
  collections: Record<string, KubeObject[]>;
}

export type HistoryRead = { kind: 'events'; events: StoreEvent[] } | { kind: 'expired'; oldest: number };

export const DEFAULT_HISTORY_LIMIT = 2000;

function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

function compareObjects(a: KubeObject, b: KubeObject): number {
  const ka = objectKey(a.metadata.namespace, a.metadata.name ?? '');
  const kb = objectKey(b.metadata.namespace, b.metadata.name ?? '');
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** One storage collection, indexed by namespace ('' for cluster-scoped) and name, so a namespace's list reads only that namespace. */
class Collection {
  private readonly namespaces = new Map<string, Map<string, KubeObject>>();

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.namespaces.get(namespace ?? '')?.get(name);
  }

  set(object: KubeObject): void {
    const namespace = object.metadata.namespace ?? '';
    let objects = this.namespaces.get(namespace);
    if (!objects) {
      objects = new Map();
      this.namespaces.set(namespace, objects);
    }
    objects.set(object.metadata.name ?? '', object);
  }

  delete(namespace: string | undefined, name: string): void {
    const objects = this.namespaces.get(namespace ?? '');
    objects?.delete(name);
    if (objects?.size === 0) this.namespaces.delete(namespace ?? '');
  }

  /** Every object, or one namespace's, unordered. */
  values(namespace?: string): KubeObject[] {
    if (namespace !== undefined) return [...(this.namespaces.get(namespace)?.values() ?? [])];
    return [...this.namespaces.values()].flatMap((objects) => [...objects.values()]);
  }
}

export class ObjectStore {
  private readonly collections = new Map<string, Collection>();
  private readonly history: StoreEvent[] = [];
  private readonly subscribers = new Set<(event: StoreEvent) => void>();
  private revision: number;
  /** Events after this revision are all in `history`; a watch from an older one has expired. */
  private historyFloor: number;

  constructor(
    snapshot?: StoreSnapshot,
    private readonly historyLimit = DEFAULT_HISTORY_LIMIT,
  ) {
    this.revision = snapshot?.resourceVersion ?? 0;
    this.historyFloor = this.revision;
    for (const [key, objects] of Object.entries(snapshot?.collections ?? {})) {
      const collection = this.collection(key);
      for (const object of objects) collection.set(object);
    }
  }

  get resourceVersion(): number {
    return this.revision;
  }

  get(storageKey: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.collections.get(storageKey)?.get(namespace, name);
    return found === undefined ? undefined : clone(found);
  }

  /** Objects of a collection, optionally of one namespace, ordered by namespace and name. */
  list(storageKey: string, namespace?: string): KubeObject[] {
    const collection = this.collections.get(storageKey);
    if (!collection) return [];
    return collection
      .values(namespace)
      .sort(compareObjects)
      .map((o) => clone(o));
  }

  create(storageKey: string, object: KubeObject): KubeObject {
    const collection = this.collection(storageKey);
    if (collection.get(object.metadata.namespace, object.metadata.name ?? '')) {
      throw new Error(`store: ${storageKey} ${objectKey(object.metadata.namespace, object.metadata.name ?? '')} exists`);
    }
    const stored = this.stamp(object);
    collection.set(stored);
    this.record({ type: 'ADDED', storageKey, resourceVersion: this.revision, object: stored });
    return clone(stored);
  }

  update(storageKey: string, object: KubeObject): KubeObject {
    const collection = this.collection(storageKey);
    const previous = collection.get(object.metadata.namespace, object.metadata.name ?? '');
    if (!previous) throw new Error(`store: ${storageKey} ${objectKey(object.metadata.namespace, object.metadata.name ?? '')} missing`);
    const stored = this.stamp(object);
    collection.set(stored);
    this.record({ type: 'MODIFIED', storageKey, resourceVersion: this.revision, object: stored, previous });
    return clone(stored);
  }

  /**
   * Removes the object; the returned last state (the stored one, or `finalState` when an update
   * is what deletes it) carries the deletion's resourceVersion, as etcd's does.
   */
  delete(storageKey: string, namespace: string | undefined, name: string, finalState?: KubeObject): KubeObject | undefined {
    const collection = this.collections.get(storageKey);
    const previous = collection?.get(namespace, name);
    if (!collection || !previous) return undefined;
    collection.delete(namespace, name);
    const last = this.stamp(finalState ?? previous);
    this.record({ type: 'DELETED', storageKey, resourceVersion: this.revision, object: last, previous });
    return clone(last);
  }

  /** Write events after `resourceVersion`, or `expired` when some of them are no longer retained. */
  eventsSince(resourceVersion: number): HistoryRead {
    if (resourceVersion < this.historyFloor) return { kind: 'expired', oldest: this.historyFloor };
    return { kind: 'events', events: this.history.filter((e) => e.resourceVersion > resourceVersion) };
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  snapshot(): StoreSnapshot {
    const collections: Record<string, KubeObject[]> = {};
    for (const key of [...this.collections.keys()].sort()) {
      const items = this.list(key);
      if (items.length > 0) collections[key] = items;
    }
    return { resourceVersion: this.revision, collections };
  }

  private collection(storageKey: string): Collection {
    let collection = this.collections.get(storageKey);
    if (!collection) {
      collection = new Collection();
      this.collections.set(storageKey, collection);
    }
    return collection;
  }

  private stamp(object: KubeObject): KubeObject {
    this.revision += 1;
    const stored = clone(object);
    stored.metadata.resourceVersion = String(this.revision);
    return stored;
  }

  private record(event: StoreEvent): void {
    this.history.push(event);
    while (this.history.length > this.historyLimit) {
      const dropped = this.history.shift();
      if (dropped) this.historyFloor = dropped.resourceVersion;
    }
    for (const listener of [...this.subscribers]) listener(event);
  }
}
