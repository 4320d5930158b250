// The audit trail (auditEvents): newest first, filtered in SQL, one cursor page at a time. The same
// filter, as query parameters, is the NDJSON export's (GET /audit/events.ndjson).
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { gql, graphql, type ResultOf } from './graphql';
import { toPage } from './paging';

export const AUDIT_OUTCOMES = ['SUCCESS', 'DENIED', 'FAILURE'] as const satisfies readonly AuditEvent['outcome'][];
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export type AuditFilter = {
  actorId?: string;
  action?: string;
  resourceKind?: string;
  resourceId?: string;
  namespaceId?: string;
  outcome?: AuditOutcome;
  from?: string;
  to?: string;
};

export const AUDIT_FILTER_KEYS = ['actorId', 'action', 'resourceKind', 'resourceId', 'namespaceId', 'outcome', 'from', 'to'] as const;

export const AUDIT_PAGE_SIZE = 25;

export const AuditEventsQuery = gql(`
  query AuditEvents($first: Int, $after: String, $filter: AuditEventFilter) {
    auditEvents(first: $first, after: $after, filter: $filter) {
      edges { node { id at actorId actor { id name kind } action resourceKind resourceId namespaceId outcome reason details count } }
      pageInfo { hasNextPage endCursor }
      totalCount
    }
  }
`);

export type AuditEvent = ResultOf<typeof AuditEventsQuery>['auditEvents']['edges'][number]['node'];

export const auditKeys = {
  all: ['audit'] as const,
  page: (filter: AuditFilter, after: string | null) => [...auditKeys.all, filter, after] as const,
};

export function auditEventsQueryOptions(filter: AuditFilter, after: string | null) {
  return queryOptions({
    queryKey: auditKeys.page(filter, after),
    queryFn: async ({ signal }) => toPage((await graphql(AuditEventsQuery, { first: AUDIT_PAGE_SIZE, after, filter }, signal)).auditEvents),
    placeholderData: keepPreviousData,
  });
}

/** The filter from the page's search parameters (the screen's deep link), empty values left out. */
export function auditFilterFrom(params: URLSearchParams): AuditFilter {
  const filter: AuditFilter = {};
  for (const key of AUDIT_FILTER_KEYS) {
    const value = params.get(key)?.trim();
    if (!value) continue;
    if (key === 'outcome') {
      if ((AUDIT_OUTCOMES as readonly string[]).includes(value)) filter.outcome = value as AuditOutcome;
    } else {
      filter[key] = value;
    }
  }
  return filter;
}

/** GET /audit/events.ndjson with the same filter. */
export function auditExportHref(filter: AuditFilter): string {
  const params = new URLSearchParams();
  for (const key of AUDIT_FILTER_KEYS) {
    const value = filter[key];
    if (value) params.set(key, value);
  }
  const query = params.toString();
  return `/audit/events.ndjson${query ? `?${query}` : ''}`;
}
