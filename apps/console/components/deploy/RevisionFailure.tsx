import { failureAdvice } from '../../lib/deploy';

/**
 * A failed revision (W1, W2): its code, the worker's message and what to do about it. The same on
 * the deploy's progress (an alert: it just happened) and in the revisions list (a record).
 */
export function RevisionFailure({ failure, alert = false }: { failure: { code: string; message: string }; alert?: boolean }) {
  return (
    <div className="revision-failure" role={alert ? 'alert' : undefined} data-testid="revision-failure">
      <p>
        <strong>Failed with</strong> <code data-testid="failure-code">{failure.code}</code>: {failure.message}
      </p>
      <p data-testid="failure-advice">
        <strong>What to do:</strong> {failureAdvice(failure.code)}
      </p>
    </div>
  );
}
