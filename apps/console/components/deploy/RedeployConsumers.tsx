'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { deployKeys, isInFlight, redeployConsumers, secretStaleConsumersQueryOptions, type SecretWithStaleConsumers, type StaleConsumer } from '../../lib/deploy';
import { agentKeys } from '../../lib/agents';
import { secretKeys } from '../../lib/secrets';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { useToast } from '../feedback/Toaster';
import { TableSkeleton } from '../ui/Skeleton';
import { RevisionStateBadge } from './RevisionStateBadge';
import { BusyButton } from '../ui/Busy';

/** W7 on the secrets list: a secret whose running consumers hold an older version. */
export function StaleBadge({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <span className="badge badge-provisioning" data-testid="stale-badge" title="Running revisions hold an older version">
      stale<span className="visually-hidden">: {count} running {count === 1 ? 'revision holds' : 'revisions hold'} an older version</span>
    </span>
  );
}

/**
 * W7: the running revisions that hold an older version of the secret, and "Redeploy consumers":
 * one ordinary deploy per agent (each with its own checks). Progress is the stale list itself,
 * polled: each item shows its redeploy's state and leaves once that is active.
 */
export function RedeployConsumersPanel({ namespaceId, secretId, secretName }: { namespaceId: string; secretId: string; secretName: string }) {
  const id = useId();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [redeploying, setRedeploying] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const stale = useQuery(secretStaleConsumersQueryOptions(secretId, redeploying));
  const consumers = stale.data?.staleConsumers ?? null;
  const mutation = useResultMutation({
    mutationFn: () => redeployConsumers(secretId),
    invalidate: [deployKeys.all, agentKeys.all],
    onSuccess: (result) => {
      // The answer already carries each item's redeploy: show it at once, then poll.
      queryClient.setQueryData(deployKeys.stale(secretId), (old: SecretWithStaleConsumers | null | undefined) =>
        old ? { ...old, staleConsumers: result.secret.staleConsumers } : old,
      );
      const started = result.redeploys.filter((r) => r.outcome !== 'REFUSED').length;
      if (started > 0) setRedeploying(true);
      heading.current?.focus();
    },
  });
  const refused = mutation.success?.redeploys.filter((r) => r.outcome === 'REFUSED') ?? [];
  // Only the agents whose redeploy started are waited for: a refused one stays stale, and says why.
  // An item whose redeploy is ACTIVE is about to leave the list; one that FAILED stays, with its code.
  const started = new Set(mutation.success?.redeploys.filter((r) => r.outcome !== 'REFUSED').map((r) => r.agentId) ?? []);
  const waiting =
    consumers?.items.some(
      (item) => started.has(item.agentId) && (!item.redeploy || isInFlight(item.redeploy.state) || item.redeploy.state === 'ACTIVE'),
    ) ?? false;

  // Done once the list is empty, or nothing of it is still on its way: stop polling, refresh the badge.
  useEffect(() => {
    if (!redeploying || !consumers) return;
    if (consumers.total === 0 || !waiting) {
      setRedeploying(false);
      void queryClient.invalidateQueries({ queryKey: secretKeys.byNamespace(namespaceId) });
      void queryClient.invalidateQueries({ queryKey: deployKeys.all });
      if (consumers.total === 0) toast(`Every running consumer of ${secretName} now holds version ${stale.data?.version}.`);
    }
  }, [redeploying, consumers, waiting]);

  return (
    <div className="panel" aria-labelledby={`${id}-title`} role="group" data-testid="redeploy-consumers">
      <h3 id={`${id}-title`} ref={heading} tabIndex={-1}>
        Consumers of {secretName} holding an older version
      </h3>
      {stale.isPending ? <TableSkeleton label="Loading stale consumers…" rows={2} /> : null}
      {stale.error ? <QueryErrorAlert error={stale.error} what="the stale consumers" retry={() => stale.refetch()} /> : null}
      {consumers && consumers.total === 0 ? (
        <p role="status" className="alert success" data-testid="redeploy-done">
          No running revision holds an older version of {secretName}
          {stale.data ? ` (now at version ${stale.data.version})` : ''}.
        </p>
      ) : null}
      {consumers && consumers.total > 0 ? (
        <>
          <ul className="plain-list" aria-label={`Stale consumers of ${secretName}`} data-testid="stale-consumers">
            {consumers.items.map((item) => (
              <StaleItem key={`${item.revisionId}:${item.envName}`} item={item} />
            ))}
          </ul>
          {consumers.hiddenCount > 0 ? (
            <p className="hint">
              {consumers.hiddenCount} more you may not read: {consumers.hiddenCount === 1 ? 'it is' : 'they are'} not redeployed by you.
            </p>
          ) : null}
          <div className="button-row">
            <BusyButton type="button" className="button primary" onClick={() => mutation.submit(undefined)} busy={mutation.pending || redeploying} disabled={consumers.items.length === 0}>
              {mutation.pending || redeploying ? 'Redeploying…' : 'Redeploy consumers'}
            </BusyButton>
          </div>
        </>
      ) : null}
      {/* A refusal takes focus; after a success the button goes away, so focus moves to this panel's heading. */}
      <FormOutcome outcome={mutation.outcome} doing="redeploy the consumers" focus={mutation.outcome?.kind !== 'success'} />
      {refused.length > 0 ? (
        <div role="alert" className="alert error" data-testid="redeploy-refused">
          <p>
            <strong>Not redeployed:</strong>
          </p>
          <ul className="plain-list">
            {refused.map((r) => (
              <li key={r.agentId}>
                {r.agentName ?? <code>{r.agentId}</code>}: <code>{r.errorCode}</code> {r.errorMessage}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

function StaleItem({ item }: { item: StaleConsumer }) {
  return (
    <li data-testid="stale-consumer">
      Agent <strong>{item.agentName ?? <code>{item.agentId}</code>}</strong>, revision {item.revisionNumber}: <code>{item.envName}</code>{' '}
      holds version {item.deliveredVersion} of {item.currentVersion}
      {item.purpose === 'harnessAuth' ? ' (model workload)' : ''}.{' '}
      {item.redeploy ? (
        <span data-testid="redeploy-progress">
          Redeploy: revision {item.redeploy.number} <RevisionStateBadge state={item.redeploy.state} />
          {item.redeploy.failureCode ? (
            <>
              {' '}
              <code>{item.redeploy.failureCode}</code>
            </>
          ) : null}
        </span>
      ) : null}
    </li>
  );
}
