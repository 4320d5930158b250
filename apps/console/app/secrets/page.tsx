import type { Metadata } from 'next';
import { Suspense } from 'react';
import { FirstRequests } from '../../components/layout/FirstRequests';
import { PageSkeleton } from '../../components/ui/PageSkeleton';
import { SecretsScreen } from '../../components/secrets/SecretsScreen';

export const metadata: Metadata = { title: 'Secrets' };

// useSearchParams needs a Suspense boundary in a static export: the HTML is rendered at build time,
// when there are no search params; the screen renders in the browser.
export default function SecretsPage() {
  return (
    <>
      <FirstRequests page="secrets" />
      <Suspense fallback={<PageSkeleton title="Secrets" />}>
        <SecretsScreen />
      </Suspense>
    </>
  );
}
