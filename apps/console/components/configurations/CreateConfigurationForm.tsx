'use client';

import Link from 'next/link';
import { useId, useState, type FormEvent } from 'react';
import { configurationKeys, createConfiguration, parseValues } from '../../lib/configurations';
import { isFieldError } from '../../lib/errors';
import type { Namespace } from '../../lib/namespaces';
import { secretKeys } from '../../lib/secrets';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { namespaceHref } from '../../lib/namespace-links';
import { BindingsEditor, toBindingInputs, type BindingRow } from './BindingsEditor';
import { BusyForm } from '../ui/Busy';

export function CreateConfigurationForm({ namespace }: { namespace: Pick<Namespace, 'id' | 'name'> }) {
  const id = useId();
  const [name, setName] = useState('');
  const [valuesText, setValuesText] = useState('{}');
  const [valuesError, setValuesError] = useState<string | null>(null);
  const [rows, setRows] = useState<BindingRow[]>([]);

  const mutation = useResultMutation({
    mutationFn: createConfiguration,
    // Secrets gain a consumer when a configuration binds them.
    invalidate: [configurationKeys.all, secretKeys.all],
  });
  const failure = mutation.failure;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = parseValues(valuesText);
    if (!parsed.ok) {
      setValuesError(parsed.message);
      return;
    }
    setValuesError(null);
    mutation.submit(
      { namespaceId: namespace.id, name: name.trim(), values: parsed.values, secretBindings: toBindingInputs(rows) },
      {
        onSuccess: () => {
          setName('');
          setValuesText('{}');
          setRows([]);
        },
      },
    );
  }

  return (
    <section aria-labelledby={`${id}-title`} className="card">
      <h2 id={`${id}-title`}>Create a configuration</h2>
      <BusyForm busy={mutation.pending} method="post" className="form" onSubmit={onSubmit}>
        <fieldset disabled={mutation.pending}>
          <div className="field">
            <label htmlFor={`${id}-name`}>Configuration name</label>
            <input
              id={`${id}-name`}
              type="text"
              value={name}
              onChange={(event) => setName(event.target.value)}
              required
              autoComplete="off"
              spellCheck={false}
              maxLength={63}
              aria-invalid={isFieldError(failure, 'name') || undefined}
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-values`}>Values (JSON)</label>
            <textarea
              id={`${id}-values`}
              className="code"
              rows={6}
              value={valuesText}
              spellCheck={false}
              onChange={(event) => {
                setValuesText(event.target.value);
                setValuesError(null);
              }}
              aria-describedby={`${id}-values-hint${valuesError ? ` ${id}-values-error` : ''}`}
              aria-invalid={Boolean(valuesError) || isFieldError(failure, 'values') || undefined}
            />
            <p id={`${id}-values-hint`} className="hint">
              The native OpenClaw document, a JSON object. References only: put credentials in secrets and refer to them
              as <code>{'{"source": "env", "provider": "…", "id": "ENV_NAME"}'}</code> with a binding below.
            </p>
            {valuesError ? (
              <p id={`${id}-values-error`} role="alert" className="alert error">
                <strong>Invalid JSON:</strong> {valuesError}
              </p>
            ) : null}
          </div>
          <BindingsEditor
            namespaceId={namespace.id}
            rows={rows}
            onChange={setRows}
            invalidField={failure?.__typename === 'ValidationError' ? failure.field : null}
          />
          <button type="submit" className="button primary">
            {mutation.pending ? 'Creating…' : 'Create configuration'}
          </button>
        </fieldset>
      </BusyForm>
      <FormOutcome outcome={mutation.outcome} doing="create the configuration">
        {(result) => (
          <p role="status" className="alert success">
            Configuration <strong>{result.configuration.name}</strong> created.{' '}
            <Link href={namespaceHref('configurations', namespace.id, { id: result.configuration.id })}>Open it</Link>
          </p>
        )}
      </FormOutcome>
    </section>
  );
}
