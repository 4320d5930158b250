'use client';

import { useId, useState, type FormEvent } from 'react';
import type { MutationError } from '../../lib/errors';
import { isFieldError } from '../../lib/errors';
import { setSecretRotationPolicy, type PolicyInput, type RotationPolicy, type SecretRotation } from '../../lib/secret-rollouts';
import { secretRolloutKeys } from '../../lib/secret-rollout-keys';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';

const SOURCE_WORDS: Record<NonNullable<RotationPolicy['source']>, string> = {
  SECRET: 'this secret’s own policy',
  NAMESPACE: 'the namespace default',
  DEFAULT: 'the default (no namespace default is set)',
};

const APPROVAL_WORDS: Record<RotationPolicy['approval'], string> = {
  NONE: 'none',
  ANY_ADMINISTRATOR: 'any administrator',
  OTHER_ADMINISTRATOR: 'an administrator other than the rotator',
};

/** "AUTOMATIC: batches of 1, 3 s pause, Ready within 5 s, approval by …". */
export function describePolicy(policy: Omit<RotationPolicy, 'source'>): string {
  if (policy.mode === 'MANUAL') return 'MANUAL: a rotation is stored, not delivered (redeploy consumers yourself).';
  return `AUTOMATIC: batches of ${policy.batchSize}, ${policy.pauseSeconds} s pause, Ready within ${policy.readySeconds} s, approval: ${APPROVAL_WORDS[policy.approval]}.`;
}

/**
 * V4: the policy a rotation of this secret follows and where it comes from, and an editor for the
 * secret's own policy; "Follow the namespace default" clears it. Refusals name the field the API
 * names (INVALID_ROTATION_POLICY, field policy.batchSize …).
 */
export function RotationPolicyEditor({ rotation }: { rotation: SecretRotation }) {
  const id = useId();
  const [editing, setEditing] = useState(false);
  const policy = rotation.rotationPolicy;
  const source = policy.source ?? 'DEFAULT';

  return (
    <section className="section" aria-labelledby={`${id}-title`} data-testid="rotation-policy">
      <h4 id={`${id}-title`}>Rotation policy</h4>
      <dl className="facts">
        <dt>In effect</dt>
        <dd data-testid="policy-in-effect">{describePolicy(policy)}</dd>
        <dt>From</dt>
        <dd data-testid="policy-source">{SOURCE_WORDS[source]}</dd>
        {source !== 'NAMESPACE' ? (
          <>
            <dt>Namespace default</dt>
            <dd>{rotation.namespace.secretRotationPolicy ? describePolicy(rotation.namespace.secretRotationPolicy) : 'none (manual)'}</dd>
          </>
        ) : null}
      </dl>
      <button
        type="button"
        className="button secondary"
        aria-expanded={editing}
        aria-controls={editing ? `${id}-editor` : undefined}
        onClick={() => setEditing((open) => !open)}
      >
        Edit rotation policy
      </button>
      {editing ? (
        <div id={`${id}-editor`}>
          <PolicyForm rotation={rotation} />
        </div>
      ) : null}
    </section>
  );
}

function PolicyForm({ rotation }: { rotation: SecretRotation }) {
  const id = useId();
  const current = rotation.rotationPolicy;
  const [own, setOwn] = useState(current.source === 'SECRET');
  const [mode, setMode] = useState<RotationPolicy['mode']>(current.mode);
  const mutation = useResultMutation({
    mutationFn: setSecretRotationPolicy,
    invalidate: [secretRolloutKeys.secret(rotation.id)],
  });
  const failure = mutation.failure;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const number = (name: string) => {
      const text = String(data.get(name) ?? '').trim();
      return text === '' ? undefined : Number(text);
    };
    const policy: PolicyInput | null = own
      ? mode === 'MANUAL'
        ? { mode }
        : {
            mode,
            batchSize: number('batchSize'),
            pauseSeconds: number('pauseSeconds'),
            readySeconds: number('readySeconds'),
            approval: String(data.get('approval')) as RotationPolicy['approval'],
          }
      : null;
    mutation.submit({ secretId: rotation.id, policy });
  }

  const numberField = (name: 'batchSize' | 'pauseSeconds' | 'readySeconds', label: string, hint: string, value: number) => (
    <div className="field">
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input
        id={`${id}-${name}`}
        name={name}
        type="number"
        inputMode="numeric"
        step={1}
        defaultValue={value}
        required
        aria-invalid={isFieldError(failure, name) || undefined}
        aria-describedby={`${id}-${name}-hint${isFieldError(failure, name) ? ` ${id}-${name}-error` : ''}`}
      />
      <span className="hint" id={`${id}-${name}-hint`}>
        {hint}
      </span>
      <FieldError id={`${id}-${name}-error`} failure={failure} field={name} />
    </div>
  );

  return (
    <form method="post" className="form" onSubmit={onSubmit} aria-labelledby={`${id}-title`}>
      <h5 id={`${id}-title`}>This secret’s rotation policy</h5>
      <fieldset className="choices" disabled={mutation.pending}>
        <legend>Policy</legend>
        <label className="checkbox">
          <input type="radio" name="own" checked={!own} onChange={() => setOwn(false)} /> Follow the namespace default
        </label>
        <label className="checkbox">
          <input type="radio" name="own" checked={own} onChange={() => setOwn(true)} /> Its own policy
        </label>
      </fieldset>
      {own ? (
        <fieldset className="choices" disabled={mutation.pending}>
          <legend>Its own policy</legend>
          <div className="field">
            <label htmlFor={`${id}-mode`}>Mode</label>
            <select
              id={`${id}-mode`}
              name="mode"
              value={mode}
              onChange={(event) => setMode(event.target.value as RotationPolicy['mode'])}
              aria-invalid={isFieldError(failure, 'mode') || undefined}
            >
              <option value="MANUAL">MANUAL: store only</option>
              <option value="AUTOMATIC">AUTOMATIC: roll out in batches</option>
            </select>
            <FieldError id={`${id}-mode-error`} failure={failure} field="mode" />
          </div>
          {mode === 'AUTOMATIC' ? (
            <>
              {numberField('batchSize', 'Batch size', 'Agents redeployed at once.', current.batchSize)}
              {numberField('pauseSeconds', 'Pause (seconds)', 'After the last rotation and after each batch.', current.pauseSeconds)}
              {numberField('readySeconds', 'Ready deadline (seconds)', 'A batch not Ready in time is rolled back.', current.readySeconds)}
              <div className="field">
                <label htmlFor={`${id}-approval`}>Approval</label>
                <select
                  id={`${id}-approval`}
                  name="approval"
                  defaultValue={current.approval}
                  aria-invalid={isFieldError(failure, 'approval') || undefined}
                >
                  <option value="NONE">None</option>
                  <option value="ANY_ADMINISTRATOR">Any administrator</option>
                  <option value="OTHER_ADMINISTRATOR">An administrator other than the rotator</option>
                </select>
                <FieldError id={`${id}-approval-error`} failure={failure} field="approval" />
              </div>
            </>
          ) : null}
        </fieldset>
      ) : null}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={mutation.pending}>
          {mutation.pending ? 'Saving…' : 'Save rotation policy'}
        </button>
      </div>
      <FormOutcome outcome={mutation.outcome} doing="save the rotation policy">
        {(result) => (
          <p role="status" className="alert success" data-testid="policy-saved">
            Saved. In effect: {describePolicy(result.policy)}
          </p>
        )}
      </FormOutcome>
    </form>
  );
}

function FieldError({ id, failure, field }: { id: string; failure: MutationError | null; field: string }) {
  if (!failure || !isFieldError(failure, field)) return null;
  return (
    <span id={id} className="field-error" data-testid={`field-error-${field}`}>
      {failure.message}
    </span>
  );
}
