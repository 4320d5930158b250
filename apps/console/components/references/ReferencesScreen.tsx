'use client';

import { useSearchParams } from 'next/navigation';
import { MissingNamespace } from '../namespaces/NamespaceHeader';
import { NamespaceGraphScreen } from './NamespaceGraph';

// /references?namespace=ns_…[&focus=<node id>]: the graph lives in its own chunk with its layout library.
export function ReferencesScreen() {
  const params = useSearchParams();
  const namespaceId = params.get('namespace');
  if (!namespaceId) return <MissingNamespace title="References" />;
  return <NamespaceGraphScreen namespaceId={namespaceId} focusId={params.get('focus')} />;
}
