'use client';

import { useSearchParams } from 'next/navigation';
import { lazy, Suspense } from 'react';
import { TableSkeleton } from '../ui/Skeleton';

// The agents page's first load is the frame (header, navigation) and this switch; the list with its
// create form, and one agent's page with its deploy, revisions, grants and ownership, are chunks of
// their own loaded on demand, so the route stays inside its first-load budget
// (scripts/size-budgets.json). React.lazy rather than next/dynamic: React already ships it.
const AgentList = lazy(() => import('./AgentList'));
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
