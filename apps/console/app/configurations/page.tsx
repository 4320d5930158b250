import type { Metadata } from 'next';
import { Suspense } from 'react';
import { PageSkeleton } from '../../components/ui/PageSkeleton';
import { ConfigurationsScreen } from '../../components/configurations/ConfigurationsScreen';

export const metadata: Metadata = { title: 'Configurations' };

// useSearchParams needs a Suspense boundary in a static export (see app/secrets/page.tsx).
export default function ConfigurationsPage() {
  return (
    <Suspense fallback={<PageSkeleton title="Configurations" />}>
      <ConfigurationsScreen />
    </Suspense>
  );
}
