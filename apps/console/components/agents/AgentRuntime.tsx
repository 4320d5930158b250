'use client';

import { useQuery } from '@tanstack/react-query';
import { agentRuntimeQueryOptions, reasonWords, statusMeaning, type AgentRuntime, type AgentRuntimeView } from '../../lib/agent-runtime';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { RelativeTime } from '../ui/RelativeTime';
import { TableSkeleton } from '../ui/Skeleton';
import { AgentStatusBadge } from './AgentStatusBadge';

/**
 * RC6: what the agent's status means, and what the instance reconciler last observed of its
 * gateway: Ready or not, the reason in words with the reconciler's message, which revision and
 * instance generation the ready Pods run, and since when. The query polls (agentRuntimeQueryOptions),
 * so a rollout or a gateway that breaks later shows here without a reload.
 */
export function AgentRuntimeSection({ agentId }: { agentId: string }) {
  const query = useQuery(agentRuntimeQueryOptions(agentId));
  const { data, error, isPending } = query;
  return (
    <section aria-labelledby="agent-runtime-title" className="section" id="runtime" data-testid="agent-runtime">
      <h2 id="agent-runtime-title">Status and runtime</h2>
      {isPending ? <TableSkeleton label="Loading the agent's runtime…" rows={3} /> : null}
      {error ? <QueryErrorAlert error={error} what="this agent's runtime" retry={() => query.refetch()} /> : null}
      {data ? (
        <>
          <p className="status-meaning" data-testid="agent-status-meaning">
            <strong>Status</strong> <AgentStatusBadge status={data.status} /> {statusMeaning(data.status)} Desired state:{' '}
            {data.desiredState}.
          </p>
          {data.runtime ? (
            <RuntimeFacts agent={data} runtime={data.runtime} />
          ) : (
            <p className="empty">Not observed yet: the reconciler reports on the gateway once a revision has been applied.</p>
          )}
        </>
      ) : null}
    </section>
  );
}

function RuntimeFacts({ agent, runtime }: { agent: AgentRuntimeView; runtime: AgentRuntime }) {
  const active = agent.activeRevision;
  const running = runtime.runningRevision;
  const other = running && active && running.id !== active.id;
  const behind = runtime.instanceGeneration > 0 && runtime.observedGeneration < runtime.instanceGeneration;
  return (
    <>
      <dl className="facts" data-testid="runtime-facts">
        <dt>Gateway</dt>
        <dd>
          <span className={`badge ${runtime.ready ? 'badge-ready' : 'badge-failed'}`} data-testid="runtime-ready">
            {runtime.ready ? 'Ready' : 'Not ready'}
          </span>{' '}
          phase <span data-testid="runtime-phase">{runtime.phase}</span>
        </dd>
        <dt>Reason</dt>
        <dd data-testid="runtime-reason">
          {reasonWords(runtime.reason)} {runtime.reason ? <code>{runtime.reason}</code> : null}
        </dd>
        {runtime.message ? (
          <>
            <dt>Message</dt>
            <dd data-testid="runtime-message">{runtime.message}</dd>
          </>
        ) : null}
        <dt>Ready Pods run</dt>
        <dd data-testid="runtime-running">{runningText(runtime)}</dd>
        <dt>Instance</dt>
        <dd data-testid="runtime-generation">
          {/* Kubernetes counts generations from 1: 0 is the reconciler saying there is no instance to read. */}
          {runtime.instanceGeneration > 0
            ? `generation ${runtime.instanceGeneration}, rendered ${runtime.observedGeneration}`
            : 'none observed'}
          {active?.instanceGeneration != null ? ` (the active revision ${active.number} applied generation ${active.instanceGeneration})` : null}
        </dd>
        <dt>Last change seen</dt>
        <dd>
          <RelativeTime iso={runtime.observedAt} />
        </dd>
      </dl>
      {other ? (
        <p className="alert notice" data-testid="runtime-other-revision">
          The ready Pods run revision {running.number}, not the active revision {active.number}.
        </p>
      ) : null}
      {behind ? (
        <p className="hint">
          The reconciler has not rendered generation {runtime.instanceGeneration} yet: what runs is from generation{' '}
          {runtime.observedGeneration} or older.
        </p>
      ) : null}
    </>
  );
}

/** Which revision and instance generation the ready Pods carry (null generation: Pods of an older rendering). */
function runningText(runtime: AgentRuntime): string {
  const revision = runtime.runningRevision;
  const generation = runtime.runningGeneration;
  if (revision && generation !== null) return `revision ${revision.number}, instance generation ${generation}`;
  if (revision) return `revision ${revision.number}, from an older rendering of the instance`;
  if (generation !== null) return `instance generation ${generation}`;
  return 'no ready Pod';
}
