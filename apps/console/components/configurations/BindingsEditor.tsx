'use client';

import { useId } from 'react';
import { SecretPicker, type PickedSecret } from '../secrets/SecretPicker';

export type BindingRow = { key: number; envName: string; secret: PickedSecret | null };

let nextKey = 0;
export function newBindingRow(envName = '', secret: PickedSecret | null = null): BindingRow {
  nextKey += 1;
  return { key: nextKey, envName, secret };
}

/** The rows of envName → secret a configuration delivers to its gateway as env (never as values). */
export function BindingsEditor({
  namespaceId,
  rows,
  onChange,
  disabled,
  invalidField,
}: {
  namespaceId: string;
  rows: BindingRow[];
  onChange: (rows: BindingRow[]) => void;
  disabled?: boolean;
  /** The API's ValidationError field, e.g. "secretBindings[1].envName", to mark that row's input. */
  invalidField?: string | null;
}) {
  const invalid = (index: number, part: 'envName' | 'source') =>
    Boolean(invalidField?.includes(`secretBindings[${index}].${part}`)) || undefined;
  const id = useId();
  const update = (key: number, patch: Partial<BindingRow>) =>
    onChange(rows.map((row) => (row.key === key ? { ...row, ...patch } : row)));

  return (
    <fieldset className="bindings" disabled={disabled}>
      <legend>Secret bindings</legend>
      {rows.length === 0 ? <p className="empty">No bindings. Add a row to deliver a secret as an env variable.</p> : null}
      {rows.length > 0 ? (
        <table className="table compact">
          <caption className="visually-hidden">Secret bindings</caption>
          <thead>
            <tr>
              <th scope="col">Env name</th>
              <th scope="col">Secret</th>
              <th scope="col">
                <span className="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={row.key}>
                <td>
                  <label className="visually-hidden" htmlFor={`${id}-env-${row.key}`}>
                    Env name of binding {index + 1}
                  </label>
                  <input
                    id={`${id}-env-${row.key}`}
                    type="text"
                    value={row.envName}
                    required
                    spellCheck={false}
                    autoComplete="off"
                    placeholder="MODEL_TOKEN"
                    pattern="[A-Za-z_][A-Za-z0-9_]{0,252}"
                    aria-invalid={invalid(index, 'envName')}
                    onChange={(event) => update(row.key, { envName: event.target.value })}
                  />
                </td>
                <td>
                  <SecretPicker
                    namespaceId={namespaceId}
                    label={`Secret of binding ${index + 1}`}
                    hideLabel
                    value={row.secret}
                    onChange={(secret) => update(row.key, { secret })}
                    required
                    invalid={invalid(index, 'source')}
                  />
                </td>
                <td className="actions">
                  <button
                    type="button"
                    className="button secondary"
                    aria-label={`Remove binding ${index + 1}`}
                    onClick={() => onChange(rows.filter((r) => r.key !== row.key))}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <button type="button" className="button secondary" onClick={() => onChange([...rows, newBindingRow()])}>
        Add binding
      </button>
      <p className="hint">Type to search the namespace&apos;s secrets by name; a name that does not exist yet can be created here.</p>
    </fieldset>
  );
}

export function toBindingInputs(rows: BindingRow[]) {
  return rows.map((row) => ({ envName: row.envName.trim(), source: { id: row.secret?.id ?? '' } }));
}
