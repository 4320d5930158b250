'use client';

// What the signed-in principal may do here, asked of explainAccess about itself (always allowed
// for yourself). Screens use it for empty states and offers that fit the viewer's role; the API
// still decides every request.
import { useQuery } from '@tanstack/react-query';
import { explainAccessQueryOptions } from './access';
import { viewerQueryOptions } from './viewer';

export function useCan(action: string, resourceKind: string, namespaceId: string | null = null, resourceId: string | null = null): boolean | undefined {
  const viewer = useQuery(viewerQueryOptions());
  const subjectId = viewer.data?.id ?? '';
  const decision = useQuery({
    ...explainAccessQueryOptions({ subjectId, action, resourceKind, namespaceId, resourceId }),
    enabled: subjectId !== '',
    staleTime: 30_000,
  });
  if (decision.data?.__typename === 'AccessDecision') return decision.data.allowed;
  if (decision.data) return false;
  return undefined;
}
