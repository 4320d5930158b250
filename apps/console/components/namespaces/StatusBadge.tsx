import type { NamespaceStatus } from '../../lib/namespaces';

export function StatusBadge({ status }: { status: NamespaceStatus }) {
  return <span className={`badge badge-${status.toLowerCase()}`}>{status}</span>;
}
