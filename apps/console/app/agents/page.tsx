import type { Metadata } from 'next';
import { Suspense } from 'react';
import { AgentsScreen } from '../../components/agents/AgentsScreen';

export const metadata: Metadata = { title: 'Agents' };

// useSearchParams needs a Suspense boundary in a static export (see app/secrets/page.tsx).
export default function AgentsPage() {
  return (
    <Suspense fallback={<p role="status">Loading…</p>}>
      <AgentsScreen />
    </Suspense>
  );
}
