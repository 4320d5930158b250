import type { Metadata } from 'next';
import { Suspense } from 'react';
import { FirstRequests } from '../../components/layout/FirstRequests';
import { PageSkeleton } from '../../components/ui/PageSkeleton';
import { AccessScreen } from '../../components/access/AccessScreen';

export const metadata: Metadata = { title: 'Access' };

// useSearchParams needs a Suspense boundary in a static export (see app/secrets/page.tsx).
export default function AccessPage() {
  return (
    <>
      <FirstRequests page="access" />
      <Suspense fallback={<PageSkeleton title="Access" />}>
        <AccessScreen />
      </Suspense>
    </>
  );
}
