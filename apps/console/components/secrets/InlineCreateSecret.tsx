'use client';

import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { isFieldError } from '../../lib/errors';
import { createSecret, secretKeys, type Secret } from '../../lib/secrets';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { useValueClearedOnFailure, ValueClearedNote } from './ValueCleared';
import { BusyButton } from '../ui/Busy';

/**
 * Creates a secret from inside another form (a configuration's binding, an agent's harness auth),
 * so choosing a secret that does not exist yet does not mean leaving that form and losing its
 * input. It is a group, not a form element: forms do not nest, and its Enter must not submit the form
 * around it. Its fields have no `name`, so the outer form's FormData never carries the value.
 * The value field is uncontrolled, as on the Secrets tab: the value never reaches React state or
 * a DOM attribute, and the field is emptied once the secret is stored.
 */
export function InlineCreateSecret({
  namespaceId,
  initialName,
  onCreated,
  onCancel,
}: {
  namespaceId: string;
  initialName: string;
  onCreated: (secret: Pick<Secret, 'id' | 'name' | 'version'>) => void;
  onCancel: () => void;
}) {
  const id = useId();
  const [name, setName] = useState(initialName);
  const [missingValue, setMissingValue] = useState(false);
  const valueField = useRef<HTMLInputElement>(null);
  const mutation = useResultMutation({
    mutationFn: createSecret,
    invalidate: [secretKeys.byNamespace(namespaceId)],
    // The variables hold the value.
    forgetVariables: true,
  });
  const failure = mutation.failure;
  const cleared = useValueClearedOnFailure();

  // The name is filled in from what was typed in the picker: the value is what is left to enter.
  useEffect(() => {
    valueField.current?.focus();
  }, []);

  function create() {
    const value = valueField.current?.value ?? '';
    if (value === '') {
      setMissingValue(true);
      valueField.current?.focus();
      return;
    }
    setMissingValue(false);
    cleared.submitting();
    mutation.submit(
      { namespaceId, name: name.trim(), value },
      {
        onSuccess: (result) => {
          if (valueField.current) valueField.current.value = '';
          onCreated(result.secret);
        },
        onFailure: () => cleared.failed(valueField.current),
      },
    );
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'Enter') {
      event.preventDefault();
      if (!mutation.pending) create();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onCancel();
    }
  }

  return (
    <div role="group" aria-labelledby={`${id}-title`} className="inline-create" data-testid="inline-create-secret">
      <p id={`${id}-title`} className="inline-create-title">
        New secret in this namespace
      </p>
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          type="text"
          value={name}
          onChange={(event) => setName(event.target.value)}
          onKeyDown={onKeyDown}
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
          ref={valueField}
          id={`${id}-value`}
          type="password"
          className="secret-value"
          autoComplete="new-password"
          spellCheck={false}
          onKeyDown={onKeyDown}
          aria-describedby={`${id}-value-hint${missingValue ? ` ${id}-value-missing` : ''}${cleared.cleared ? ` ${id}-value-cleared` : ''}`}
          aria-invalid={missingValue || isFieldError(failure, 'value') || undefined}
        />
        <p id={`${id}-value-hint`} className="hint">
          Masked while you type; it goes to the namespace&apos;s Kubernetes Secret and is never shown again.
        </p>
        {cleared.cleared ? <ValueClearedNote id={`${id}-value-cleared`} /> : null}
        {missingValue ? (
          <p id={`${id}-value-missing`} role="alert" className="alert error inline">
            Enter the secret&apos;s value.
          </p>
        ) : null}
      </div>
      <div className="button-row">
        <BusyButton type="button" className="button primary" busy={mutation.pending} onClick={create}>
          {mutation.pending ? 'Storing…' : 'Create and choose'}
        </BusyButton>
        <button type="button" className="button secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <FormOutcome outcome={mutation.outcome} doing="create the secret" focus={mutation.outcome?.kind !== 'success'} />
    </div>
  );
}
