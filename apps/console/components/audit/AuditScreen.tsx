'use client';

import { useQuery } from '@tanstack/react-query';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import Link from 'next/link';
import { Fragment, useId, useState, type FormEvent } from 'react';
import { RESOURCE_KINDS } from '../../lib/access';
import {
  AUDIT_FILTER_KEYS,
  AUDIT_OUTCOMES,
  AUDIT_PAGE_SIZE,
  auditEventsQueryOptions,
  auditExportHref,
  auditFilterFrom,
  detailEntries,
  objectHref,
  SYSTEM_ACTORS,
  type AuditEvent,
  type AuditFilter,
} from '../../lib/audit';
import { useCan } from '../../lib/can';
import { bootstrapPrincipalQueryOptions, usersQueryOptions } from '../../lib/users';
import { viewerQueryOptions } from '../../lib/viewer';
import { SubjectPicker, type PrincipalOption } from '../access/SubjectPicker';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { CopyId } from '../ui/CopyId';
import { RelativeTime } from '../ui/RelativeTime';
import { ScrollTable } from '../ui/ScrollTable';
import { TableSkeleton } from '../ui/Skeleton';

/** datetime-local shows and takes UTC here, like every time on this page's hover. */
const toInput = (iso: string | undefined) => (iso ? new Date(iso).toISOString().slice(0, 16) : '');
const fromInput = (value: string) => (value ? new Date(`${value}:00Z`).toISOString() : '');

// /audit?actorId=…&action=…&outcome=…: the filter lives in the address, so a filtered view is a link.
export function AuditScreen() {
  const params = useSearchParams();
  const filter = auditFilterFrom(params);
  const key = JSON.stringify(filter);
  return <AuditLog key={key} filter={filter} />;
}

function AuditLog({ filter }: { filter: AuditFilter }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const query = useQuery(auditEventsQueryOptions(filter, after));
  const mayReadAll = useCan('read', 'auditEvent');
  const { data, error, isPending } = query;
  const pageIndex = cursors.length - 1;

  return (
    <>
      <h1>Audit log</h1>
      <p className="lede">
        Who did what to which resource, with what outcome, newest first. Every change and every refusal is recorded in
        the same transaction as the change.
      </p>
      <AuditFilterForm filter={filter} />
      <section aria-labelledby="audit-events-title">
        <div className="section-head">
          <h2 id="audit-events-title">Events</h2>
          <a className="button secondary" href={auditExportHref(filter)} download data-testid="audit-export">
            Export NDJSON
          </a>
        </div>
        {error ? <QueryErrorAlert error={error} what="the audit log" retry={() => query.refetch()} /> : null}
        {isPending ? <TableSkeleton label="Loading audit events…" rows={5} /> : null}
        {data ? (
          data.items.length === 0 ? (
            <p className="empty">
              {Object.keys(filter).length > 0
                ? 'No events match this filter.'
                : mayReadAll === false
                  ? 'No events you may read. Installation administrators read the whole log; namespace administrators their namespaces’.'
                  : 'No events yet.'}
            </p>
          ) : (
            <AuditTable events={data.items} />
          )
        ) : null}
        {data && data.totalCount > 0 ? (
          <nav className="pager" aria-label="Pages of events">
            <p className="hint" data-testid="pager-range">
              {pageIndex * AUDIT_PAGE_SIZE + 1}–{pageIndex * AUDIT_PAGE_SIZE + data.items.length} of {data.totalCount} events
            </p>
            <div className="button-row">
              <button
                type="button"
                className="button secondary"
                disabled={pageIndex === 0}
                onClick={() => setCursors((list) => list.slice(0, -1))}
              >
                Newer
              </button>
              <button
                type="button"
                className="button secondary"
                disabled={!data.hasNextPage}
                onClick={() => data.endCursor && setCursors((list) => [...list, data.endCursor])}
              >
                Older
              </button>
            </div>
          </nav>
        ) : null}
      </section>
    </>
  );
}

function AuditFilterForm({ filter }: { filter: AuditFilter }) {
  const id = useId();
  const router = useRouter();
  const pathname = usePathname();
  const users = useQuery(usersQueryOptions());
  const bootstrap = useQuery(bootstrapPrincipalQueryOptions());
  const viewer = useQuery(viewerQueryOptions());
  const principals: PrincipalOption[] = (users.data?.items ?? []).map((u) => ({ id: u.id, label: `user ${u.name}` }));
  for (const p of [bootstrap.data, viewer.data]) {
    if (p && !principals.some((x) => x.id === p.id)) principals.push({ id: p.id, label: `${p.kind === 'SERVICE' ? 'service principal' : 'user'} ${p.name}` });
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const fields = new FormData(event.currentTarget);
    const params = new URLSearchParams();
    for (const name of AUDIT_FILTER_KEYS) {
      let value = String(fields.get(name) ?? '').trim();
      if (name === 'from' || name === 'to') value = fromInput(value);
      if (value) params.set(name, value);
    }
    const query = params.toString();
    router.replace(query ? `${pathname}?${query}` : pathname);
  }

  return (
    <form method="post" className="card form filters" onSubmit={onSubmit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Filter</h2>
      <div className="grid-3">
        <SubjectPicker label="Actor" name="actorId" principals={principals} initialValue={filter.actorId ?? ''} hint="A principal id, or pick one." />
        <div className="field">
          <label htmlFor={`${id}-system`}>System actor</label>
          <select id={`${id}-system`} name="systemActor" defaultValue={filter.systemActor ?? ''} aria-describedby={`${id}-system-hint`}>
            <option value="">Any</option>
            {Object.entries(SYSTEM_ACTORS).map(([value, actor]) => (
              <option key={value} value={value}>
                {actor.label}
              </option>
            ))}
          </select>
          <p className="hint" id={`${id}-system-hint`}>
            What the control plane did by itself.
          </p>
        </div>
        <div className="field">
          <label htmlFor={`${id}-action`}>Action</label>
          <input id={`${id}-action`} name="action" type="text" defaultValue={filter.action ?? ''} placeholder="accessBinding.create" autoComplete="off" spellCheck={false} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-kind`}>Resource kind</label>
          <select id={`${id}-kind`} name="resourceKind" defaultValue={filter.resourceKind ?? ''}>
            <option value="">Any</option>
            {RESOURCE_KINDS.map((kind) => (
              <option key={kind} value={kind}>
                {kind}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-resource`}>Resource ID</label>
          <input id={`${id}-resource`} name="resourceId" type="text" defaultValue={filter.resourceId ?? ''} autoComplete="off" spellCheck={false} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-outcome`}>Outcome</label>
          <select id={`${id}-outcome`} name="outcome" defaultValue={filter.outcome ?? ''}>
            <option value="">Any</option>
            {AUDIT_OUTCOMES.map((outcome) => (
              <option key={outcome} value={outcome}>
                {outcome.toLowerCase()}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-ns`}>Namespace ID</label>
          <input id={`${id}-ns`} name="namespaceId" type="text" defaultValue={filter.namespaceId ?? ''} autoComplete="off" spellCheck={false} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-from`}>From (UTC)</label>
          <input id={`${id}-from`} name="from" type="datetime-local" defaultValue={toInput(filter.from)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-to`}>Before (UTC)</label>
          <input id={`${id}-to`} name="to" type="datetime-local" defaultValue={toInput(filter.to)} />
        </div>
      </div>
      <div className="button-row">
        <button type="submit" className="button primary">
          Apply filter
        </button>
        <button type="button" className="button secondary" onClick={() => router.replace(pathname)}>
          Clear
        </button>
      </div>
    </form>
  );
}

function AuditTable({ events }: { events: AuditEvent[] }) {
  return (
    <ScrollTable label="Audit events">
      <table className="table">
        <caption className="visually-hidden">Audit events</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Actor</th>
            <th scope="col">Action</th>
            <th scope="col">Resource</th>
            <th scope="col">Outcome</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={event.id} data-action={event.action}>
              <td>
                <RelativeTime iso={event.at} />
              </td>
              <th scope="row">
                <AuditActor event={event} />
              </th>
              <td>
                <code className="action">{actionWithBreaks(event.action)}</code>
              </td>
              <td>
                <AuditResource event={event} />
              </td>
              <td>
                <span className={`badge badge-${event.outcome.toLowerCase()}`}>{event.outcome}</span>
                {event.reason ? <span className="status-message">{event.reason}</span> : null}
              </td>
              <td>
                <AuditDetails event={event} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

/** A principal by name, a part of the control plane by what it is, or an anonymous caller. */
function AuditActor({ event }: { event: AuditEvent }) {
  if (event.actor) return <>{event.actor.name}</>;
  if (event.systemActor) {
    const actor = SYSTEM_ACTORS[event.systemActor];
    return (
      <span title={actor.description}>
        {actor.label} <span className="badge badge-system">system</span>
      </span>
    );
  }
  return (
    <>
      <span className="hint">anonymous</span>
      {event.count > 1 ? <span className="hint"> ×{event.count}</span> : null}
    </>
  );
}

/** secret.rollout.batchReady may wrap after a dot, never inside a word. */
function actionWithBreaks(action: string) {
  return action.split('.').map((part, i) => (
    <Fragment key={i}>
      {i > 0 ? (
        <>
          .<wbr />
        </>
      ) : null}
      {part}
    </Fragment>
  ));
}

/** The resource's kind, a link to its page where it has one, and its id to copy below it. */
function AuditResource({ event }: { event: AuditEvent }) {
  const href = event.resourceId ? objectHref(event.resourceId, event.namespaceId) : null;
  return (
    <>
      {href ? (
        <Link href={href} className="object-link">
          <span className="visually-hidden">open the </span>
          {event.resourceKind}
        </Link>
      ) : (
        event.resourceKind
      )}
      {event.resourceId ? (
        <div className="object-id">
          <CopyId value={event.resourceId} label={`id of the ${event.resourceKind}`} />
        </div>
      ) : null}
    </>
  );
}

function AuditDetails({ event }: { event: AuditEvent }) {
  const entries = detailEntries(event.details, event.namespaceId);
  if (entries.length === 0) return <span className="hint">—</span>;
  return (
    <dl className="details">
      {entries.map((entry) => (
        <div key={entry.key}>
          <dt>{entry.key}</dt>
          <dd>
            {entry.values.map((value, i) => (
              <Fragment key={i}>
                {i > 0 ? ', ' : null}
                {/* A target of at least 24 px (axe's target-size), whatever the column's width makes of the line. */}
                {value.href ? (
                  <Link href={value.href} className="object-link">
                    {value.text}
                  </Link>
                ) : (
                  value.text
                )}
              </Fragment>
            ))}
          </dd>
        </div>
      ))}
    </dl>
  );
}
