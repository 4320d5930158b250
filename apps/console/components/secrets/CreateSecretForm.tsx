'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { isFieldError } from '../../lib/errors';
import type { Namespace } from '../../lib/namespaces';
import { createSecret, secretKeys, type CreateSecretResult } from '../../lib/secrets';
import { MutationErrorAlert } from '../feedback/MutationErrorAlert';

type Outcome =
  | { kind: 'stored'; name: string }
  | { kind: 'failed'; result: Exclude<CreateSecretResult, { __typename: 'CreateSecretSuccess' }> }
  | { kind: 'error'; message: string };

export function CreateSecretForm({ namespace }: { namespace: Pick<Namespace, 'id' | 'name' | 'status'> }) {
  const queryClient = useQueryClient();
  const id = useId();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const ready = namespace.status === 'READY';

  const mutation = useMutation({
    mutationFn: createSecret,
    onSettled: () => queryClient.invalidateQueries({ queryKey: secretKeys.byNamespace(namespace.id) }),
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const fields = new FormData(form);
    const name = String(fields.get('name') ?? '').trim();
    const value = String(fields.get('value') ?? '');
    setOutcome(null);
    mutation.mutate(
      { namespaceId: namespace.id, name, value },
      {
        onSuccess: (result) => {
          if (result.__typename === 'CreateSecretSuccess') {
            // The value field is uncontrolled, so the value never reaches React state or the DOM
            // attributes; clearing the form drops the last copy the page holds.
            form.reset();
            setOutcome({ kind: 'stored', name: result.secret.name });
          } else {
            setOutcome({ kind: 'failed', result });
          }
          // Forget the mutation's variables, which include the value.
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
    <section aria-labelledby={`${id}-title`} className="card">
      <h2 id={`${id}-title`}>Create a secret</h2>
      {!ready ? (
        <p id={`${id}-not-ready`} className="alert notice">
          Secrets can be created once the namespace is READY; it is {namespace.status} now.
          {namespace.status === 'PROVISIONING' ? ' This page updates by itself.' : null}
        </p>
      ) : null}
      <form method="post" className="form" onSubmit={onSubmit}>
        <fieldset disabled={!ready || mutation.isPending} aria-describedby={!ready ? `${id}-not-ready` : undefined}>
          <legend className="visually-hidden">New secret in {namespace.name}</legend>
          <div className="field">
            <label htmlFor={`${id}-name`}>Name</label>
            <input
              id={`${id}-name`}
              name="name"
              type="text"
              required
              autoComplete="off"
              spellCheck={false}
              maxLength={63}
              aria-describedby={`${id}-name-hint`}
              aria-invalid={isFieldError(failure, 'name') || undefined}
            />
            <p id={`${id}-name-hint`} className="hint">
              Lowercase letters, digits, <code>-</code>, <code>_</code> and <code>.</code>; up to 63 characters.
            </p>
          </div>
          <div className="field">
            <label htmlFor={`${id}-value`}>Value</label>
            <input
              id={`${id}-value`}
              name="value"
              type="password"
              className="secret-value"
              required
              autoComplete="new-password"
              spellCheck={false}
              aria-describedby={`${id}-value-hint`}
              aria-invalid={isFieldError(failure, 'value') || undefined}
            />
            <p id={`${id}-value-hint`} className="hint">
              Masked while you type; up to 64 KiB. It goes to the namespace&apos;s Kubernetes Secret and is never shown again.
            </p>
          </div>
          <button type="submit" className="button primary">
            {mutation.isPending ? 'Storing…' : 'Create secret'}
          </button>
        </fieldset>
      </form>
      {failure ? <MutationErrorAlert error={failure} /> : null}
      {outcome?.kind === 'error' ? (
        <p role="alert" className="alert error">
          <strong>Could not create the secret:</strong> {outcome.message}
        </p>
      ) : null}
      {outcome?.kind === 'stored' ? (
        <p role="status" className="alert success">
          Secret <strong>{outcome.name}</strong>: Stored. The value will not be shown again.
        </p>
      ) : null}
    </section>
  );
}
