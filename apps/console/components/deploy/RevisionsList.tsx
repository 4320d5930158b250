'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useId } from 'react';
import type { Agent } from '../../lib/agents';
import { agentRevisionsQueryOptions, REVISIONS_PAGE_SIZE, takeoverItem, type AgentRevision, type RevisionTakeover } from '../../lib/deploy';
import { usePaging } from '../../lib/paging';
import { useCan } from '../../lib/can';
import { viewerQueryOptions } from '../../lib/viewer';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { namespaceHref } from '../../lib/namespace-links';
import { CopyId } from '../ui/CopyId';
import { Pager } from '../ui/ListControls';
import { RelativeTime } from '../ui/RelativeTime';
import { ScrollTable } from '../ui/ScrollTable';
import { TableSkeleton } from '../ui/Skeleton';
import { RevisionCompare } from './RevisionCompare';
import { RevisionFailure } from './RevisionFailure';
import { RollbackButton } from './RollbackButton';
import { RevisionStateBadge } from './RevisionStateBadge';

/** Every Kubernetes Secret the platform writes holds its value under this one key (S2), and the
 * gateway's secretKeyRef names it (W4). */
const BACKEND_KEY = 'value';

/**
 * D4: each revision as frozen: who created it, when, the configuration generation, each binding's
 * env name → secret and the version it was admitted at, and the native document with references
 * only. Never a value: a revision has none.
 */
export function RevisionsList({ agent }: { agent: Agent }) {
  const paging = usePaging(REVISIONS_PAGE_SIZE);
  const query = useQuery({ ...agentRevisionsQueryOptions(agent.id, paging.args.after), placeholderData: (previous) => previous });
  const viewer = useQuery(viewerQueryOptions());
  // V7: rolling back is a deploy; offered only to those who may deploy the agent (the API decides).
  const mayDeploy = useCan('deploy', 'agent', agent.namespace?.id ?? null, agent.id) === true;
  const { data, error, isPending } = query;
  const activeRevisionId = data?.agent.activeRevisionId ?? null;

  return (
    <section aria-labelledby="agent-revisions-title" className="section" data-testid="revisions">
      <h2 id="agent-revisions-title">Revisions</h2>
      {isPending ? <TableSkeleton label="Loading revisions…" /> : null}
      {error ? <QueryErrorAlert error={error} what="the agent's revisions" retry={() => query.refetch()} /> : null}
      {data && data.page.items.length === 0 ? <p className="empty">Not deployed yet: deploy to create its first revision.</p> : null}
      {data && data.page.items.length > 0 ? (
        <ol className="revisions">
          {data.page.items.map((revision) => (
            <RevisionCard
              key={revision.id}
              revision={revision}
              agent={agent}
              active={revision.id === activeRevisionId}
              activeRevision={activeRevisionId ? { id: activeRevisionId, number: data.page.items.find((r) => r.id === activeRevisionId)?.number ?? null } : null}
              mayRollBack={mayDeploy}
              viewerId={viewer.data?.id ?? null}
            />
          ))}
        </ol>
      ) : null}
      <Pager paging={paging} page={data?.page} noun="revisions" />
    </section>
  );
}

/** V7: a revision that ran and was followed by another (or stopped) can be rolled back to. */
const ROLLBACK_STATES: ReadonlySet<AgentRevision['state']> = new Set(['SUPERSEDED', 'STOPPED']);

function RevisionCard({
  revision,
  agent,
  active,
  activeRevision,
  mayRollBack,
  viewerId,
}: {
  revision: AgentRevision;
  agent: Agent;
  active: boolean;
  activeRevision: { id: string; number: number | null } | null;
  mayRollBack: boolean;
  viewerId: string | null;
}) {
  const id = useId();
  const namespaceId = agent.namespace?.id ?? '';
  const configurationName = agent.configuration?.id === revision.configurationId ? agent.configuration?.name : null;
  const bindings = revision.secrets;
  return (
    <li className={active ? 'revision active' : 'revision'} data-testid="revision" data-number={revision.number}>
      <h3 id={`${id}-title`} className="revision-title">
        Revision {revision.number} <RevisionStateBadge state={revision.state} />
        {active ? (
          <span className="badge badge-active" data-testid="active-marker">
            Active revision
          </span>
        ) : null}
      </h3>
      <dl className="facts">
        <dt>ID</dt>
        <dd>
          <CopyId value={revision.id} label={`id of revision ${revision.number}`} />
        </dd>
        <dt>Created by</dt>
        <dd>
          {viewerId === revision.createdById ? 'you ' : null}
          <CopyId value={revision.createdById} label={`creator of revision ${revision.number}`} />
        </dd>
        <dt>Created</dt>
        <dd>
          <RelativeTime iso={revision.createdAt} />
        </dd>
        <dt>Configuration</dt>
        <dd data-testid="revision-configuration">
          {revision.configurationId ? (
            <>
              {configurationName ? (
                <Link href={namespaceHref('configurations', namespaceId, { id: revision.configurationId })}>{configurationName}</Link>
              ) : (
                <code>{revision.configurationId}</code>
              )}{' '}
              generation <span data-testid="revision-generation">{revision.configurationGeneration}</span>
            </>
          ) : (
            'none'
          )}
        </dd>
        <dt>Secret driver</dt>
        <dd>
          <code>{revision.secretDriverId}</code>
        </dd>
        {revision.instanceGeneration !== null ? (
          <>
            <dt>Instance generation</dt>
            <dd data-testid="revision-instance-generation">{revision.instanceGeneration}</dd>
          </>
        ) : null}
      </dl>
      {revision.takeovers.length > 0 ? (
        <RevisionTakeovers number={revision.number} takeovers={revision.takeovers} requestsHref={namespaceHref('selfconfig', namespaceId, { agent: agent.id })} />
      ) : null}
      {revision.failure ? (
        <div className="alert error">
          <RevisionFailure failure={revision.failure} />
        </div>
      ) : null}
      {bindings.length === 0 ? (
        <p className="hint">No secret references: the gateway gets no secret env.</p>
      ) : (
        <ScrollTable label={`References of revision ${revision.number}`}>
          <table className="table" data-testid="revision-references">
            <caption className="table-caption">
              References as frozen: the gateway reads each from its secret by <code>secretKeyRef</code>. Never a value.
            </caption>
            <thead>
              <tr>
                <th scope="col">Env name</th>
                <th scope="col">Secret</th>
                <th scope="col">Key</th>
                <th scope="col">Version</th>
                <th scope="col">Delivered to</th>
              </tr>
            </thead>
            <tbody>
              {bindings.map((binding) => (
                <tr key={`${binding.purpose}:${binding.envName}`}>
                  <th scope="row">
                    <code>{binding.envName}</code>
                  </th>
                  <td>{binding.secret ? binding.secret.name : <code>{binding.source.id}</code>}</td>
                  <td>
                    <code>{BACKEND_KEY}</code>
                  </td>
                  <td className="numeric">
                    v{binding.version}
                    {binding.secret && binding.secret.version > binding.version ? (
                      <span className="hint"> (now v{binding.secret.version})</span>
                    ) : null}
                  </td>
                  <td>{binding.purpose === 'harnessAuth' ? 'model workload' : 'gateway'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      <details className="native-document">
        <summary>Native document of revision {revision.number}, as frozen</summary>
        <pre className="json" tabIndex={0} aria-label={`Native document of revision ${revision.number}`} data-testid="native-document">
          {JSON.stringify(revision.values, null, 2)}
        </pre>
      </details>
      {!active && (activeRevision || (mayRollBack && ROLLBACK_STATES.has(revision.state))) ? (
        <div className="button-row spaced-top">
          {activeRevision ? <RevisionCompare revisionId={revision.id} number={revision.number} activeRevisionId={activeRevision.id} activeNumber={activeRevision.number} /> : null}
          {mayRollBack && ROLLBACK_STATES.has(revision.state) ? <RollbackButton agentId={agent.id} agentName={agent.name} revisionId={revision.id} number={revision.number} /> : null}
        </div>
      ) : null}
    </li>
  );
}

/** RC3: what this revision's apply took from the agent's own changes (SelfConfig), as recorded. */
function RevisionTakeovers({ number, takeovers, requestsHref }: { number: number; takeovers: RevisionTakeover[]; requestsHref: string }) {
  return (
    <div className="takeovers-record" data-testid="revision-takeovers">
      <p>
        <strong>Took from the agent:</strong>
      </p>
      <ul className="plain-list compact-list" aria-label={`What revision ${number} took from the agent`}>
        {takeovers.map((t) => (
          <li key={`${t.kind}:${t.name}`} data-takeover={`${t.kind}:${t.name}`}>
            <code>{takeoverItem(t)}</code>
            {t.setAt ? (
              <>
                , set by the agent <RelativeTime iso={t.setAt} />
              </>
            ) : (
              ', set by the agent'
            )}
            , {t.action === 'bind' ? 'its literal replaced by the bound secret' : 'replaced'}
            {t.requestId ? (
              <>
                {' '}
                (<Link href={requestsHref}>its SelfConfig request</Link>)
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
