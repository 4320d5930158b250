'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, useState, type FormEvent } from 'react';
import { usePaging } from '../../lib/paging';
import {
  approveSelfConfig,
  rejectSelfConfig,
  selfConfigApprovalsQueryOptions,
  selfConfigKeys,
  SELF_CONFIG_PAGE_SIZE,
  type WaitingRequest,
} from '../../lib/selfconfig';
import { useResultMutation } from '../../lib/use-result-mutation';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { FormOutcome } from '../feedback/FormOutcome';
import { useToast } from '../feedback/Toaster';
import { Breadcrumbs } from '../layout/Breadcrumbs';
import { namespaceHref } from '../../lib/namespace-links';
import { Pager } from '../ui/ListControls';
import { RelativeTime } from '../ui/RelativeTime';
import { TableSkeleton } from '../ui/Skeleton';
import { AskedFor, ChangeList, SkippedRemovals } from './RequestTable';

// SG3's inbox (/selfconfig/approvals): every request waiting in AwaitingApproval that the signed-in
// principal may decide (administer on its agent; never an agent's own), across namespaces, each with
// the change it would make (the dry run's preview), approve, and reject with a reason. The API
// decides; an approval is planned again against the instance as it is then.
export function ApprovalInbox() {
  const paging = usePaging(SELF_CONFIG_PAGE_SIZE);
  const query = useQuery(selfConfigApprovalsQueryOptions(paging.args));
  const { data, error, isPending } = query;
  return (
    <>
      <Breadcrumbs crumbs={[{ label: 'Namespaces', href: '/namespaces' }, { label: 'SelfConfig approvals' }]} />
      <h1 tabIndex={-1}>SelfConfig approvals</h1>
      <p className="lede">
        Requests agents filed that touch a category their policy holds for an administrator. Each shows the change it would make, as the
        server’s dry run answered it. An approved request is checked again against the instance as it is now, applied, and waits for its
        gateway to be Ready; one whose gateway does not become Ready is rolled back.
      </p>
      {error ? <QueryErrorAlert error={error} what="the requests waiting for approval" retry={() => query.refetch()} /> : null}
      {isPending ? <TableSkeleton label="Loading the requests waiting for approval…" /> : null}
      {data ? (
        data.items.length === 0 ? (
          <p className="empty">No request waits for your approval.</p>
        ) : (
          <ul className="plain-list approval-list" aria-label="Requests waiting for approval">
            {data.items.map((request) => (
              <WaitingCard key={request.id} request={request} />
            ))}
          </ul>
        )
      ) : null}
      <Pager paging={paging} page={data} noun="requests waiting for approval" />
    </>
  );
}

function WaitingCard({ request }: { request: WaitingRequest }) {
  const id = useId();
  const toast = useToast();
  const [rejecting, setRejecting] = useState(false);
  const invalidate = [selfConfigKeys.all];
  const approve = useResultMutation({
    mutationFn: () => approveSelfConfig(request.id),
    invalidate,
    onSuccess: () => toast(`Approved ${request.name}; the controller checks it against the instance as it is now, then applies it.`),
  });
  const reject = useResultMutation({
    mutationFn: (reason: string) => rejectSelfConfig(request.id, reason),
    invalidate,
    onSuccess: () => toast(`Rejected ${request.name}; nothing was applied.`),
  });
  const busy = approve.pending || reject.pending;
  const agentHref = request.agent && request.namespaceId ? namespaceHref('agents', request.namespaceId, { id: request.agent.id }) : null;

  function onReject(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    reject.submit(String(new FormData(event.currentTarget).get('reason') ?? '').trim());
  }

  return (
    <li className="card approval" data-request={request.name} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        <code>{request.name}</code> from {agentHref ? <Link href={agentHref}>{request.agent?.name}</Link> : (request.agent?.name ?? 'an agent')}
      </h2>
      <p className="status-message">
        waiting {request.awaitingApprovalAt ? <RelativeTime iso={request.awaitingApprovalAt} /> : null}
        {request.requestedBy ? ` · asked by ${request.requestedBy.name}` : ''}
        {request.namespaceId ? (
          <>
            {' · '}
            <Link href={namespaceHref('selfconfig', request.namespaceId, request.agent ? { agent: request.agent.id } : undefined)}>all of this agent’s requests</Link>
          </>
        ) : null}
      </p>
      <div className="grid-2">
        <div>
          <p className="skipped-title">
            <strong>Asked for</strong>
          </p>
          <AskedFor request={request.request} />
        </div>
        <div>
          {request.changes.length > 0 ? <ChangeList changes={request.changes} title="Would change" /> : <p className="hint">The dry run found nothing to change.</p>}
          {request.skippedRemovals.length > 0 ? <SkippedRemovals removals={request.skippedRemovals} /> : null}
        </div>
      </div>
      {request.message ? <p className="request-message">{request.message}</p> : null}
      <div className="button-row">
        <button type="button" className="button primary" disabled={busy} onClick={() => approve.submit(undefined)}>
          Approve<span className="visually-hidden"> {request.name}</span>
        </button>
        <button type="button" className="button secondary" disabled={busy} aria-expanded={rejecting} onClick={() => setRejecting((r) => !r)}>
          Reject…<span className="visually-hidden"> {request.name}</span>
        </button>
      </div>
      {rejecting ? (
        <form method="post" className="form" onSubmit={onReject} aria-label={`Reject ${request.name}`}>
          <div className="field">
            <label htmlFor={`${id}-reason`}>Reason (kept on the request and in the audit log)</label>
            <input id={`${id}-reason`} name="reason" maxLength={1000} autoComplete="off" />
          </div>
          <button type="submit" className="button danger" disabled={busy}>
            Reject {request.name}
          </button>
        </form>
      ) : null}
      <FormOutcome outcome={approve.outcome} doing={`approve ${request.name}`} />
      <FormOutcome outcome={reject.outcome} doing={`reject ${request.name}`} />
    </li>
  );
}
