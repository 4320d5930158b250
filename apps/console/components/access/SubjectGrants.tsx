'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { subjectAccessBindingsQueryOptions } from '../../lib/access';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { AccessBindingsTable } from './AccessBindingsTable';

/** Every grant one principal holds that the caller may read, wherever its scope. */
export function SubjectGrants({ initialSubjectId, names }: { initialSubjectId: string; names: ReadonlyMap<string, string> }) {
  const id = useId();
  const [subjectId, setSubjectId] = useState(initialSubjectId);
  const bindings = useQuery({ ...subjectAccessBindingsQueryOptions(subjectId), enabled: subjectId !== '' });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubjectId(String(new FormData(event.currentTarget).get('subjectId') ?? '').trim());
  }

  return (
    <section aria-labelledby={`${id}-title`} className="section">
      <h2 id={`${id}-title`}>Grants of one principal</h2>
      <form method="post" className="form inline-form" onSubmit={onSubmit}>
        <div className="field">
          <label htmlFor={`${id}-subject`}>Principal ID</label>
          <input
            id={`${id}-subject`}
            name="subjectId"
            list="principal-options"
            type="text"
            defaultValue={initialSubjectId}
            autoComplete="off"
            spellCheck={false}
            required
          />
        </div>
        <button type="submit" className="button secondary">
          Show grants
        </button>
      </form>
      {bindings.error ? <QueryErrorAlert error={bindings.error} what="the grants" /> : null}
      {subjectId && bindings.isPending ? <p role="status">Loading grants…</p> : null}
      {subjectId && bindings.data ? (
        <AccessBindingsTable
          bindings={bindings.data}
          caption={`Grants of ${subjectId}`}
          names={names}
          revocable
          empty={`No grants of ${subjectId} that you may see.`}
        />
      ) : null}
    </section>
  );
}
