'use client';

import { useEffect, useRef, type ReactNode } from 'react';
import type { Outcome, SuccessOf } from '../../lib/use-result-mutation';
import { MutationErrorAlert } from './MutationErrorAlert';

/**
 * What a submitted form answered: the typed error with its advice, a request that failed outright
 * (with what it was doing), or the success the caller renders. Focus moves to the answer, so a
 * keyboard or screen-reader user hears it and continues from there instead of from the page top.
 */
export function FormOutcome<R extends { __typename: string }>({
  outcome,
  doing,
  children,
  focus = true,
}: {
  outcome: Outcome<R> | null;
  /** "create the secret": completes "Could not …". */
  doing: string;
  children?: (result: SuccessOf<R>) => ReactNode;
  focus?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (outcome && focus) ref.current?.focus();
  }, [outcome, focus]);
  if (!outcome) return null;
  return (
    <div ref={ref} tabIndex={-1} className="outcome" data-outcome={outcome.kind}>
      {outcome.kind === 'failed' ? <MutationErrorAlert error={outcome.error} /> : null}
      {outcome.kind === 'error' ? (
        <p role="alert" className="alert error">
          <strong>Could not {doing}:</strong> {describeRequestError(outcome.message)}
        </p>
      ) : null}
      {outcome.kind === 'success' && children ? children(outcome.result) : null}
    </div>
  );
}

/** "Failed to fetch" says nothing to an administrator: say what it most likely means. */
export function describeRequestError(message: string): string {
  if (/failed to fetch|networkerror|load failed/i.test(message)) {
    return 'The server did not answer (it may be restarting, or the network is down). Check the result before retrying.';
  }
  return message;
}
