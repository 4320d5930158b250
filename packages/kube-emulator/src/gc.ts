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

export class GarbageCollector {
  private pending = false;
  private readonly unsubscribe: () => void;
  private stopped = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    private readonly api: KubeApi,
  ) {
    this.unsubscribe = store.subscribe((event) => this.observe(event));
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  private observe(event: StoreEvent): void {
    const relevant =
      event.type === 'DELETED' ||
      ownerReferences(event.object).length > 0 ||
      (event.object.metadata.finalizers ?? []).some((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);
    if (!relevant || this.pending) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      if (!this.stopped) this.sweep();
    });
  }

  /** Every stored object with the type it is served as. */
  private everything(): { type: ResourceType; object: KubeObject }[] {
    const out: { type: ResourceType; object: KubeObject }[] = [];
    for (const [key, type] of this.registry.byStorageKey()) for (const object of this.store.list(key)) out.push({ type, object });
    return out;
  }

  private target(type: ResourceType, object: KubeObject): Target {
    return { type, namespace: type.namespaced ? object.metadata.namespace : undefined, name: object.metadata.name };
  }

  /** One pass over the store; the writes it makes trigger the next pass until nothing is left to do. */
  private sweep(): void {
    const all = this.everything();
    const byUid = new Map(all.map((entry) => [entry.object.metadata.uid ?? '', entry]));
    const dependentsOf = (uid: string) => all.filter((entry) => ownerReferences(entry.object).some((ref) => ref.uid === uid));
    const options = { userAgent: USER_AGENT };
    for (const { type, object } of all) {
      const uid = object.metadata.uid ?? '';
      const finalizers = object.metadata.finalizers ?? [];
      const deleting = object.metadata.deletionTimestamp !== undefined;
      try {
        if (deleting && finalizers.includes(ORPHAN_FINALIZER)) {
          for (const dependent of dependentsOf(uid)) {
            const remaining = ownerReferences(dependent.object).filter((ref) => ref.uid !== uid);
            this.api.patch(this.target(dependent.type, dependent.object), 'merge', { metadata: { ownerReferences: remaining.length > 0 ? remaining : null } }, options);
          }
          this.removeFinalizer(type, object, ORPHAN_FINALIZER);
          continue;
        }
        if (deleting && finalizers.includes(FOREGROUND_FINALIZER)) {
          const dependents = dependentsOf(uid);
          for (const dependent of dependents) {
            if (dependent.object.metadata.deletionTimestamp) continue;
            const grandchildren = dependentsOf(dependent.object.metadata.uid ?? '').length > 0;
            this.api.delete(this.target(dependent.type, dependent.object), { ...options, propagationPolicy: grandchildren ? 'Foreground' : 'Background' });
          }
          const blocking = dependents.some((d) => ownerReferences(d.object).some((ref) => ref.uid === uid && ref.blockOwnerDeletion === true));
          if (!blocking) this.removeFinalizer(type, object, FOREGROUND_FINALIZER);
          continue;
        }
        const references = ownerReferences(object);
        if (references.length === 0 || deleting) continue;
        // An owner still stored counts, even while it is being deleted (an orphaning owner
        // releases its dependents itself); one waiting in the foreground wants them deleted.
        const live = references.filter((ref) => byUid.has(ref.uid ?? ''));
        const waiting = (ref: OwnerReference) => {
          const owner = byUid.get(ref.uid ?? '')?.object;
          return owner?.metadata.deletionTimestamp !== undefined && (owner.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER);
        };
        if (live.length === 0 || live.every(waiting)) {
          this.api.delete(this.target(type, object), { ...options, propagationPolicy: 'Background' });
        } else if (live.length < references.length) {
          this.api.patch(this.target(type, object), 'merge', { metadata: { ownerReferences: live } }, options);
        }
      } catch {
        // The object changed or went meanwhile; the write that did it brings another pass.
      }
    }
  }

  private removeFinalizer(type: ResourceType, object: KubeObject, finalizer: string): void {
    const remaining = (object.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.api.patch(this.target(type, object), 'merge', { metadata: { finalizers: remaining.length > 0 ? remaining : null, resourceVersion: object.metadata.resourceVersion } }, { userAgent: USER_AGENT });
  }
}
