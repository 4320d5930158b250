'use client';

import type { QueryKey } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { MutationError } from '../../lib/errors';
import { isFieldError } from '../../lib/errors';
import { setSecretRotationPolicy, type PolicyInput, type RotationPolicy, type SecretRotation } from '../../lib/secret-rollouts';
import { secretRolloutKeys } from '../../lib/secret-rollout-keys';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { NotAllowedButton, notAllowedReason } from '../ui/NotAllowedButton';
import { BusyForm } from '../ui/Busy';

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
      {rotation.viewerCan.administer ? (
        <button
          type="button"
          className="button secondary"
          aria-expanded={editing}
          aria-controls={editing ? `${id}-editor` : undefined}
          onClick={() => setEditing((open) => !open)}
        >
          Edit rotation policy
        </button>
      ) : (
        <NotAllowedButton label="Edit rotation policy" reason={notAllowedReason(rotation.name, 'set the rotation policy of', 'administer', 'secret')}>
          Edit rotation policy
        </NotAllowedButton>
      )}
      {editing && rotation.viewerCan.administer ? (
        <div id={`${id}-editor`}>
          <PolicyForm
            title="This secret’s rotation policy"
            followLabel="Follow the namespace default"
            ownLabel="Its own policy"
            current={policy}
            hasOwn={policy.source === 'SECRET'}
            mutationFn={(input: PolicyInput | null) => setSecretRotationPolicy({ secretId: rotation.id, policy: input })}
            invalidate={[secretRolloutKeys.secret(rotation.id)]}
          />
        </div>
      ) : null}
    </section>
  );
}

/** The defaults a policy form starts from when nothing is set (the API's defaults). */
const DEFAULT_POLICY: Omit<RotationPolicy, 'source'> = { mode: 'MANUAL', batchSize: 10, pauseSeconds: 30, readySeconds: 300, approval: 'NONE' };

type PolicyResult = { __typename: string; policy?: Omit<RotationPolicy, 'source'> | null };

/**
 * One form for a secret's own policy and a namespace's default: "follow" (null: the namespace
 * default, or manual for a namespace) or a policy of its own. Refusals name the field.
 */
export function PolicyForm<R extends PolicyResult>({
  title,
  followLabel,
  ownLabel,
  current,
  hasOwn,
  mutationFn,
  invalidate,
}: {
  title: string;
  followLabel: string;
  ownLabel: string;
  current: Omit<RotationPolicy, 'source'> | null;
  hasOwn: boolean;
  mutationFn: (policy: PolicyInput | null) => Promise<R>;
  invalidate: QueryKey[];
}) {
  const id = useId();
  const start = current ?? DEFAULT_POLICY;
  const [own, setOwn] = useState(hasOwn);
  const [mode, setMode] = useState<RotationPolicy['mode']>(start.mode);
  const mutation = useResultMutation({ mutationFn, invalidate });
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
    mutation.submit(policy);
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
    <BusyForm busy={mutation.pending} method="post" className="form" onSubmit={onSubmit} aria-labelledby={`${id}-title`}>
      <h5 id={`${id}-title`}>{title}</h5>
      <fieldset className="choices" disabled={mutation.pending}>
        <legend>Policy</legend>
        <label className="checkbox">
          <input type="radio" name="own" checked={!own} onChange={() => setOwn(false)} /> {followLabel}
        </label>
        <label className="checkbox">
          <input type="radio" name="own" checked={own} onChange={() => setOwn(true)} /> {ownLabel}
        </label>
      </fieldset>
      {own ? (
        <fieldset className="choices" disabled={mutation.pending}>
          <legend>{ownLabel}</legend>
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
              {numberField('batchSize', 'Batch size', 'Agents redeployed at once.', start.batchSize)}
              {numberField('pauseSeconds', 'Pause (seconds)', 'After the last rotation and after each batch.', start.pauseSeconds)}
              {numberField('readySeconds', 'Ready deadline (seconds)', 'A batch not Ready in time is rolled back.', start.readySeconds)}
              <div className="field">
                <label htmlFor={`${id}-approval`}>Approval</label>
                <select
                  id={`${id}-approval`}
                  name="approval"
                  defaultValue={start.approval}
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
            Saved. {result.policy ? `In effect: ${describePolicy(result.policy)}` : 'No default: manual.'}
          </p>
        )}
      </FormOutcome>
    </BusyForm>
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
