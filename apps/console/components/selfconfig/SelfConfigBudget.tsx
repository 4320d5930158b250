'use client';

import { useQuery } from '@tanstack/react-query';
import { useCan } from '../../lib/can';
import { agentSelfConfigBudgetQueryOptions, resumeSelfConfig, selfConfigKeys, type AgentSelfConfigBudget } from '../../lib/selfconfig';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { useToast } from '../feedback/Toaster';
import { RelativeTime } from '../ui/RelativeTime';
import { BusyButton } from '../ui/Busy';

// SG4 on the agent's page: how much the agent may still change itself now, counted as the
// controller counts it, and, when its rollbacks paused it, Resume for an administrator.
export function SelfConfigBudget({ agentId, namespaceId }: { agentId: string; namespaceId: string }) {
  const query = useQuery(agentSelfConfigBudgetQueryOptions(agentId));
  const agent = query.data;
  if (query.error) return <QueryErrorAlert error={query.error} what="the agent's self-configure budget" retry={() => query.refetch()} />;
  if (!agent?.selfConfigure.enabled || !agent.selfConfigBudget) return null;
  return (
    <section aria-labelledby="agent-budget-title" className="section">
      <h2 id="agent-budget-title">Self-configure budget</h2>
      <Budget agentId={agentId} namespaceId={namespaceId} budget={agent.selfConfigBudget} />
    </section>
  );
}

function Budget({ agentId, namespaceId, budget }: { agentId: string; namespaceId: string; budget: AgentSelfConfigBudget }) {
  const toast = useToast();
  const may = useCan('administer', 'agent', namespaceId, agentId);
  const resume = useResultMutation({
    mutationFn: () => resumeSelfConfig(agentId),
    invalidate: [selfConfigKeys.budget(agentId)],
    onSuccess: (result) => toast(`Resumed: ${result.rollbacksResumed} rollback(s) no longer count toward the pause.`),
  });
  return (
    <>
      <dl className="facts spaced" data-testid="selfconfig-budget">
        <dt>Requests this hour</dt>
        <dd>
          {budget.requestsInLastHour} of {budget.requestsPerHour}
        </dd>
        <dt>Changes applied today</dt>
        <dd>
          {budget.appliedInLastDay} of {budget.appliedPerDay}
        </dd>
        <dt>Rollbacks before a pause</dt>
        <dd>
          {budget.rollbacksSinceResume} of {budget.pauseAfterRollbacks}
          {budget.paused ? <span className="badge badge-failed"> paused</span> : null}
        </dd>
        <dt>Limits from</dt>
        <dd>{budget.fromInstance ? 'the instance (spec.selfConfigure.budget)' : 'the installation’s defaults'}</dd>
      </dl>
      {budget.refusal ? (
        <p className="alert notice" role="status">
          {budget.refusal.message}
          {budget.refusal.refillsAt ? (
            <>
              {' '}
              (<RelativeTime iso={budget.refusal.refillsAt} />)
            </>
          ) : null}
        </p>
      ) : null}
      {budget.paused && may !== false ? (
        <div className="button-row">
          <BusyButton type="button" className="button primary" busy={resume.pending} onClick={() => resume.submit(undefined)}>
            Resume self-configuration
          </BusyButton>
        </div>
      ) : null}
      <FormOutcome outcome={resume.outcome} doing="resume self-configuration" />
    </>
  );
}
