import type { Metadata } from 'next';
import { Suspense } from 'react';
import { FirstRequests } from '../../components/layout/FirstRequests';
import { PageSkeleton } from '../../components/ui/PageSkeleton';
import { ConfigurationsScreen } from '../../components/configurations/ConfigurationsScreen';

export const metadata: Metadata = { title: 'Configurations' };

// useSearchParams needs a Suspense boundary in a static export (see app/secrets/page.tsx).
export default function ConfigurationsPage() {
  return (
    <>
      <FirstRequests page="configurations" />
      <Suspense fallback={<PageSkeleton title="Configurations" />}>
        <ConfigurationsScreen />
      </Suspense>
    </>
  );
}
