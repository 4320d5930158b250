import type { Metadata } from 'next';
import { Suspense } from 'react';
import { FirstRequests } from '../../components/layout/FirstRequests';
import { ReferencesScreen } from '../../components/references/ReferencesScreen';
import { PageSkeleton } from '../../components/ui/PageSkeleton';

export const metadata: Metadata = { title: 'References' };

export default function ReferencesPage() {
  return (
    <>
      <FirstRequests page="references" />
      <Suspense fallback={<PageSkeleton title="References" />}>
        <ReferencesScreen />
      </Suspense>
    </>
  );
}
