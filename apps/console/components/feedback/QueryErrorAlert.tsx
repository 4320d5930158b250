'use client';

import { UnauthenticatedError } from '../../lib/graphql';
import { describeRequestError } from './FormOutcome';

/** A read that failed: what could not be loaded, why in plain words, and a way to try again. */
export function QueryErrorAlert({ error, what, retry }: { error: Error; what: string; retry?: () => unknown }) {
  if (error instanceof UnauthenticatedError) {
    // The query provider is already redirecting to /sign-in.
    return <p role="status">Your session has ended. Redirecting to sign-in…</p>;
  }
  return (
    <div role="alert" className="alert error" data-testid="query-error">
      <p>
        <strong>Could not load {what}:</strong> {describeRequestError(error.message)}
      </p>
      {retry ? (
        <button type="button" className="button secondary" onClick={() => void retry()}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
