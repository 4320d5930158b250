import { markNamespaceLost } from '../services/namespace-lost.ts';
import type { InstanceReconcileDeps } from './reconcile.ts';

// RC5: a Kubernetes namespace of a ready Namespace disappears (deleted, or being deleted, outside
// the product). The caches say so first; a GET confirms before anything is recorded, since a cache
// can lag a namespace that was just provisioned.

type Deps = Pick<InstanceReconcileDeps, 'cluster' | 'db' | 'logger' | 'clock'>;

export async function observeNamespace(deps: Deps, k8sName: string): Promise<void> {
  const namespace = await deps.db.namespace.findUnique({ where: { k8sName }, select: { id: true, status: true } });
  if (!namespace || namespace.status !== 'READY') return;
  const phase = await deps.cluster.readNamespace(k8sName);
  if (phase !== null && phase !== 'Terminating') return;
  await markNamespaceLost(deps.db, namespace.id, phase === null ? 'deleted' : 'being deleted', deps.clock());
  deps.logger.warn('Kubernetes namespace lost', { namespaceId: namespace.id, k8sName, phase });
}

/** The resync's check: every ready Namespace whose Kubernetes namespace the cache does not hold, or holds terminating. */
export async function checkNamespaces(deps: Deps): Promise<void> {
  if (!deps.cluster.namespacesSynced()) return;
  const present = deps.cluster.namespaces();
  const ready = await deps.db.namespace.findMany({ where: { status: 'READY' }, select: { k8sName: true } });
  for (const { k8sName } of ready) {
    const phase = present.get(k8sName);
    if (phase === undefined || phase === 'Terminating') await observeNamespace(deps, k8sName);
  }
}
