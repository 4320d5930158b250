'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { accessKeys, describeScope, grantAccess, rolesQueryOptions, type AccessScopeInput, type GrantAccessResult } from '../../lib/access';
import { agentKeys } from '../../lib/agents';
import { isFieldError } from '../../lib/errors';
import type { Secret } from '../../lib/secrets';
import { MutationErrorAlert } from '../feedback/MutationErrorAlert';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';

type Outcome =
  | { kind: 'granted'; created: boolean; text: string }
  | { kind: 'failed'; result: Exclude<GrantAccessResult, { __typename: 'GrantAccessSuccess' }> }
  | { kind: 'error'; message: string };

/** A2: give a subject a role on the whole namespace or on exactly one of its secrets. */
export function GrantAccessForm({
  namespaceId,
  secrets,
  names,
  initialSubjectId,
}: {
  namespaceId: string;
  secrets: Pick<Secret, 'id' | 'name'>[];
  names: ReadonlyMap<string, string>;
  initialSubjectId: string;
}) {
  const queryClient = useQueryClient();
  const id = useId();
  const roles = useQuery(rolesQueryOptions(namespaceId));
  const [scopeKind, setScopeKind] = useState<'NAMESPACE' | 'RESOURCE'>('NAMESPACE');
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const mutation = useMutation({
    mutationFn: grantAccess,
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: accessKeys.all });
      await queryClient.invalidateQueries({ queryKey: agentKeys.all });
    },
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const fields = new FormData(event.currentTarget);
    const subjectId = String(fields.get('subjectId') ?? '').trim();
    const roleId = String(fields.get('roleId') ?? '');
    const scope: AccessScopeInput =
      scopeKind === 'NAMESPACE'
        ? { kind: 'NAMESPACE', namespaceId }
        : { kind: 'RESOURCE', namespaceId, resourceKind: 'secret', resourceId: String(fields.get('secretId') ?? '') };
    setOutcome(null);
    mutation.mutate(
      { subjectId, roleId, scope },
      {
        onSuccess: (result) => {
          if (result.__typename === 'GrantAccessSuccess') {
            const b = result.binding;
            setOutcome({
              kind: 'granted',
              created: result.created,
              text: `${b.role.name} to ${b.subject.name} (${b.subject.id}) on ${describeScope(b.scope, names)}`,
            });
          } else {
            setOutcome({ kind: 'failed', result });
          }
        },
        onError: (error) => setOutcome({ kind: 'error', message: error.message }),
      },
    );
  }

  const failure = outcome?.kind === 'failed' ? outcome.result : null;

  return (
    <section aria-labelledby={`${id}-title`} className="card">
      <h2 id={`${id}-title`}>Grant access</h2>
      {roles.error ? <QueryErrorAlert error={roles.error} what="the roles" /> : null}
      <form method="post" className="form" onSubmit={onSubmit}>
        <fieldset disabled={mutation.isPending}>
          <div className="grid-2">
            <div className="field">
              <label htmlFor={`${id}-subject`}>Subject ID</label>
              <input
                id={`${id}-subject`}
                name="subjectId"
              list="principal-options"
                type="text"
                required
                defaultValue={initialSubjectId}
                autoComplete="off"
                spellCheck={false}
                placeholder="spn_… or usr_…"
                aria-invalid={isFieldError(failure, 'subjectId') || undefined}
              />
              <p className="hint">A user&apos;s principal id, or an agent&apos;s service principal id.</p>
            </div>
            <div className="field">
              <label htmlFor={`${id}-role`}>Role</label>
              <select id={`${id}-role`} name="roleId" required defaultValue="" aria-invalid={isFieldError(failure, 'roleId') || undefined}>
                <option value="" disabled>
                  {roles.isPending ? 'Loading roles…' : 'Choose a role…'}
                </option>
                {(roles.data ?? []).map((role) => (
                  <option key={role.id} value={role.id}>
                    {role.name}
                    {role.builtIn ? '' : ' (custom)'}
                    {' — '}
                    {role.permissions.length === 1
                      ? `${role.permissions[0]!.action} ${role.permissions[0]!.resourceKind}`
                      : `${role.permissions.length} permissions`}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <fieldset className="choices">
            <legend>Scope</legend>
            <label className="checkbox">
              <input
                type="radio"
                name="scopeKind"
                value="NAMESPACE"
                checked={scopeKind === 'NAMESPACE'}
                onChange={() => setScopeKind('NAMESPACE')}
              />
              The whole namespace
            </label>
            <label className="checkbox">
              <input
                type="radio"
                name="scopeKind"
                value="RESOURCE"
                checked={scopeKind === 'RESOURCE'}
                onChange={() => setScopeKind('RESOURCE')}
              />
              Exactly one secret
            </label>
            {scopeKind === 'RESOURCE' ? (
              <div className="field spaced-top">
                <label htmlFor={`${id}-secret`}>Secret</label>
                <select id={`${id}-secret`} name="secretId" required defaultValue="">
                  <option value="" disabled>
                    Choose a secret…
                  </option>
                  {secrets.map((secret) => (
                    <option key={secret.id} value={secret.id}>
                      {secret.name}
                    </option>
                  ))}
                </select>
              </div>
            ) : null}
          </fieldset>
          <button type="submit" className="button primary">
            {mutation.isPending ? 'Granting…' : 'Grant'}
          </button>
        </fieldset>
      </form>
      {failure ? <MutationErrorAlert error={failure} /> : null}
      {outcome?.kind === 'error' ? (
        <p role="alert" className="alert error">
          <strong>Could not grant:</strong> {outcome.message}
        </p>
      ) : null}
      {outcome?.kind === 'granted' ? (
        <p role="status" className="alert success">
          {outcome.created ? 'Granted' : 'Already granted, nothing changed'}: {outcome.text}.
        </p>
      ) : null}
    </section>
  );
}
