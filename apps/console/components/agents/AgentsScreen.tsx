'use client';

import { useSearchParams } from 'next/navigation';
import { lazy, Suspense } from 'react';
import { TableSkeleton } from '../ui/Skeleton';
import AgentList from './AgentList';

// The list is the page's first screen, so it is part of the page's first load: loaded on demand, it
// came ~300 ms after its data (a chunk asked for only once the page had run, then React's reveal
// of a Suspense boundary that had shown its fallback, throttled to 300 ms). One agent's page, with
// its deploy, revisions, grants and ownership, is a chunk of its own, loaded when opened.
// React.lazy rather than next/dynamic: React already ships it.
const AgentDetail = lazy(() => import('./AgentDetail'));

// /agents?namespace=ns_… lists and creates; adding &id=agt_… opens one agent and its grants.
export function AgentsScreen() {
  const params = useSearchParams();
  const namespaceId = params.get('namespace');
  const agentId = params.get('id');
  return (
    <Suspense fallback={<TableSkeleton label={agentId ? 'Loading agent…' : 'Loading agents…'} rows={4} />}>
      {namespaceId && agentId ? (
        <AgentDetail namespaceId={namespaceId} agentId={agentId} />
      ) : (
        <AgentList namespaceId={namespaceId} />
      )}
    </Suspense>
  );
}
