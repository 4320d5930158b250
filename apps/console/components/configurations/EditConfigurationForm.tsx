'use client';

import { useId, useMemo, useState, type FormEvent } from 'react';
import { diffBindings, diffValues } from '../../lib/config-diff';
import { configurationKeys, parseValues, updateConfiguration, type Configuration } from '../../lib/configurations';
import { isFieldError } from '../../lib/errors';
import { secretKeys } from '../../lib/secrets';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { ChangeItems } from './ChangeItems';
import { BindingsEditor, newBindingRow, toBindingInputs, type BindingRow } from './BindingsEditor';
import { BusyForm } from '../ui/Busy';

function rowsOf(configuration: Configuration): BindingRow[] {
  return configuration.secretBindings.map((binding) =>
    newBindingRow(binding.envName, { id: binding.source.id, name: binding.secret?.name ?? null }),
  );
}

/**
 * Edits against the generation that was read when the editor opened (C5): if someone saves in the
 * meantime, the API answers CONFLICT instead of silently overwriting their change.
 */
export function EditConfigurationForm({ namespaceId, configuration }: { namespaceId: string; configuration: Configuration }) {
  const id = useId();
  const [base, setBase] = useState(configuration);
  const [valuesText, setValuesText] = useState(() => JSON.stringify(configuration.values, null, 2));
  const [valuesError, setValuesError] = useState<string | null>(null);
  const [rows, setRows] = useState<BindingRow[]>(() => rowsOf(configuration));

  const mutation = useResultMutation({
    mutationFn: updateConfiguration,
    invalidate: [configurationKeys.all, secretKeys.all],
  });

  function startFrom(latest: Configuration) {
    setBase(latest);
    setValuesText(JSON.stringify(latest.values, null, 2));
    setRows(rowsOf(latest));
    setValuesError(null);
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = parseValues(valuesText);
    if (!parsed.ok) {
      setValuesError(parsed.message);
      return;
    }
    setValuesError(null);
    mutation.submit(
      { id: base.id, expectedGeneration: base.generation, values: parsed.values, secretBindings: toBindingInputs(rows) },
      { onSuccess: (result) => startFrom(result.configuration) },
    );
  }

  const failure = mutation.failure;
  const stale = configuration.generation !== base.generation;
  // Names as the bindings read and the pickers chose them: no list of every secret is loaded.
  const names = new Map<string, string>();
  for (const binding of base.secretBindings) if (binding.secret) names.set(binding.source.id, binding.secret.name);
  for (const row of rows) if (row.secret?.name) names.set(row.secret.id, row.secret.name);
  const secretName = (secretId: string | undefined) => (secretId ? (names.get(secretId) ?? secretId) : '');
  // C5: what a save would change against the generation being edited, shown before the click.
  const changes = useMemo(() => {
    const parsed = parseValues(valuesText);
    const bindings = diffBindings(
      base.secretBindings.map((b) => ({ envName: b.envName, secretId: b.source.id })),
      toBindingInputs(rows).filter((b) => b.envName !== '').map((b) => ({ envName: b.envName, secretId: b.source.id })),
    );
    return { values: parsed.ok ? diffValues(base.values, parsed.values) : null, bindings };
  }, [base, valuesText, rows]);
  const changeCount = (changes.values?.length ?? 0) + changes.bindings.length;

  return (
    <section aria-labelledby={`${id}-title`} className="card">
      <h2 id={`${id}-title`}>Edit {base.name}</h2>
      <p className="hint">
        Editing generation <strong data-testid="editing-generation">{base.generation}</strong>. Saving sends it as the
        expected generation; if someone saved a newer one, the save is refused with a conflict.
      </p>
      {stale ? (
        <div role="status" className="alert notice">
          <p>
            This configuration is now at generation {configuration.generation}; your edits are based on{' '}
            {base.generation}.
          </p>
          <button type="button" className="button secondary" onClick={() => startFrom(configuration)}>
            Discard my edits and load generation {configuration.generation}
          </button>
        </div>
      ) : null}
      <BusyForm busy={mutation.pending} method="post" className="form" onSubmit={onSubmit}>
        <fieldset disabled={mutation.pending}>
          <div className="field">
            <label htmlFor={`${id}-values`}>Values (JSON)</label>
            <textarea
              id={`${id}-values`}
              className="code"
              rows={8}
              value={valuesText}
              spellCheck={false}
              onChange={(event) => {
                setValuesText(event.target.value);
                setValuesError(null);
              }}
              aria-invalid={Boolean(valuesError) || isFieldError(failure, 'values') || undefined}
            />
            {valuesError ? (
              <p role="alert" className="alert error">
                <strong>Invalid JSON:</strong> {valuesError}
              </p>
            ) : null}
          </div>
          <BindingsEditor
            namespaceId={namespaceId}
            rows={rows}
            onChange={setRows}
            invalidField={failure?.__typename === 'ValidationError' ? failure.field : null}
          />
          <section aria-labelledby={`${id}-changes`} className="changes">
            <h3 id={`${id}-changes`}>Changes to save</h3>
            {changes.values === null ? <p className="hint">The values are not valid JSON yet.</p> : null}
            {changes.values !== null && changeCount === 0 ? (
              <p className="hint">No changes: saving records generation {base.generation + 1} with the same content.</p>
            ) : null}
            {changeCount > 0 ? (
              <ul aria-label="Changes to save">
                <ChangeItems changes={{ values: changes.values ?? [], bindings: changes.bindings }} secretName={secretName} />
              </ul>
            ) : null}
          </section>
          <button type="submit" className="button primary">
            {mutation.pending ? 'Saving…' : 'Save configuration'}
          </button>
        </fieldset>
      </BusyForm>
      <FormOutcome outcome={mutation.outcome} doing="save the configuration">
        {(result) => (
          <p role="status" className="alert success">
            Saved. Now at generation {result.configuration.generation}.
          </p>
        )}
      </FormOutcome>
    </section>
  );
}
