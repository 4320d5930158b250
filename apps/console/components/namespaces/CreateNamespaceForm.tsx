'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { isFieldError } from '../../lib/errors';
import { createNamespace, namespaceKeys, namespacesQueryOptions, type Namespace } from '../../lib/namespaces';
import { MutationErrorAlert } from '../feedback/MutationErrorAlert';

export function CreateNamespaceForm() {
  const queryClient = useQueryClient();
  const nameId = useId();
  const hintId = useId();
  const [created, setCreated] = useState<Namespace | null>(null);

  const mutation = useMutation({
    mutationFn: createNamespace,
    onSuccess: async (result) => {
      if (result.__typename !== 'CreateNamespaceSuccess') return;
      setCreated(result.namespace);
      // A list fetch already in flight (the page's first load, or a poll) may have read the table
      // before this create committed. invalidateQueries would not replace it: when the list has no
      // data yet, TanStack Query hands the invalidation that in-flight fetch instead of starting a
      // new one, so its stale answer (without the new row, nothing PROVISIONING, so no polling)
      // would stay. Cancel it first; the invalidation below then fetches after the commit.
      await queryClient.cancelQueries({ queryKey: namespaceKeys.all });
      // Show the new row at once, as the server answered it (PROVISIONING); polling takes it from there.
      queryClient.setQueryData(namespacesQueryOptions().queryKey, (list) =>
        list && !list.namespaces.some((ns) => ns.id === result.namespace.id)
          ? { ...list, namespaces: [...list.namespaces, result.namespace] }
          : list,
      );
      await queryClient.invalidateQueries({ queryKey: namespaceKeys.all });
    },
  });

  const failure = mutation.data && mutation.data.__typename !== 'CreateNamespaceSuccess' ? mutation.data : null;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get('name') ?? '').trim();
    setCreated(null);
    mutation.mutate(name, {
      onSuccess: (result) => {
        if (result.__typename === 'CreateNamespaceSuccess') form.reset();
      },
    });
  }

  return (
    <section aria-labelledby={`${nameId}-title`} className="card">
      <h2 id={`${nameId}-title`}>Create a namespace</h2>
      <form method="post" className="form inline-form" onSubmit={onSubmit}>
        <div className="field">
          <label htmlFor={nameId}>Name</label>
          <input
            id={nameId}
            name="name"
            type="text"
            required
            autoComplete="off"
            spellCheck={false}
            maxLength={40}
            aria-describedby={hintId}
            aria-invalid={isFieldError(failure, 'name') || undefined}
          />
          <p id={hintId} className="hint">
            Lowercase letters, digits and dashes; up to 40 characters.
          </p>
        </div>
        <button type="submit" className="button primary" disabled={mutation.isPending}>
          {mutation.isPending ? 'Creating…' : 'Create namespace'}
        </button>
      </form>
      {failure ? <MutationErrorAlert error={failure} /> : null}
      {mutation.error ? (
        <p role="alert" className="alert error">
          <strong>Could not create the namespace:</strong> {mutation.error.message}
        </p>
      ) : null}
      {created ? (
        <p role="status" className="alert success">
          Namespace <strong>{created.name}</strong> created.
        </p>
      ) : null}
    </section>
  );
}
