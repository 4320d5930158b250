'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, type FormEvent } from 'react';
import { isFieldError } from '../../lib/errors';
import { createUser, userKeys } from '../../lib/users';
import { MutationErrorAlert } from '../feedback/MutationErrorAlert';
import { OneTimeKey } from './OneTimeKey';

export function CreateUserForm() {
  const queryClient = useQueryClient();
  const nameId = useId();
  const mutation = useMutation({
    mutationFn: createUser,
    onSuccess: async (result) => {
      if (result.__typename !== 'CreateUserSuccess') return;
      // Cancel first so a list fetch that read before this commit cannot be the last word.
      await queryClient.cancelQueries({ queryKey: userKeys.all });
      await queryClient.invalidateQueries({ queryKey: userKeys.all });
    },
  });

  const result = mutation.data;
  const failure = result && result.__typename !== 'CreateUserSuccess' ? result : null;
  const created = result?.__typename === 'CreateUserSuccess' ? result : null;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get('name') ?? '').trim();
    mutation.mutate(name, {
      onSuccess: (r) => {
        if (r.__typename === 'CreateUserSuccess') form.reset();
      },
    });
  }

  return (
    <section aria-labelledby={`${nameId}-title`} className="card">
      <h2 id={`${nameId}-title`}>Create a user</h2>
      <form method="post" className="form inline-form" onSubmit={onSubmit}>
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
        <button type="submit" className="button primary" disabled={mutation.isPending}>
          {mutation.isPending ? 'Creating…' : 'Create user'}
        </button>
      </form>
      {failure ? <MutationErrorAlert error={failure} /> : null}
      {mutation.error ? (
        <p role="alert" className="alert error">
          <strong>Could not create the user:</strong> {mutation.error.message}
        </p>
      ) : null}
      {created ? (
        <>
          <OneTimeKey label={`User ${created.principal.name} created. Their API key:`} apiKey={created.apiKey} />
          <p className="hint">
            <Link href={`/users?id=${encodeURIComponent(created.principal.id)}`}>API keys of {created.principal.name}</Link>
          </p>
        </>
      ) : null}
    </section>
  );
}
