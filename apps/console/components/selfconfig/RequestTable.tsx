'use client';

import Link from 'next/link';
import { useState } from 'react';
import {
  changeLine,
  configPatchKeys,
  itemLabel,
  SKIPPED_REMOVAL_REASON,
  type FieldOwner,
  type SelfConfigEvent,
  type SelfConfigOverride,
  type SelfConfigRequest,
  type SkippedRemoval,
  type StoredRequest,
} from '../../lib/selfconfig';
import { namespaceHref } from '../../lib/namespace-links';
import { CopyId } from '../ui/CopyId';
import { RelativeTime } from '../ui/RelativeTime';
import { ScrollTable } from '../ui/ScrollTable';

const PHASE_BADGE: Record<string, string> = {
  Applied: 'badge-ready',
  Failed: 'badge-failed',
  Denied: 'badge-failed',
  Rejected: 'badge-failed',
  Expired: 'badge-failed',
  RolledBack: 'badge-failed',
  AwaitingApproval: 'badge-provisioning',
  Verifying: 'badge-provisioning',
  Pending: 'badge-provisioning',
  Submitted: 'badge-provisioning',
};

export function RequestTable({ namespaceId, requests }: { namespaceId: string; requests: SelfConfigRequest[] }) {
  return (
    <ScrollTable label="SelfConfig requests">
      <table className="table">
        <caption className="visually-hidden">SelfConfig requests</caption>
        <thead>
          <tr>
            <th scope="col">Request</th>
            <th scope="col">Agent</th>
            <th scope="col">Phase</th>
            <th scope="col">Asked for</th>
            <th scope="col">Message, skipped removals, overrides</th>
            <th scope="col">Events</th>
          </tr>
        </thead>
        <tbody>
          {requests.map((request) => (
            <RequestRow key={request.id} namespaceId={namespaceId} request={request} />
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

function RequestRow({ namespaceId, request }: { namespaceId: string; request: SelfConfigRequest }) {
  const [open, setOpen] = useState(false);
  const panelId = `events-${request.id}`;
  const skippedEvents = request.events.filter((e) => e.reason === SKIPPED_REMOVAL_REASON).length;
  return (
    <>
      <tr data-request={request.name}>
        <th scope="row">
          <code>{request.name}</code>
          <span className="status-message">
            asked <RelativeTime iso={request.createdAt} />
            {request.requestedBy ? ` by ${request.requestedBy.name}` : ''}
          </span>
          {request.deletedAt ? (
            <span className="status-message">
              object deleted <RelativeTime iso={request.deletedAt} />; history kept
            </span>
          ) : null}
        </th>
        <td>
          {request.agent ? (
            <Link href={namespaceHref('agents', namespaceId, { id: request.agent.id })}>{request.agent.name}</Link>
          ) : request.agentId ? (
            <CopyId value={request.agentId} label="agent id" />
          ) : (
            <code>{request.instanceRef}</code>
          )}
        </td>
        <td>
          <span className={`badge ${PHASE_BADGE[request.phase] ?? 'badge-deleting'}`} data-testid="phase">
            {request.phase}
          </span>
          {request.reason && request.phase !== 'Applied' ? (
            <span className="status-message" data-testid="reason">
              <code>{request.reason}</code>
            </span>
          ) : null}
          {request.completedAt ? (
            <span className="status-message">
              <RelativeTime iso={request.completedAt} />
            </span>
          ) : null}
        </td>
        <td>
          <AskedFor request={request.request} />
        </td>
        <td>
          {request.message ? <p className="request-message">{request.message}</p> : <span className="hint">no message yet</span>}
          {request.changes.length > 0 ? <ChangeList changes={request.changes} title={request.phase === 'AwaitingApproval' ? 'Would change' : 'Changed'} /> : null}
          {request.skippedRemovals.length > 0 ? <SkippedRemovals removals={request.skippedRemovals} /> : null}
          {request.overriddenBy.length > 0 ? (
            <OverriddenBy
              overrides={request.overriddenBy}
              agentHref={request.agent ? namespaceHref('agents', namespaceId, { id: request.agent.id }) : null}
            />
          ) : null}
        </td>
        <td className="actions">
          <button
            type="button"
            className="button secondary"
            aria-expanded={open}
            aria-controls={open ? panelId : undefined}
            onClick={() => setOpen((o) => !o)}
          >
            Events ({request.events.length})<span className="visually-hidden"> of {request.name}</span>
          </button>
          {skippedEvents > 0 ? (
            <span className="status-message">
              {skippedEvents} skipped removal{skippedEvents === 1 ? '' : 's'}
            </span>
          ) : null}
        </td>
      </tr>
      {open ? (
        <tr className="panel-row">
          <td colSpan={6} id={panelId}>
            <EventsTable name={request.name} events={request.events} />
          </td>
        </tr>
      ) : null}
    </>
  );
}

/** What the history kept of the request: names only, never values (SC9). */
export function AskedFor({ request }: { request: StoredRequest }) {
  const lines: [string, string[]][] = [
    ['add skills', request.addSkills ?? []],
    ['remove skills', request.removeSkills ?? []],
    ['add env', request.addEnvVars ?? []],
    ['remove env', request.removeEnvVars ?? []],
    ['add files', request.addWorkspaceFiles ?? []],
    ['remove files', request.removeWorkspaceFiles ?? []],
  ];
  // Config keys one by one, as the ownership matrix lists them: a null in the merge patch removes.
  const patch = configPatchKeys(request.configPatch);
  lines.push(['set config', patch.filter((k) => !k.removes).map((k) => `config.${k.name}`)]);
  lines.push(['remove config', patch.filter((k) => k.removes).map((k) => `config.${k.name}`)]);
  const shown = lines.filter(([, names]) => names.length > 0);
  if (shown.length === 0) return <span className="hint">nothing</span>;
  return (
    <ul className="plain-list compact-list">
      {shown.map(([what, names]) => (
        <li key={what}>
          {what}: {names.map((n, i) => (
            <span key={n}>
              {i > 0 ? ', ' : ''}
              <code>{n}</code>
            </span>
          ))}
        </li>
      ))}
    </ul>
  );
}

/** SG2: the field-level change, as the server's dry run answered it; names only, never a value. */
export function ChangeList({ changes, title }: { changes: { op: string; kind: string; name: string }[]; title: string }) {
  return (
    <div className="request-changes">
      <p className="skipped-title">
        <strong>{title}</strong>
      </p>
      <ul className="plain-list compact-list" data-testid="changes">
        {changes.map((c) => (
          <li key={`${c.op}:${c.kind}:${c.name}`}>
            <code>{changeLine(c)}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

function ownersText(owners: FieldOwner[]): string {
  return owners.map((o) => `${o.manager} (${o.operation})`).join(', ');
}

const WHY: Record<string, string> = {
  'not-owned': 'not removed: owned by',
  shared: 'released, still owned by',
  absent: 'not present',
};

/** SC7: each removal not made, with the managers that own the item and how. */
export function SkippedRemovals({ removals }: { removals: SkippedRemoval[] }) {
  return (
    <div className="skipped-removals">
      <p className="skipped-title">
        <strong>Skipped removal{removals.length === 1 ? '' : 's'}</strong>
      </p>
      <ul className="plain-list compact-list">
        {removals.map((r) => (
          <li key={`${r.kind}:${r.name}`} data-skipped={itemLabel(r)}>
            <code>{itemLabel(r)}</code> {WHY[r.why] ?? r.why}
            {r.managers.length > 0 ? <> {ownersText(r.managers)}</> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** RC3: the deploys that took items this request had set, each with the items it took. */
function OverriddenBy({ overrides, agentHref }: { overrides: SelfConfigOverride[]; agentHref: string | null }) {
  return (
    <div className="overridden-by">
      {overrides.map((o) => (
        <div key={o.revisionId} data-testid="overridden-by" data-revision={o.number}>
          <p className="skipped-title">
            <strong>
              Overridden by {agentHref ? <Link href={`${agentHref}#agent-revisions-title`}>revision {o.number}</Link> : `revision ${o.number}`}
            </strong>{' '}
            <RelativeTime iso={o.at} />
          </p>
          <ul className="plain-list compact-list">
            {o.items.map((item) => (
              <li key={item}>{item}</li>
            ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

function EventsTable({ name, events }: { name: string; events: SelfConfigEvent[] }) {
  if (events.length === 0) return <p className="empty">No events recorded for {name} yet.</p>;
  const caption = `Events of ${name}`;
  return (
    <table className="table compact events">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Type</th>
          <th scope="col">Reason</th>
          <th scope="col">On</th>
          <th scope="col">Message</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event, i) => {
          const skipped = event.reason === SKIPPED_REMOVAL_REASON;
          return (
            <tr key={`${event.at}-${event.reason}-${i}`} className={skipped ? 'event-skipped' : undefined} data-reason={event.reason}>
              <td>
                <RelativeTime iso={event.at} />
              </td>
              <td>{event.type}</td>
              <th scope="row">
                {skipped ? <span className="badge badge-provisioning">Skipped removal</span> : null} <code>{event.reason}</code>
              </th>
              <td>
                <code>{event.on}</code>
              </td>
              <td>{event.message}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
