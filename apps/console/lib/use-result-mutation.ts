'use client';

// The one state machine every create, edit, delete and revoke shares: a mutation answers a typed
// union (one *Success member and typed errors), or throws (network, HTTP, GraphQL error). The
// outcome is one of three cases, kept until the next submit, and the caches it touches are
// invalidated after either answer (a lost answer may still have changed something).
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import type { MutationError } from './errors';

type Typed = { __typename: string };
export type SuccessOf<R extends Typed> = Extract<R, { __typename: `${string}Success` }>;
export type FailureOf<R extends Typed> = Exclude<R, { __typename: `${string}Success` }> & MutationError;

export type Outcome<R extends Typed> =
  | { kind: 'success'; result: SuccessOf<R> }
  | { kind: 'failed'; error: FailureOf<R> }
  | { kind: 'error'; message: string };

export function isSuccess<R extends Typed>(result: R): result is SuccessOf<R> {
  return result.__typename.endsWith('Success');
}

export function useResultMutation<V, R extends Typed>({
  mutationFn,
  invalidate = [],
  cancelFirst = false,
  forgetVariables = false,
  onSuccess,
}: {
  mutationFn: (variables: V) => Promise<R>;
  /** Query key prefixes to refresh after the answer. */
  invalidate?: QueryKey[];
  /** Cancel in-flight reads of those keys first: a list read before the commit must not be the last word. */
  cancelFirst?: boolean;
  /** Drop the variables once answered (they may hold a secret value). */
  forgetVariables?: boolean;
  onSuccess?: (result: SuccessOf<R>, variables: V) => void | Promise<void>;
}) {
  const queryClient = useQueryClient();
  const [outcome, setOutcome] = useState<Outcome<R> | null>(null);
  const mutation = useMutation({ mutationFn });
  const { mutate, reset } = mutation;

  const refresh = useCallback(async () => {
    for (const key of invalidate) {
      if (cancelFirst) await queryClient.cancelQueries({ queryKey: key });
      await queryClient.invalidateQueries({ queryKey: key });
    }
  }, [queryClient, cancelFirst, JSON.stringify(invalidate)]);

  const submit = useCallback(
    (variables: V, then?: { onSuccess?: (result: SuccessOf<R>) => void; onFailure?: () => void }) => {
      setOutcome(null);
      mutate(variables, {
        onSuccess: async (result) => {
          if (isSuccess(result)) {
            setOutcome({ kind: 'success', result });
            then?.onSuccess?.(result);
            await onSuccess?.(result, variables);
          } else {
            setOutcome({ kind: 'failed', error: result as FailureOf<R> });
            then?.onFailure?.();
          }
          if (forgetVariables) reset();
          await refresh();
        },
        onError: async (error) => {
          setOutcome({ kind: 'error', message: error.message });
          then?.onFailure?.();
          if (forgetVariables) reset();
          await refresh();
        },
      });
    },
    [mutate, reset, refresh, forgetVariables, onSuccess],
  );

  return {
    submit,
    outcome,
    pending: mutation.isPending,
    failure: outcome?.kind === 'failed' ? outcome.error : null,
    success: outcome?.kind === 'success' ? outcome.result : null,
    clear: () => setOutcome(null),
  };
}
