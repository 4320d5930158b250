// The audit trail (auditEvents): newest first, filtered in SQL, one cursor page at a time. The same
// filter, as query parameters, is the NDJSON export's (GET /audit/events.ndjson).
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { gql, graphql, type ResultOf } from './graphql';
import { namespaceHref } from './namespace-links';
import { toPage } from './paging';

export const AUDIT_OUTCOMES = ['SUCCESS', 'DENIED', 'FAILURE'] as const satisfies readonly AuditEvent['outcome'][];
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** The parts of the control plane that act on their own (AuditEvent.systemActor), as people call them. */
export const SYSTEM_ACTORS = {
  WORKER: { label: 'worker', description: 'Runs queued work: deploys and their revisions, namespace provisioning, rollout batches.' },
  RECONCILER: { label: 'reconciler', description: 'Repairs drift and records what changed outside the product.' },
  INSTALLER: { label: 'installer', description: 'Bootstraps the installation.' },
} as const satisfies Record<NonNullable<AuditEvent['systemActor']>, { label: string; description: string }>;
export type SystemActor = keyof typeof SYSTEM_ACTORS;

export type AuditFilter = {
  actorId?: string;
  systemActor?: SystemActor;
  action?: string;
  resourceKind?: string;
  resourceId?: string;
  namespaceId?: string;
  outcome?: AuditOutcome;
  from?: string;
  to?: string;
};

export const AUDIT_FILTER_KEYS = ['actorId', 'systemActor', 'action', 'resourceKind', 'resourceId', 'namespaceId', 'outcome', 'from', 'to'] as const;

export const AUDIT_PAGE_SIZE = 25;

export const AuditEventsQuery = gql(`
  query AuditEvents($first: Int, $after: String, $filter: AuditEventFilter) {
    auditEvents(first: $first, after: $after, filter: $filter) {
      edges { node { id at actorId actor { id name kind } systemActor action resourceKind resourceId namespaceId outcome reason details count } }
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
    } else if (key === 'systemActor') {
      if (Object.hasOwn(SYSTEM_ACTORS, value)) filter.systemActor = value as SystemActor;
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

/**
 * Where an object's id leads in the console, from its prefix: namespaces, secrets, configurations
 * and agents to their pages (those in a namespace need it), principals to their audit trail. Null
 * for an id with no page of its own (a revision, a rollout, a binding).
 */
export function objectHref(id: string, namespaceId: string | null | undefined): string | null {
  if (id.startsWith('ns_')) return namespaceHref('secrets', id);
  if (id.startsWith('prn_') || id.startsWith('spn_')) return `/audit?${new URLSearchParams({ actorId: id })}`;
  const section = id.startsWith('sec_') ? 'secrets' : id.startsWith('cfg_') ? 'configurations' : id.startsWith('agt_') ? 'agents' : null;
  return section && namespaceId ? namespaceHref(section, namespaceId, { id }) : null;
}

export type DetailValue = { text: string; href: string | null };
export type DetailEntry = { key: string; values: DetailValue[] };

const ID = /^[a-z]{2,3}_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_ENTRIES = 40;

/**
 * An event's details (metadata: names, versions, ids) as key–value rows for people: nested objects
 * by dotted key, lists of plain values on one row, lists of objects by index, ids as links where
 * they have a page. Bounded: past MAX_ENTRIES rows the rest is counted, not shown.
 */
export function detailEntries(details: unknown, namespaceId: string | null): DetailEntry[] {
  const entries: DetailEntry[] = [];
  let hidden = 0;
  const scalar = (value: unknown): DetailValue => {
    const text = value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value);
    return { text, href: typeof value === 'string' && ID.test(value) ? objectHref(value, namespaceId) : null };
  };
  const isPlain = (value: unknown) => value === null || typeof value !== 'object';
  const push = (entry: DetailEntry) => {
    if (entries.length < MAX_ENTRIES) entries.push(entry);
    else hidden += 1;
  };
  const walk = (value: unknown, key: string) => {
    if (Array.isArray(value) && value.every(isPlain)) push({ key, values: value.length ? value.map(scalar) : [{ text: 'none', href: null }] });
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${key}[${i}]`));
    else if (value !== null && typeof value === 'object') {
      const fields = Object.entries(value);
      if (fields.length === 0) push({ key, values: [{ text: 'none', href: null }] });
      for (const [k, v] of fields) walk(v, key ? `${key}.${k}` : k);
    } else push({ key, values: [scalar(value)] });
  };
  if (details !== null && typeof details === 'object' && !Array.isArray(details)) {
    for (const [k, v] of Object.entries(details)) walk(v, k);
  } else if (details !== null && details !== undefined) walk(details, 'value');
  if (hidden > 0) entries.push({ key: '…', values: [{ text: `${hidden} more rows (in the export)`, href: null }] });
  return entries;
}
