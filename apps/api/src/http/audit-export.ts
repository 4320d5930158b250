import type { ServerResponse } from 'node:http';
import { textProblem } from '@occ/domain/text';
import { readableBy } from '../services/access.ts';
import { SYSTEM_ACTORS } from '../services/audit.ts';
import { auditEventsPage, type AuditEventFilter, type AuditEventView } from '../services/audit-log.ts';
import type { Actor, Deps } from '../services/deps.ts';
import type { PageRequest } from '../services/pagination.ts';

// GET /audit/events.ndjson?actorId=…&from=…: the audit trail for the same filter as the
// auditEvents query, one JSON object a line, newest first, streamed a page at a time: memory stays
// bounded by one page whatever the size of the trail, and a slow reader slows the reads (the
// stream waits for 'drain').

const PAGE = 500;
const TEXT_PARAMS = ['actorId', 'action', 'resourceKind', 'resourceId', 'namespaceId'] as const;
const OUTCOMES = ['SUCCESS', 'DENIED', 'FAILURE'] as const;

export class ExportQueryError extends Error {
  constructor(readonly parameter: string) {
    super(`${parameter} is not valid here.`);
  }
}

/** The filter from the query string; unknown parameters and unreadable values are refused, naming the parameter. */
export function exportFilter(query: URLSearchParams): AuditEventFilter {
  const filter: AuditEventFilter = {};
  for (const [name, value] of query) {
    if ((TEXT_PARAMS as readonly string[]).includes(name)) {
      if (value.length > 253 || textProblem(value)) throw new ExportQueryError(name);
      filter[name as (typeof TEXT_PARAMS)[number]] = value;
    } else if (name === 'systemActor') {
      // As GraphQL spells it (WORKER, RECONCILER, INSTALLER), so the console's filter is one link.
      const system = SYSTEM_ACTORS.find((a) => a.toUpperCase() === value);
      if (!system) throw new ExportQueryError(name);
      filter.systemActor = system;
    } else if (name === 'outcome') {
      if (!(OUTCOMES as readonly string[]).includes(value)) throw new ExportQueryError(name);
      filter.outcome = value as AuditEventView['outcome'];
    } else if (name === 'from' || name === 'to') {
      const at = new Date(value);
      if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) throw new ExportQueryError(name);
      filter[name] = at;
    } else {
      throw new ExportQueryError(name.slice(0, 40).replace(/[^\w.-]/g, '?'));
    }
  }
  return filter;
}

export async function exportAuditEvents(deps: Deps, actor: Actor, filter: AuditEventFilter, res: ServerResponse): Promise<void> {
  let closed = false;
  res.once('close', () => (closed = true));
  res.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'content-disposition': 'attachment; filename="audit-events.ndjson"',
    'cache-control': 'no-store',
  });
  const readable = await readableBy(deps.db, actor, 'auditEvent');
  let after: PageRequest['after'] = null;
  while (!closed) {
    const page = await auditEventsPage(deps, readable, { size: PAGE, direction: 'forward', after, before: null }, filter);
    for (const { node } of page.edges) {
      // The system actor as GraphQL and the filter spell it (WORKER), not as it is stored.
      const line = JSON.stringify({ ...node, systemActor: node.systemActor?.toUpperCase() ?? null });
      if (!res.write(line + '\n')) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
      if (closed) return;
    }
    if (!page.hasNextPage) break;
    after = page.edges.at(-1)!.key;
  }
  res.end();
}
