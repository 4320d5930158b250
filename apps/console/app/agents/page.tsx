import type { Metadata } from 'next';
import { Suspense } from 'react';
import { FirstRequests } from '../../components/layout/FirstRequests';
import { PageSkeleton } from '../../components/ui/PageSkeleton';
import { AgentsScreen } from '../../components/agents/AgentsScreen';

export const metadata: Metadata = { title: 'Agents' };

// useSearchParams needs a Suspense boundary in a static export (see app/secrets/page.tsx).
export default function AgentsPage() {
  return (
    <>
      <FirstRequests page="agents" />
      <Suspense fallback={<PageSkeleton title="Agents" />}>
        <AgentsScreen />
      </Suspense>
    </>
  );
}
