'use client';

import { useId, type FormEvent } from 'react';
import { isFieldError } from '../../lib/errors';
import { secretKeys, updateSecret, type Secret, type SecretDelivery } from '../../lib/secrets';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';

export function RotateSecretPanel({
  namespaceId,
  secret,
  onClose,
  onRedeploy,
}: {
  namespaceId: string;
  secret: Secret;
  onClose: () => void;
  /** W7: opens "redeploy consumers" for this secret. */
  onRedeploy?: () => void;
}) {
  const id = useId();
  const mutation = useResultMutation({
    mutationFn: updateSecret,
    invalidate: [secretKeys.byNamespace(namespaceId)],
    forgetVariables: true,
  });
  const failure = mutation.failure;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const value = String(new FormData(form).get('value') ?? '');
    mutation.submit({ id: secret.id, value }, { onSuccess: () => form.reset() });
  }

  return (
    <div className="panel">
      <form method="post" className="form inline-form" onSubmit={onSubmit} aria-labelledby={`${id}-title`}>
        <h3 id={`${id}-title`}>Rotate {secret.name}</h3>
        <div className="field">
          <label htmlFor={`${id}-value`}>New value for {secret.name}</label>
          <input
            id={`${id}-value`}
            name="value"
            type="password"
            className="secret-value"
            required
            autoComplete="new-password"
            spellCheck={false}
            disabled={mutation.pending}
            aria-invalid={isFieldError(failure, 'value') || undefined}
          />
        </div>
        <div className="button-row">
          <button type="submit" className="button primary" disabled={mutation.pending}>
            {mutation.pending ? 'Storing…' : 'Store new value'}
          </button>
          <button type="button" className="button secondary" onClick={onClose}>
            {mutation.success ? 'Close' : 'Cancel'}
          </button>
        </div>
      </form>
      <FormOutcome outcome={mutation.outcome} doing="rotate the secret">
        {(result) => <DeliveryNotice version={result.secret.version} delivery={result.delivery} onRedeploy={onRedeploy} />}
      </FormOutcome>
    </div>
  );
}

// S6: a rotation is stored in Kubernetes but running revisions keep the bytes they started with,
// so the answer must say "stored, not delivered" and name the revisions that hold older bytes.
function DeliveryNotice({ version, delivery, onRedeploy }: { version: number; delivery: SecretDelivery; onRedeploy?: () => void }) {
  const headline = `${delivery.stored ? 'Stored' : 'Not stored'}, ${delivery.delivered ? 'delivered' : 'not delivered'}.`;
  return (
    <div role="status" className={`alert ${delivery.delivered ? 'success' : 'notice'}`} data-testid="delivery">
      <p>
        <strong>{headline}</strong> Now at version {version}. {delivery.message}
      </p>
      {delivery.staleRevisionIds.length > 0 ? (
        <>
          <p>Running revisions that still hold an older version:</p>
          <ul aria-label="Stale revisions">
            {delivery.staleRevisionIds.map((revisionId) => (
              <li key={revisionId}>
                <code>{revisionId}</code>
              </li>
            ))}
          </ul>
          {onRedeploy ? (
            <button type="button" className="button secondary" onClick={onRedeploy}>
              Redeploy consumers…
            </button>
          ) : null}
        </>
      ) : (
        <p className="hint">No running revision holds an older value.</p>
      )}
    </div>
  );
}
