import type { NamespaceStatus } from '../../lib/namespaces';

/** LOST (its Kubernetes namespace was deleted outside the product, RC5) has its own look: not FAILED, not on its way. */
export function StatusBadge({ status }: { status: NamespaceStatus }) {
  return (
    <span className={`badge badge-${status.toLowerCase()}`} data-testid="namespace-status">
      {status}
    </span>
  );
}
