import type { Metadata } from 'next';
import { Suspense } from 'react';
import { FirstRequests } from '../../components/layout/FirstRequests';
import { NamespacesScreen } from '../../components/namespaces/NamespacesScreen';
import { PageSkeleton } from '../../components/ui/PageSkeleton';

export const metadata: Metadata = { title: 'Namespaces' };

// The list's order is in the address (useSearchParams), which needs a Suspense boundary in a static
// export: the HTML is rendered at build time, when there are no search params.
export default function NamespacesPage() {
  return (
    <>
      <FirstRequests page="namespaces" />
      <Suspense fallback={<PageSkeleton title="Namespaces" />}>
        <NamespacesScreen />
      </Suspense>
    </>
  );
}
