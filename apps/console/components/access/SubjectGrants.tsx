'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { subjectAccessBindingsQueryOptions } from '../../lib/access';
import { usePaging } from '../../lib/paging';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { Pager } from '../ui/ListControls';
import { TableSkeleton } from '../ui/Skeleton';
import { AccessBindingsTable } from './AccessBindingsTable';
import { SubjectPicker, type PrincipalOption } from './SubjectPicker';

/** Every grant one principal holds that the caller may read, wherever its scope. */
export function SubjectGrants({
  initialSubjectId,
  names,
  principals,
}: {
  initialSubjectId: string;
  names: ReadonlyMap<string, string>;
  principals: PrincipalOption[];
}) {
  const id = useId();
  const [subjectId, setSubjectId] = useState(initialSubjectId);
  const paging = usePaging();
  const bindings = useQuery({ ...subjectAccessBindingsQueryOptions(subjectId, paging.args), enabled: subjectId !== '' });
  const who = names.get(subjectId) ?? subjectId;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubjectId(String(new FormData(event.currentTarget).get('subjectId') ?? '').trim());
    paging.search('');
  }

  return (
    <section aria-labelledby={`${id}-title`} className="section">
      <h2 id={`${id}-title`}>Grants of one principal</h2>
      <form method="post" className="form inline-form" onSubmit={onSubmit}>
        <SubjectPicker label="Principal ID" name="subjectId" principals={principals} initialValue={initialSubjectId} required />
        <button type="submit" className="button secondary">
          Show grants
        </button>
      </form>
      {bindings.error ? <QueryErrorAlert error={bindings.error} what="the grants" retry={() => bindings.refetch()} /> : null}
      {subjectId && bindings.isPending ? <TableSkeleton label="Loading grants…" /> : null}
      {subjectId && bindings.data ? (
        <>
          <AccessBindingsTable
            bindings={bindings.data.items}
            caption={`Grants of ${subjectId}`}
            names={names}
            revocable
            empty={`No grants of ${who} that you may see.`}
          />
          <Pager paging={paging} page={bindings.data} noun="grants" />
        </>
      ) : null}
    </section>
  );
}
