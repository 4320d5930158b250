'use client';

import { lazy, Suspense, useId, useState, type FormEvent, type MouseEvent } from 'react';
import { isFieldError } from '../../lib/errors';
import { secretExposureKeys } from '../../lib/secret-exposure-keys';
import { secretRolloutKeys } from '../../lib/secret-rollout-keys';
import { secretKeys, updateSecret, type Secret, type SecretDelivery } from '../../lib/secrets';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { TableSkeleton } from '../ui/Skeleton';
import { useValueClearedOnFailure, ValueClearedNote } from './ValueCleared';
import { BusyForm } from '../ui/Busy';

// V4's policy and rollout progress are a chunk of their own (the secrets route's first-load budget).
const SecretRotation = lazy(() => import('./SecretRotation'));
// V5/V6 likewise: the versions, the exposure matrix and the blast radius.
const SecretBlastRadius = lazy(() => import('./SecretBlastRadius'));
const SecretVersions = lazy(() => import('./SecretVersions'));

export function RotateSecretPanel({
  namespaceId,
  secret,
  onClose,
  onRedeploy,
}: {
  namespaceId: string;
  /** What the panel reads of the secret: the list's row and the secret's own page both have it. */
  secret: Pick<Secret, 'id' | 'name' | 'version'>;
  onClose: () => void;
  /** W7: opens "redeploy consumers" for this secret. */
  onRedeploy?: () => void;
}) {
  const id = useId();
  // V4: the rollout the last rotation opened (or moved), followed below the form.
  const [followRolloutId, setFollowRolloutId] = useState<string | null>(null);
  const mutation = useResultMutation({
    mutationFn: updateSecret,
    invalidate: [secretKeys.byNamespace(namespaceId), secretRolloutKeys.secret(secret.id), secretExposureKeys.secret(secret.id)],
    forgetVariables: true,
    onSuccess: (result) => {
      if (result.delivery.rollout) setFollowRolloutId(result.delivery.rollout.id);
    },
  });
  const failure = mutation.failure;
  const cleared = useValueClearedOnFailure();

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const value = String(new FormData(form).get('value') ?? '');
    cleared.submitting();
    mutation.submit({ id: secret.id, value }, { onSuccess: () => form.reset(), onFailure: () => cleared.failed(form.elements.namedItem('value') as HTMLInputElement | null) });
  }

  return (
    <div
      className="panel"
      // Escape closes the panel, as it closes a dialog; a picker inside that is open takes it first,
      // and so does a confirmation dialog opened from it.
      onKeyDown={(event) => {
        if (event.key === 'Escape' && !event.defaultPrevented && !(event.target as Element).closest('dialog')) {
          event.preventDefault();
          onClose();
        }
      }}
    >
      <BusyForm busy={mutation.pending} method="post" className="form inline-form" onSubmit={onSubmit} aria-labelledby={`${id}-title`}>
        <h3 id={`${id}-title`}>Rotate {secret.name}</h3>
        {/* V6: what the rotation touches, read before the click. */}
        <div className="full-row">
          <Suspense fallback={<TableSkeleton label="Loading what this touches…" rows={1} />}>
            <SecretBlastRadius secretId={secret.id} action="rotation" />
          </Suspense>
        </div>
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
            aria-describedby={cleared.cleared ? `${id}-value-cleared` : undefined}
            aria-invalid={isFieldError(failure, 'value') || undefined}
          />
          {cleared.cleared ? <ValueClearedNote id={`${id}-value-cleared`} /> : null}
        </div>
        <div className="button-row">
          <button type="submit" className="button primary" disabled={mutation.pending}>
            {mutation.pending ? 'Storing…' : 'Store new value'}
          </button>
          <button type="button" className="button secondary" onClick={onClose}>
            {mutation.success ? 'Close' : 'Cancel'}
          </button>
        </div>
      </BusyForm>
      <FormOutcome outcome={mutation.outcome} doing="rotate the secret">
        {(result) => <DeliveryNotice version={result.secret.version} delivery={result.delivery} onRedeploy={onRedeploy} />}
      </FormOutcome>
      <Suspense fallback={<TableSkeleton label="Loading the versions…" rows={2} />}>
        <SecretVersions secretId={secret.id} />
      </Suspense>
      <Suspense fallback={<TableSkeleton label="Loading the rotation policy…" rows={2} />}>
        <SecretRotation secretId={secret.id} followRolloutId={followRolloutId} />
      </Suspense>
    </div>
  );
}

/** Scrolls to the rollout and moves focus there; the hash link alone would not move focus in every browser. */
function followLink(event: MouseEvent<HTMLAnchorElement>, targetId: string) {
  const target = document.getElementById(targetId);
  if (!target) return;
  event.preventDefault();
  target.scrollIntoView({ block: 'start' });
  target.focus();
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
      {delivery.rollout ? (
        <p data-testid="delivery-rollout">
          Its rotation policy opened rollout <code>{delivery.rollout.id}</code>, now {delivery.rollout.state}, delivering version{' '}
          {delivery.rollout.targetVersion}.{' '}
          <a href={`#rollout-${delivery.rollout.id}`} onClick={(event) => followLink(event, `rollout-${delivery.rollout!.id}`)}>
            Follow its progress
          </a>
        </p>
      ) : delivery.staleRevisionIds.length > 0 ? (
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
