'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { namespaceRotationPolicyQueryOptions, setNamespaceSecretRotationPolicy, type PolicyInput } from '../../lib/secret-rollouts';
import { secretRolloutKeys } from '../../lib/secret-rollout-keys';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { describePolicy, PolicyForm } from './RotationPolicyEditor';

/**
 * V4: the namespace's default rotation policy, which every secret without its own follows; set or
 * cleared (manual) by an administrator of the namespace, read by everyone else.
 */
export default function NamespaceRotationDefault({ namespaceId }: { namespaceId: string }) {
  const id = useId();
  const [editing, setEditing] = useState(false);
  const query = useQuery(namespaceRotationPolicyQueryOptions(namespaceId));
  // The namespace's viewerCan: the decision setNamespaceSecretRotationPolicy makes.
  const mayAdminister = query.data?.viewerCan.administer ?? false;
  const policy = query.data?.secretRotationPolicy ?? null;
  return (
    <div data-testid="namespace-rotation-default">
      {query.error ? <QueryErrorAlert error={query.error} what="the namespace's rotation default" retry={() => query.refetch()} /> : null}
      {query.isPending ? <p className="hint">Loading…</p> : null}
      {query.data ? (
        <>
          <p data-testid="namespace-policy">{policy ? describePolicy(policy) : 'None: a rotation of a secret without its own policy is stored, not delivered (manual).'}</p>
          {mayAdminister ? (
            <>
              <button type="button" className="button secondary" aria-expanded={editing} aria-controls={editing ? `${id}-editor` : undefined} onClick={() => setEditing((open) => !open)}>
                Edit the namespace default
              </button>
              {editing ? (
                <div id={`${id}-editor`}>
                  <PolicyForm
                    title={`Default rotation policy of ${query.data.name}`}
                    followLabel="No default (manual)"
                    ownLabel="A default policy"
                    current={policy}
                    hasOwn={policy !== null}
                    mutationFn={(input: PolicyInput | null) => setNamespaceSecretRotationPolicy({ namespaceId, policy: input })}
                    invalidate={[secretRolloutKeys.all]}
                  />
                </div>
              ) : null}
            </>
          ) : (
            <p className="hint">A namespace administrator sets it.</p>
          )}
        </>
      ) : null}
    </div>
  );
}
