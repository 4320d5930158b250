'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { isFieldError } from '../../lib/errors';
import { secretKeys, updateSecret, type Secret, type SecretDelivery, type UpdateSecretResult } from '../../lib/secrets';
import { MutationErrorAlert } from '../feedback/MutationErrorAlert';

type Outcome =
  | { kind: 'stored'; version: number; delivery: SecretDelivery }
  | { kind: 'failed'; result: Exclude<UpdateSecretResult, { __typename: 'UpdateSecretSuccess' }> }
  | { kind: 'error'; message: string };

export function RotateSecretPanel({
  namespaceId,
  secret,
  onClose,
}: {
  namespaceId: string;
  secret: Secret;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const id = useId();
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const mutation = useMutation({
    mutationFn: updateSecret,
    onSettled: () => queryClient.invalidateQueries({ queryKey: secretKeys.byNamespace(namespaceId) }),
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const value = String(new FormData(form).get('value') ?? '');
    setOutcome(null);
    mutation.mutate(
      { id: secret.id, value },
      {
        onSuccess: (result) => {
          if (result.__typename === 'UpdateSecretSuccess') {
            form.reset();
            setOutcome({ kind: 'stored', version: result.secret.version, delivery: result.delivery });
          } else {
            setOutcome({ kind: 'failed', result });
          }
          mutation.reset();
        },
        onError: (error) => {
          setOutcome({ kind: 'error', message: error.message });
          mutation.reset();
        },
      },
    );
  }

  const failure = outcome?.kind === 'failed' ? outcome.result : null;

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
            disabled={mutation.isPending}
            aria-invalid={isFieldError(failure, 'value') || undefined}
          />
        </div>
        <div className="button-row">
          <button type="submit" className="button primary" disabled={mutation.isPending}>
            {mutation.isPending ? 'Storing…' : 'Store new value'}
          </button>
          <button type="button" className="button secondary" onClick={onClose}>
            {outcome?.kind === 'stored' ? 'Close' : 'Cancel'}
          </button>
        </div>
      </form>
      {failure ? <MutationErrorAlert error={failure} /> : null}
      {outcome?.kind === 'error' ? (
        <p role="alert" className="alert error">
          <strong>Could not rotate the secret:</strong> {outcome.message}
        </p>
      ) : null}
      {outcome?.kind === 'stored' ? <DeliveryNotice version={outcome.version} delivery={outcome.delivery} /> : null}
    </div>
  );
}

// S6: a rotation is stored in Kubernetes but running revisions keep the bytes they started with,
// so the answer must say "stored, not delivered" and name the revisions that hold older bytes.
function DeliveryNotice({ version, delivery }: { version: number; delivery: SecretDelivery }) {
  const headline = `${delivery.stored ? 'Stored' : 'Not stored'}, ${delivery.delivered ? 'delivered' : 'not delivered'}.`;
  return (
    <div role="status" className={`alert ${delivery.delivered ? 'success' : 'notice'}`} data-testid="delivery">
      <p>
        <strong>{headline}</strong> Now at version {version}. {delivery.message}
      </p>
      {delivery.staleRevisionIds.length > 0 ? (
        <>
          <p>Running revisions that still hold the previous value:</p>
          <ul aria-label="Stale revisions">
            {delivery.staleRevisionIds.map((revisionId) => (
              <li key={revisionId}>
                <code>{revisionId}</code>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="hint">No running revision holds an older value.</p>
      )}
    </div>
  );
}
