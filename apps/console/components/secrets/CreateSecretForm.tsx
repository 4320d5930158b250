'use client';

import { useId, type FormEvent } from 'react';
import { isFieldError } from '../../lib/errors';
import type { Namespace } from '../../lib/namespaces';
import { createSecret, secretKeys } from '../../lib/secrets';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { useValueClearedOnFailure, ValueClearedNote } from './ValueCleared';
import { BusyForm } from '../ui/Busy';

export function CreateSecretForm({ namespace }: { namespace: Pick<Namespace, 'id' | 'name' | 'status'> }) {
  const id = useId();
  const ready = namespace.status === 'READY';
  const mutation = useResultMutation({
    mutationFn: createSecret,
    invalidate: [secretKeys.byNamespace(namespace.id)],
    // Forget the mutation's variables, which include the value.
    forgetVariables: true,
  });
  const failure = mutation.failure;
  const value = useValueClearedOnFailure();

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const fields = new FormData(form);
    const name = String(fields.get('name') ?? '').trim();
    // The value field is uncontrolled, so the value never reaches React state or the DOM
    // attributes; clearing it on success (the form) or failure (the field) drops the last copy the page holds.
    value.submitting();
    mutation.submit(
      { namespaceId: namespace.id, name, value: String(fields.get('value') ?? '') },
      { onSuccess: () => form.reset(), onFailure: () => value.failed(form.elements.namedItem('value') as HTMLInputElement | null) },
    );
  }

  return (
    <section aria-labelledby={`${id}-title`} className="card">
      <h2 id={`${id}-title`}>Create a secret</h2>
      {!ready ? (
        <p id={`${id}-not-ready`} className="alert notice">
          Secrets can be created once the namespace is READY; it is {namespace.status} now.
          {namespace.status === 'PROVISIONING' ? ' This page updates by itself.' : null}
        </p>
      ) : null}
      <BusyForm busy={mutation.pending} method="post" className="form" onSubmit={onSubmit}>
        <fieldset disabled={!ready || mutation.pending} aria-describedby={!ready ? `${id}-not-ready` : undefined}>
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
              aria-describedby={`${id}-value-hint${value.cleared ? ` ${id}-value-cleared` : ''}`}
              aria-invalid={isFieldError(failure, 'value') || undefined}
            />
            <p id={`${id}-value-hint`} className="hint">
              Masked while you type; up to 64 KiB. It goes to the namespace&apos;s Kubernetes Secret and is never shown again.
            </p>
            {value.cleared ? <ValueClearedNote id={`${id}-value-cleared`} /> : null}
          </div>
          <button type="submit" className="button primary">
            {mutation.pending ? 'Storing…' : 'Create secret'}
          </button>
        </fieldset>
      </BusyForm>
      <FormOutcome outcome={mutation.outcome} doing="create the secret">
        {(result) => (
          <p role="status" className="alert success">
            Secret <strong>{result.secret.name}</strong>: Stored. The value will not be shown again.
          </p>
        )}
      </FormOutcome>
    </section>
  );
}
