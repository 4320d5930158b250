'use client';

import Link from 'next/link';
import { useId, type FormEvent } from 'react';
import { isFieldError } from '../../lib/errors';
import { useResultMutation } from '../../lib/use-result-mutation';
import { createUser, userKeys } from '../../lib/users';
import { FormOutcome } from '../feedback/FormOutcome';
import { OneTimeKey } from './OneTimeKey';
import { BusyForm } from '../ui/Busy';

export function CreateUserForm() {
  const nameId = useId();
  const mutation = useResultMutation({
    mutationFn: createUser,
    // Cancel first so a list fetch that read before this commit cannot be the last word.
    invalidate: [userKeys.all],
    cancelFirst: true,
  });
  const failure = mutation.failure;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get('name') ?? '').trim();
    mutation.submit(name, { onSuccess: () => form.reset() });
  }

  return (
    <section aria-labelledby={`${nameId}-title`} className="card">
      <h2 id={`${nameId}-title`}>Create a user</h2>
      <BusyForm busy={mutation.pending} method="post" className="form inline-form" onSubmit={onSubmit}>
        <div className="field">
          <label htmlFor={nameId}>User name</label>
          <input
            id={nameId}
            name="name"
            type="text"
            required
            autoComplete="off"
            spellCheck={false}
            aria-invalid={isFieldError(failure, 'name') || undefined}
          />
        </div>
        <button type="submit" className="button primary" disabled={mutation.pending}>
          {mutation.pending ? 'Creating…' : 'Create user'}
        </button>
      </BusyForm>
      <FormOutcome outcome={mutation.outcome} doing="create the user">
        {(created) => (
          <>
            <OneTimeKey label={`User ${created.principal.name} created. Their API key:`} apiKey={created.apiKey} />
            <p className="hint">
              <Link href={`/users?id=${encodeURIComponent(created.principal.id)}`}>API keys of {created.principal.name}</Link>
            </p>
          </>
        )}
      </FormOutcome>
    </section>
  );
}
