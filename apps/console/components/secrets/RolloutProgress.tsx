'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import {
  decideRollout,
  isOpen,
  secretRolloutQueryOptions,
  shownDecisions,
  type RolloutDecision,
  type SecretRollout,
  type SecretRolloutBatch,
  type SecretRolloutState,
} from '../../lib/secret-rollouts';
import { secretRolloutKeys } from '../../lib/secret-rollout-keys';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { NotAllowedButton, notAllowedReason } from '../ui/NotAllowedButton';
import { RelativeTime } from '../ui/RelativeTime';
import { ScrollTable } from '../ui/ScrollTable';
import { TableSkeleton } from '../ui/Skeleton';
import { BusyButton } from '../ui/Busy';

// The namespace badges' colours: done green, on its way amber, rolled back or failed red, ended grey.
const tone: Record<SecretRolloutState | SecretRolloutBatch['state'], string> = {
  AWAITING_APPROVAL: 'provisioning',
  ROLLING: 'provisioning',
  PAUSED: 'provisioning',
  ROLLING_BACK: 'failed',
  SUCCEEDED: 'ready',
  READY: 'ready',
  ROLLED_BACK: 'failed',
  FAILED: 'failed',
  ABORTED: 'deleting',
};

const DECISION_LABELS: Record<RolloutDecision, string> = { approve: 'Approve', pause: 'Pause', resume: 'Resume', abort: 'Abort' };

export function RolloutStateBadge({ state, testId = 'rollout-state' }: { state: SecretRolloutState | SecretRolloutBatch['state']; testId?: string }) {
  return (
    <span className={`badge badge-${tone[state]}`} data-testid={testId}>
      {state}
    </span>
  );
}

/** One sentence for the live region: announced when the state or the batch count changes, not every poll. */
function summary(rollout: SecretRollout): string {
  const ready = rollout.batches.filter((b) => b.state === 'READY').length;
  const batches = `${rollout.batches.length} ${rollout.batches.length === 1 ? 'batch' : 'batches'} started, ${ready} ready`;
  const reason = rollout.reason ? ` Reason: ${rollout.reason.code}.` : '';
  return `Rollout ${rollout.state}, delivering version ${rollout.targetVersion}; ${batches}.${reason}`;
}

/**
 * V4: a rollout's live progress, polled every 2 s while it is open (awaiting approval, rolling,
 * paused, rolling back) and no longer once it has ended; the decisions its state allows.
 */
export function RolloutProgress({ rolloutId, secretId }: { rolloutId: string; secretId: string }) {
  const id = useId();
  const query = useQuery(secretRolloutQueryOptions(rolloutId));
  const rollout = query.data;

  return (
    <section id={`rollout-${rolloutId}`} className="panel" aria-labelledby={`${id}-title`} data-testid="rollout" tabIndex={-1}>
      <h4 id={`${id}-title`}>
        Rollout <code>{rolloutId}</code>
      </h4>
      {query.isPending ? <TableSkeleton label="Loading the rollout…" rows={2} /> : null}
      {query.error ? <QueryErrorAlert error={query.error} what="the rollout" retry={() => query.refetch()} /> : null}
      {rollout === null ? <p className="empty">This rollout does not exist, or you may not read its secret.</p> : null}
      {rollout ? (
        <>
          <p role="status" aria-live="polite" className="visually-hidden" data-testid="rollout-summary">
            {summary(rollout)}
          </p>
          <dl className="facts">
            <dt>State</dt>
            <dd>
              <RolloutStateBadge state={rollout.state} /> {isOpen(rollout.state) ? <span className="hint">(updates every 2 s)</span> : null}
            </dd>
            <dt>Target version</dt>
            <dd data-testid="rollout-target">{rollout.targetVersion}</dd>
            <dt>Rotations</dt>
            <dd data-testid="rollout-rotations">{rollout.rotations}</dd>
            <dt>Opened</dt>
            <dd>
              <RelativeTime iso={rollout.createdAt} />
            </dd>
            {rollout.endedAt ? (
              <>
                <dt>Ended</dt>
                <dd>
                  <RelativeTime iso={rollout.endedAt} />
                </dd>
              </>
            ) : null}
            {rollout.reason ? (
              <>
                <dt>Reason</dt>
                <dd data-testid="rollout-reason">
                  <code>{rollout.reason.code}</code> {rollout.reason.message}
                </dd>
              </>
            ) : null}
          </dl>
          <Decisions rollout={rollout} secretId={secretId} />
          <h5>Batches</h5>
          {rollout.batches.length === 0 ? (
            <p className="empty" data-testid="no-batches">
              {rollout.state === 'AWAITING_APPROVAL' ? 'No batch has started: the rollout awaits approval.' : 'No batch has started yet.'}
            </p>
          ) : (
            <ol className="rollout-batches" aria-label="Batches">
              {rollout.batches.map((batch) => (
                <Batch key={batch.index} batch={batch} />
              ))}
            </ol>
          )}
        </>
      ) : null}
    </section>
  );
}

function Decisions({ rollout, secretId }: { rollout: SecretRollout; secretId: string }) {
  const queryClient = useQueryClient();
  const mutation = useResultMutation({
    mutationFn: decideRollout,
    invalidate: [secretRolloutKeys.rollout(rollout.id), secretRolloutKeys.secret(secretId)],
    onSuccess: (result) => {
      queryClient.setQueryData(secretRolloutKeys.rollout(rollout.id), result.rollout);
    },
  });
  const decisions = shownDecisions(rollout);
  return (
    <>
      {decisions.length > 0 ? (
        <div className="button-row" role="group" aria-label="Rollout decisions">
          {decisions.map(({ decision, check }) =>
            check.allowed ? (
              <BusyButton
                key={decision}
                type="button"
                className={`button ${decision === 'approve' || decision === 'resume' ? 'primary' : 'secondary'}`}
                busy={mutation.pending}
                onClick={() => mutation.submit({ decision, rolloutId: rollout.id })}
              >
                {DECISION_LABELS[decision]} rollout
              </BusyButton>
            ) : (
              <NotAllowedButton
                key={decision}
                label={`${DECISION_LABELS[decision]} rollout`}
                reason={check.code === 'FORBIDDEN' ? notAllowedReason('this rollout', decision, 'administer', 'secret') : (check.message ?? 'Not allowed now.')}
              >
                {DECISION_LABELS[decision]} rollout
              </NotAllowedButton>
            ),
          )}
        </div>
      ) : null}
      <FormOutcome outcome={mutation.outcome} doing="decide on the rollout">
        {(result) => (
          <p role="status" className="alert success" data-testid="decision-outcome">
            Done: the rollout is {result.rollout.state}.
          </p>
        )}
      </FormOutcome>
    </>
  );
}

function Batch({ batch }: { batch: SecretRolloutBatch }) {
  const id = useId();
  return (
    <li className="rollout-batch" data-testid="rollout-batch" aria-labelledby={`${id}-title`}>
      <p id={`${id}-title`}>
        <strong>Batch {batch.index + 1}</strong> <RolloutStateBadge state={batch.state} testId="batch-state" /> version {batch.targetVersion}, started{' '}
        <RelativeTime iso={batch.startedAt} />
        {batch.endedAt ? (
          <>
            , ended <RelativeTime iso={batch.endedAt} />
          </>
        ) : null}
        {batch.reason ? (
          <>
            {' '}
            — <code>{batch.reason.code}</code> {batch.reason.message}
          </>
        ) : null}
      </p>
      <ScrollTable label={`Members of batch ${batch.index + 1}`}>
        <table className="table">
          <caption className="visually-hidden">Members of batch {batch.index + 1}</caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Revision</th>
              <th scope="col">Revision state</th>
              <th scope="col">Rolled back to</th>
              <th scope="col">Refusal</th>
            </tr>
          </thead>
          <tbody>
            {batch.members.map((member) => (
              <tr key={member.agentId} data-testid="rollout-member">
                <th scope="row">{member.agent?.name ?? <code>{member.agentId}</code>}</th>
                <td>{member.revision ? `revision ${member.revision.number}` : '—'}</td>
                <td data-testid="member-revision-state">{member.revisionState ?? '—'}</td>
                <td>{member.rollbackRevision ? `revision ${member.rollbackRevision.number}` : '—'}</td>
                <td data-testid="member-refusal">
                  {member.refusal ? (
                    <>
                      <code>{member.refusal.code}</code> {member.refusal.message}
                    </>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
    </li>
  );
}
