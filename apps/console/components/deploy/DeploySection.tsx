'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { agentKeys, type Agent } from '../../lib/agents';
import { agentRevisionsQueryOptions, deployAgent, deployKeys, explainDeployQueryOptions, isInFlight } from '../../lib/deploy';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { NotAllowedButton, notAllowedReason } from '../ui/NotAllowedButton';
import { TableSkeleton } from '../ui/Skeleton';
import { DeployChecks } from './DeployChecks';
import { DeployProgress } from './DeployProgress';
import { DeployTakeovers, TAKEOVERS_ID } from './DeployTakeovers';
import { StopAgentButton } from './StopAgentButton';
import { BusyButton } from '../ui/Busy';

/**
 * Deploy on the agent's page: the D-checks before the click (D6), the deploy itself (D1–D4), its
 * progress until the revision is active or failed (W5), and stop (W6).
 */
export function DeploySection({ agent, names }: { agent: Agent; names: ReadonlyMap<string, string> }) {
  const deployButton = useRef<HTMLButtonElement>(null);
  const explain = useQuery(explainDeployQueryOptions(agent.id));
  // The newest revisions: one still on its way (a deploy started elsewhere, or before a reload) shows its progress too.
  const revisions = useQuery(agentRevisionsQueryOptions(agent.id));
  const mutation = useResultMutation({
    mutationFn: () => deployAgent(agent.id),
    invalidate: [agentKeys.detail(agent.id), deployKeys.all],
  });

  const explanation = explain.data?.__typename === 'DeployExplanation' ? explain.data : null;
  const started = mutation.success?.revision ?? null;
  const inFlight = revisions.data?.page.items.find((revision) => isInFlight(revision.state)) ?? null;
  // Kept once seen, so its progress stays on screen after it ends.
  const [seen, setSeen] = useState<{ id: string; number: number } | null>(null);
  useEffect(() => {
    if (inFlight && inFlight.id !== seen?.id) setSeen({ id: inFlight.id, number: inFlight.number });
  }, [inFlight?.id]);
  const following = started ?? seen;
  const running = agent.desiredState === 'running';

  return (
    <section id="deploy" aria-labelledby="agent-deploy-title" className="section" data-testid="deploy">
      <h2 id="agent-deploy-title">Deploy</h2>
      <p className="hint">
        What deploy checks before it admits the agent. Nothing is written until you press Deploy; each deploy freezes a new
        revision.
      </p>
      {explain.isPending ? <TableSkeleton label="Checking whether it can deploy…" rows={4} /> : null}
      {explain.error ? <QueryErrorAlert error={explain.error} what="the deploy checks" retry={() => explain.refetch()} /> : null}
      {explain.data?.__typename === 'NotFoundError' ? (
        <p role="alert" className="alert error">
          {explain.data.message}
        </p>
      ) : null}
      {explanation ? (
        <>
          <p className={`alert ${explanation.allowed ? 'success' : 'notice'}`} data-testid="deploy-verdict">
            {explanation.allowed
              ? 'Every check passes: deploy would admit this agent now.'
              : `${explanation.checks.filter((check) => !check.passed).length} of ${explanation.checks.length} checks fail: fix them to deploy.`}
          </p>
          <DeployChecks checks={explanation.checks} names={names} focusAfterFixes={() => deployButton.current?.focus()} />
          <DeployTakeovers takeovers={explanation.takeovers} namespaceId={agent.namespace?.id ?? ''} agentId={agent.id} />
        </>
      ) : null}
      <div className="button-row spaced-top">
        <BusyButton
          ref={deployButton}
          type="button"
          className="button primary"
          onClick={() => mutation.submit(undefined)}
          busy={mutation.pending}
          disabled={explanation?.allowed !== true}
          aria-describedby={describedBy(explanation) || undefined}
        >
          {mutation.pending ? 'Deploying…' : running ? 'Deploy again' : 'Deploy'}
        </BusyButton>
        {running && agent.viewerCan.deploy ? <StopAgentButton agentId={agent.id} agentName={agent.name} /> : null}
        {running && !agent.viewerCan.deploy ? (
          <NotAllowedButton label={`Stop ${agent.name}`} reason={notAllowedReason(agent.name, 'stop', 'deploy', 'agent')}>
            Stop
          </NotAllowedButton>
        ) : null}
      </div>
      {explanation && !explanation.allowed ? (
        <p id="agent-deploy-blocked" className="hint">
          Deploy is possible once every check passes.
        </p>
      ) : null}
      {/* A refusal takes focus; after a success focus stays on the button, and the progress below is a live region. */}
      <FormOutcome outcome={mutation.outcome} doing="deploy the agent" focus={mutation.outcome?.kind !== 'success'} />
      {following ? <DeployProgress key={following.id} agentId={agent.id} revisionId={following.id} number={following.number} /> : null}
    </section>
  );
}

const BLOCKED_ID = 'agent-deploy-blocked';

/** What the Deploy button's description reads: why it is disabled, and what it would take from the agent. */
function describedBy(explanation: { allowed: boolean; takeovers: readonly unknown[] | null } | null): string {
  if (!explanation) return '';
  const ids: string[] = [];
  if (!explanation.allowed) ids.push(BLOCKED_ID);
  if (explanation.takeovers === null || explanation.takeovers.length > 0) ids.push(TAKEOVERS_ID);
  return ids.join(' ');
}
