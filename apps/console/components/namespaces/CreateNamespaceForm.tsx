'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useId, type FormEvent } from 'react';
import { isFieldError } from '../../lib/errors';
import { createNamespace, namespaceKeys, namespacesQueryOptions } from '../../lib/namespaces';
import type { PageArgs } from '../../lib/paging';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { BusyForm } from '../ui/Busy';

export function CreateNamespaceForm({ listArgs }: { listArgs: PageArgs }) {
  const queryClient = useQueryClient();
  const nameId = useId();
  const hintId = useId();

  const mutation = useResultMutation({
    mutationFn: createNamespace,
    // A list fetch already in flight (the page's first load, or a poll) may have read the table
    // before this create committed. invalidateQueries would not replace it: when the list has no
    // data yet, TanStack Query hands the invalidation that in-flight fetch instead of starting a
    // new one, so its stale answer (without the new row, nothing PROVISIONING, so no polling)
    // would stay. Cancel it first; the invalidation then fetches after the commit.
    invalidate: [namespaceKeys.all],
    cancelFirst: true,
    onSuccess: async (result) => {
      await queryClient.cancelQueries({ queryKey: namespaceKeys.all });
      // Show the new row at once, as the server answered it (PROVISIONING); polling takes it from there.
      queryClient.setQueryData(namespacesQueryOptions(listArgs).queryKey, (page) =>
        page && !page.items.some((ns) => ns.id === result.namespace.id)
          ? { ...page, items: [...page.items, result.namespace], totalCount: page.totalCount + 1 }
          : page,
      );
    },
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
      <h2 id={`${nameId}-title`}>Create a namespace</h2>
      <BusyForm busy={mutation.pending} method="post" className="form inline-form" onSubmit={onSubmit}>
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
        <button type="submit" className="button primary" disabled={mutation.pending}>
          {mutation.pending ? 'Creating…' : 'Create namespace'}
        </button>
      </BusyForm>
      <FormOutcome outcome={mutation.outcome} doing="create the namespace">
        {(result) => (
          <p role="status" className="alert success">
            Namespace <strong>{result.namespace.name}</strong> created.
          </p>
        )}
      </FormOutcome>
    </section>
  );
}
