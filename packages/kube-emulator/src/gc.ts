// The garbage collector (rule E7), as kube-controller-manager's runs it, reduced to what a
// client can observe (k8s.io/kubernetes/pkg/controller/garbagecollector):
// - an object whose owners (metadata.ownerReferences, by uid) are all gone is deleted; one that
//   still has a live owner only loses the reference to the one that went;
// - an owner being deleted in the foreground (finalizer foregroundDeletion) has its dependents
//   deleted first, then loses the finalizer, and goes once no blocking dependent
//   (blockOwnerDeletion: true) remains;
// - an owner deleted with propagationPolicy Orphan (finalizer orphan) has the references to it
//   removed from its dependents, then loses the finalizer.
// It works after the write that triggers it, never inside it, so every watcher sees the
// owner's event before those of its dependents, as with a real controller.
//
// It keeps its own graph, as the real one does (its GraphBuilder, fed by informers), from the
// store's events: every stored object by uid (where it is, which uids it names as owners, whether
// it is being deleted and held by one of the collector's finalizers), and for each uid the objects
// that name it. A pass judges only the objects whose judgement the events since the last pass can
// have changed, as a pass over every object would judge them: in the same order (storage keys as
// the registry serves them, then namespace and name) and from the store as it was when it began.
// Those are:
// - an object written with ownerReferences (are its owners there, or all waiting for it?);
// - the dependents of an object that went, or that waits for them in the foreground;
// - an owner being deleted with the orphan or foreground finalizer, when it or one of its
//   dependents is written or goes;
// - the objects of a storage key that starts or stops being served (CRDs), and their dependents.
// So a pass costs what those objects cost, not what the store holds. A store filled from a data
// file emits no events: the graph is built from what it holds at start, all of it judged once.

import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type KubeApi, type Target } from './api.ts';
import type { ResourceRegistry, ResourceType } from './registry.ts';
import type { ObjectStore, StoreEvent } from './store.ts';
import { isObject, type KubeObject } from './types.ts';

const USER_AGENT = 'kube-controller-manager/v1.33.0 (linux/amd64) kubernetes/garbage-collector';

interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  blockOwnerDeletion?: boolean;
}

function ownerReferences(object: KubeObject): OwnerReference[] {
  return (object.metadata.ownerReferences ?? []).filter(isObject) as OwnerReference[];
}

/** What the collector keeps of a stored object: where it is, and what of it concerns collection. */
interface Node {
  uid: string;
  storageKey: string;
  namespace: string | undefined;
  name: string;
  /** Its ownerReferences in order: the uid each names ('' when none) and whether it blocks. */
  owners: { uid: string; block: boolean }[];
  deleting: boolean;
  orphan: boolean;
  foreground: boolean;
}

function nodeOf(storageKey: string, object: KubeObject): Node {
  const finalizers = object.metadata.finalizers ?? [];
  return {
    uid: object.metadata.uid ?? '',
    storageKey,
    namespace: object.metadata.namespace,
    name: object.metadata.name ?? '',
    owners: ownerReferences(object).map((ref) => ({ uid: typeof ref.uid === 'string' ? ref.uid : '', block: ref.blockOwnerDeletion === true })),
    deleting: object.metadata.deletionTimestamp !== undefined,
    orphan: finalizers.includes(ORPHAN_FINALIZER),
    foreground: finalizers.includes(FOREGROUND_FINALIZER),
  };
}

/** Being deleted and held by one of the collector's finalizers: the collector has work on it. */
function held(node: Node): boolean {
  return node.deleting && (node.orphan || node.foreground);
}

/** Deleted in the foreground: its dependents count it as gone, and it waits for them. */
function waiting(node: Node): boolean {
  return node.deleting && node.foreground;
}

/** Something for a pass to judge: a dependent with owners, or an owner the collector holds. */
function judged(node: Node): boolean {
  return (node.owners.length > 0 && !node.deleting) || held(node);
}

/** What the collector has done since it started: a count of work, never of time. */
export interface GarbageCollectorStats {
  /** Passes run. */
  passes: number;
  /** Objects judged, over all passes. */
  examined: number;
  /** Objects read from the store (one each, by key), over all passes. */
  read: number;
}

export class GarbageCollector {
  private readonly unsubscribe: () => void;
  private stopped = false;
  private scheduled = false;
  /** Every stored object, by uid. */
  private readonly nodes = new Map<string, Node>();
  /** Owner uid → the uids of the objects whose ownerReferences name it (whether or not it exists). */
  private readonly dependents = new Map<string, Set<string>>();
  /** Uids the next pass judges. */
  private queue = new Set<string>();
  /** The storage keys served when the last pass ran, with the type each is served as: objects of others are invisible to it. */
  private served = new Map<string, ResourceType>();
  /** Position of each served storage key, for judging in the order of a listing of everything. */
  private keyOrder = new Map<string, number>();
  private readonly counts: GarbageCollectorStats = { passes: 0, examined: 0, read: 0 };

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    private readonly api: KubeApi,
  ) {
    this.unsubscribe = store.subscribe((event) => this.observe(event));
    for (const [key, objects] of Object.entries(store.snapshot().collections)) {
      for (const object of objects) this.add(nodeOf(key, object));
    }
    this.served = registry.byStorageKey();
    for (const node of this.nodes.values()) if (judged(node)) this.queue.add(node.uid);
    this.schedule();
  }

  get stats(): GarbageCollectorStats {
    return { ...this.counts };
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  private add(node: Node): void {
    this.nodes.set(node.uid, node);
    for (const owner of node.owners) {
      let set = this.dependents.get(owner.uid);
      if (!set) {
        set = new Set();
        this.dependents.set(owner.uid, set);
      }
      set.add(node.uid);
    }
  }

  private remove(node: Node): void {
    if (this.nodes.get(node.uid) === node) this.nodes.delete(node.uid);
    for (const owner of node.owners) {
      const set = this.dependents.get(owner.uid);
      set?.delete(node.uid);
      if (set?.size === 0) this.dependents.delete(owner.uid);
    }
  }

  private queueDependents(uid: string): void {
    for (const dependent of this.dependents.get(uid) ?? []) this.queue.add(dependent);
  }

  /** Keeps the graph as the store is (inside the write) and notes what the next pass judges. */
  private observe(event: StoreEvent): void {
    const { object } = event;
    const uid = object.metadata.uid ?? '';
    const before = this.nodes.get(uid);
    let owners = before?.owners ?? [];
    if (event.type === 'DELETED') {
      const same = before !== undefined && before.storageKey === event.storageKey && before.namespace === object.metadata.namespace && before.name === (object.metadata.name ?? '');
      if (same) this.remove(before);
      this.queueDependents(uid);
    } else {
      if (before) this.remove(before);
      const node = nodeOf(event.storageKey, object);
      this.add(node);
      if (judged(node)) this.queue.add(uid);
      // Its dependents count an owner waiting in the foreground as gone.
      if (waiting(node)) this.queueDependents(uid);
      owners = [...owners, ...node.owners];
    }
    // An owner the collector holds: a dependent of it came, changed or went.
    for (const owner of owners) {
      const node = this.nodes.get(owner.uid);
      if (node && held(node)) this.queue.add(owner.uid);
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.queue.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.stopped) this.pass();
    });
  }

  /** The node of a uid if its object is stored and served, as a listing of everything would show it. */
  private visible(uid: string): Node | undefined {
    const node = this.nodes.get(uid);
    return node !== undefined && this.served.has(node.storageKey) ? node : undefined;
  }

  /** Listing order: storage keys as the registry serves them, then namespace and name. */
  private compare = (a: Node, b: Node): number => {
    const byKey = (this.keyOrder.get(a.storageKey) ?? 0) - (this.keyOrder.get(b.storageKey) ?? 0);
    if (byKey !== 0) return byKey;
    const ka = `${a.namespace ?? ''}/${a.name}`;
    const kb = `${b.namespace ?? ''}/${b.name}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };

  private dependentsOf(uid: string): Node[] {
    const out: Node[] = [];
    for (const dependent of this.dependents.get(uid) ?? []) {
      const node = this.visible(dependent);
      if (node) out.push(node);
    }
    return out.sort(this.compare);
  }

  /** The object of a node as stored now (the graph follows the store, so it is there). */
  private read(node: Node): KubeObject | undefined {
    this.counts.read += 1;
    const object = this.store.get(node.storageKey, node.namespace, node.name);
    return object?.metadata.uid === node.uid ? object : undefined;
  }

  private target(node: Node): Target {
    const type = this.served.get(node.storageKey) as ResourceType;
    return { type, namespace: type.namespaced ? node.namespace : undefined, name: node.name };
  }

  /** One pass over what the events since the last one touched; its writes bring the next pass. */
  private pass(): void {
    const queued = this.queue;
    this.queue = new Set();
    const before = this.served;
    this.served = this.registry.byStorageKey();
    this.keyOrder = new Map([...this.served.keys()].map((key, i) => [key, i]));
    // A storage key served or no longer served (a CRD came or changed): its objects appear or
    // vanish as owners, so they and their dependents are judged again.
    const changed = new Set([...this.served.keys()].filter((key) => !before.has(key)));
    for (const key of before.keys()) if (!this.served.has(key)) changed.add(key);
    if (changed.size > 0) {
      for (const node of this.nodes.values()) {
        if (!changed.has(node.storageKey)) continue;
        if (judged(node)) queued.add(node.uid);
        for (const dependent of this.dependents.get(node.uid) ?? []) queued.add(dependent);
      }
    }
    this.counts.passes += 1;
    const nodes: Node[] = [];
    for (const uid of queued) {
      const node = this.visible(uid);
      if (node) nodes.push(node);
    }
    // Everything is decided from the store as it was when the pass began, then written: what a
    // write of this pass changes is acted on by the next pass, a turn later, so that watchers see
    // an owner waiting in the foreground go only after its dependents did.
    const plans = nodes.sort(this.compare).map((node) => {
      this.counts.examined += 1;
      return this.plan(node);
    });
    for (const run of plans) {
      try {
        run?.();
      } catch {
        // The object changed or went meanwhile; the write that did it brings another pass.
      }
    }
  }

  /** What the collector does about one object, decided now and done when called. */
  private plan(node: Node): (() => void) | undefined {
    const options = { userAgent: USER_AGENT };
    const { uid } = node;
    if (node.deleting && node.orphan) {
      const dependents = this.dependentsOf(uid).map((dependent) => ({ target: this.target(dependent), object: this.read(dependent) }));
      const owner = this.read(node);
      return () => {
        for (const { target, object } of dependents) {
          if (!object) continue;
          const remaining = ownerReferences(object).filter((ref) => ref.uid !== uid);
          this.api.patch(target, 'merge', { metadata: { ownerReferences: remaining.length > 0 ? remaining : null } }, options);
        }
        this.removeFinalizer(node, owner, ORPHAN_FINALIZER);
      };
    }
    if (node.deleting && node.foreground) {
      const dependents = this.dependentsOf(uid);
      const deletions = dependents
        .filter((dependent) => !dependent.deleting)
        .map((dependent) => ({ target: this.target(dependent), grandchildren: this.dependentsOf(dependent.uid).length > 0 }));
      const blocking = dependents.some((d) => d.owners.some((ref) => ref.uid === uid && ref.block));
      const owner = blocking ? undefined : this.read(node);
      return () => {
        for (const { target, grandchildren } of deletions) this.api.delete(target, { ...options, propagationPolicy: grandchildren ? 'Foreground' : 'Background' });
        if (!blocking) this.removeFinalizer(node, owner, FOREGROUND_FINALIZER);
      };
    }
    if (node.owners.length === 0 || node.deleting) return undefined;
    // An owner still stored counts, even while it is being deleted (an orphaning owner
    // releases its dependents itself); one waiting in the foreground wants them deleted.
    const live = node.owners.filter((ref) => this.visible(ref.uid) !== undefined);
    const target = this.target(node);
    if (live.length === 0 || live.every((ref) => waiting(this.visible(ref.uid) as Node))) {
      return () => this.api.delete(target, { ...options, propagationPolicy: 'Background' });
    }
    if (live.length < node.owners.length) {
      const object = this.read(node);
      if (!object) return undefined;
      const references = ownerReferences(object).filter((ref) => this.visible(typeof ref.uid === 'string' ? ref.uid : '') !== undefined);
      return () => this.api.patch(target, 'merge', { metadata: { ownerReferences: references } }, options);
    }
    return undefined;
  }

  private removeFinalizer(node: Node, object: KubeObject | undefined, finalizer: string): void {
    if (!object) return;
    const remaining = (object.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.api.patch(this.target(node), 'merge', { metadata: { finalizers: remaining.length > 0 ? remaining : null, resourceVersion: object.metadata.resourceVersion } }, { userAgent: USER_AGENT });
  }
}
