import type { Metadata } from 'next';
import { Suspense } from 'react';
import { FirstRequests } from '../../components/layout/FirstRequests';
import { PageSkeleton } from '../../components/ui/PageSkeleton';
import { SelfConfigScreen } from '../../components/selfconfig/SelfConfigScreen';

export const metadata: Metadata = { title: 'SelfConfig' };

// useSearchParams needs a Suspense boundary in a static export (see app/secrets/page.tsx).
export default function SelfConfigPage() {
  return (
    <>
      <FirstRequests page="selfconfig" />
      <Suspense fallback={<PageSkeleton title="SelfConfig" />}>
        <SelfConfigScreen />
      </Suspense>
    </>
  );
}
