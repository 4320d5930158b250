'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useId, type FormEvent } from 'react';
import { safeNext, signIn } from '../../lib/session';
import { BusyForm } from '../ui/Busy';

export function SignInForm() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const keyId = useId();
  const hintId = useId();

  const mutation = useMutation({
    mutationFn: signIn,
    onSuccess: () => {
      // Nothing cached under another principal may leak into this session.
      queryClient.removeQueries();
      // Back to the page that sent here (a deep link), never to another origin.
      router.push(safeNext(new URLSearchParams(window.location.search).get('next')));
    },
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const apiKey = String(new FormData(form).get('apiKey') ?? '').trim();
    if (apiKey) mutation.mutate(apiKey);
  }

  return (
    <BusyForm busy={mutation.isPending || mutation.isSuccess} method="post" className="card form narrow" onSubmit={onSubmit} aria-labelledby={`${keyId}-title`}>
      <h1 id={`${keyId}-title`}>Sign in</h1>
      <div className="field">
        <label htmlFor={keyId}>API key</label>
        <input
          id={keyId}
          name="apiKey"
          type="password"
          autoComplete="off"
          spellCheck={false}
          required
          aria-describedby={hintId}
          aria-invalid={mutation.isError || undefined}
        />
        <p id={hintId} className="hint">
          Starts with <code>occ_</code>. <code>npm start</code> prints the bootstrap key once.
        </p>
      </div>
      {mutation.error ? (
        <p role="alert" className="alert error">
          <strong>Sign-in failed.</strong> {mutation.error.message}
        </p>
      ) : null}
      <button type="submit" className="button primary" disabled={mutation.isPending || mutation.isSuccess}>
        {mutation.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </BusyForm>
  );
}
