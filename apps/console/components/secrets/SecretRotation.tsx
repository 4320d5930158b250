'use client';

import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { secretRotationQueryOptions } from '../../lib/secret-rollouts';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { RelativeTime } from '../ui/RelativeTime';
import { TableSkeleton } from '../ui/Skeleton';
import { RolloutProgress, RolloutStateBadge } from './RolloutProgress';
import { RotationPolicyEditor } from './RotationPolicyEditor';

/**
 * V4 inside the rotate panel: the policy a rotation follows, and the rollout to follow (the one the
 * last rotation opened, else the secret's newest), with its predecessors listed. Loaded on demand,
 * so the secrets route's first load stays within its budget.
 */
export default function SecretRotation({ secretId, followRolloutId }: { secretId: string; followRolloutId: string | null }) {
  const id = useId();
  const query = useQuery(secretRotationQueryOptions(secretId));
  const rotation = query.data;
  if (query.isPending) return <TableSkeleton label="Loading the rotation policy…" rows={2} />;
  if (query.error) return <QueryErrorAlert error={query.error} what="the rotation policy" retry={() => query.refetch()} />;
  if (!rotation) return null;
  const followed = followRolloutId ?? rotation.rollouts[0]?.id ?? null;
  const earlier = rotation.rollouts.filter((r) => r.id !== followed);

  return (
    <>
      <RotationPolicyEditor rotation={rotation} />
      <section className="section" aria-labelledby={`${id}-rollouts`}>
        <h4 id={`${id}-rollouts`}>Rollouts</h4>
        {followed ? <RolloutProgress key={followed} rolloutId={followed} secretId={secretId} /> : <p className="empty">No rotation of this secret has opened a rollout.</p>}
        {earlier.length > 0 ? (
          <ul className="plain-list" aria-label="Earlier rollouts">
            {earlier.map((r) => (
              <li key={r.id}>
                <code>{r.id}</code> <RolloutStateBadge state={r.state} testId="earlier-rollout-state" /> version {r.targetVersion}, opened{' '}
                <RelativeTime iso={r.createdAt} />
                {r.reason ? (
                  <>
                    {' '}
                    — <code>{r.reason.code}</code>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        ) : null}
      </section>
    </>
  );
}
