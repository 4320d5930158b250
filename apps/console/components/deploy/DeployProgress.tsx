'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { agentKeys } from '../../lib/agents';
import { agentRevisionsQueryOptions, DEPLOY_STEPS, deployKeys, isInFlight, type RevisionState } from '../../lib/deploy';
import { agentGatewayQueryOptions } from '../../lib/references';
import { selfConfigKeys } from '../../lib/selfconfig';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { RevisionFailure } from './RevisionFailure';
import { RevisionStateBadge } from './RevisionStateBadge';

const headline: Record<RevisionState, string> = {
  QUEUED: 'queued for the worker',
  PREPARING: 'preparing: instance, ConfigMap and gateway Deployment',
  PREPARED: 'prepared, waiting to activate',
  ACTIVATING: 'activating: waiting for the gateway to be ready',
  ACTIVE: 'active',
  FAILED: 'failed',
  SUPERSEDED: 'superseded by a newer revision',
  STOPPED: 'stopped',
};

/**
 * A deploy's progress: the revision's state, polled (agentRevisionsQueryOptions follows it) until
 * it is active or failed, with the failure's code and message. A live region, so each step is
 * announced.
 */
export function DeployProgress({ agentId, revisionId, number }: { agentId: string; revisionId: string; number: number | null }) {
  const queryClient = useQueryClient();
  const query = useQuery(agentRevisionsQueryOptions(agentId, null, revisionId));
  const revision = query.data?.page.items.find((item) => item.id === revisionId) ?? null;
  const state: RevisionState = revision?.state ?? 'QUEUED';
  const done = !isInFlight(state);

  // Once it ends, the agent's status, the deploy checks (and what a deploy would take), its gateway
  // and who owns what on its instance have changed with it.
  useEffect(() => {
    if (!revision || !done) return;
    void queryClient.invalidateQueries({ queryKey: agentKeys.detail(agentId) });
    void queryClient.invalidateQueries({ queryKey: deployKeys.explain(agentId) });
    void queryClient.invalidateQueries({ queryKey: agentGatewayQueryOptions(agentId).queryKey });
    void queryClient.invalidateQueries({ queryKey: selfConfigKeys.ownership(agentId) });
  }, [done, revision?.id]);

  const current = DEPLOY_STEPS.indexOf(state);
  const tone = state === 'ACTIVE' ? 'success' : state === 'FAILED' ? 'error' : 'notice';
  return (
    <div className={`alert ${tone} deploy-progress`} data-testid="deploy-progress" data-state={state}>
      <p role="status" aria-live="polite">
        <strong>
          Revision {revision?.number ?? number ?? ''} {headline[state]}
          {isInFlight(state) ? '…' : '.'}
        </strong>{' '}
        <RevisionStateBadge state={state} />
      </p>
      <ol className="steps" aria-label={`Progress of revision ${revision?.number ?? number ?? ''}`}>
        {DEPLOY_STEPS.map((step, index) => {
          const reached = current >= 0 && index <= current;
          return (
            <li
              key={step}
              className={step === state ? 'step current' : reached ? 'step done' : 'step'}
              aria-current={step === state ? 'step' : undefined}
            >
              {step.toLowerCase()}
            </li>
          );
        })}
      </ol>
      {revision?.failure ? <RevisionFailure failure={revision.failure} alert /> : null}
      {query.error ? <QueryErrorAlert error={query.error} what="the revision's state" retry={() => query.refetch()} /> : null}
    </div>
  );
}
