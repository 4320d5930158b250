'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { accessKeys, describeScope, grantAccess, rolesQueryOptions, type AccessScopeInput, type Role } from '../../lib/access';
import { agentKeys } from '../../lib/agents';
import { isFieldError } from '../../lib/errors';
import { SecretPicker, type PickedSecret } from '../secrets/SecretPicker';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { useToast } from '../feedback/Toaster';
import { SubjectPicker, type PrincipalOption } from './SubjectPicker';
import { BusyForm } from '../ui/Busy';

/** Least privilege first: the easy path must not over-grant. Custom roles sit between. */
const PRIVILEGE: Record<string, number> = {
  'secret-operator': 0,
  'namespace-viewer': 1,
  'namespace-editor': 3,
  'namespace-admin': 4,
  'installation-admin': 9,
};
export function byPrivilege(a: Role, b: Role): number {
  return (PRIVILEGE[a.name] ?? 2) - (PRIVILEGE[b.name] ?? 2) || a.name.localeCompare(b.name);
}
export const LEAST_PRIVILEGE_ROLE_ID = 'rol_secret-operator';

/** A2: give a subject a role on exactly one secret (the default) or on the whole namespace. */
export function GrantAccessForm({
  namespaceId,
  names,
  principals,
  initialSubjectId,
  initialRoleId,
  initialSecretId,
}: {
  namespaceId: string;
  names: ReadonlyMap<string, string>;
  principals: PrincipalOption[];
  initialSubjectId: string;
  initialRoleId: string;
  initialSecretId: string;
}) {
  const id = useId();
  const toast = useToast();
  const roles = useQuery(rolesQueryOptions(namespaceId));
  const [scopeKind, setScopeKind] = useState<'NAMESPACE' | 'RESOURCE'>('RESOURCE');
  const [roleId, setRoleId] = useState(initialRoleId || LEAST_PRIVILEGE_ROLE_ID);
  // Searched in SQL by the picker, so a namespace with thousands of secrets can grant on any of them.
  const [secret, setSecret] = useState<PickedSecret | null>(initialSecretId ? { id: initialSecretId, name: names.get(initialSecretId) ?? null } : null);
  const secretId = secret?.id ?? '';

  const mutation = useResultMutation({
    mutationFn: grantAccess,
    invalidate: [accessKeys.all, agentKeys.all],
    onSuccess: (result) =>
      toast(`${result.created ? 'Granted' : 'Already granted'} ${result.binding.role.name} to ${result.binding.subject.name}.`),
  });
  const failure = mutation.failure;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const fields = new FormData(event.currentTarget);
    const subjectId = String(fields.get('subjectId') ?? '').trim();
    const scope: AccessScopeInput =
      scopeKind === 'NAMESPACE'
        ? { kind: 'NAMESPACE', namespaceId }
        : { kind: 'RESOURCE', namespaceId, resourceKind: 'secret', resourceId: secretId };
    mutation.submit({ subjectId, roleId, scope });
  }

  const sorted = [...(roles.data ?? [])].sort(byPrivilege);
  const chosenRole = sorted.find((role) => role.id === roleId);

  return (
    <section aria-labelledby={`${id}-title`} className="card">
      <h2 id={`${id}-title`}>Grant access</h2>
      {roles.error ? <QueryErrorAlert error={roles.error} what="the roles" retry={() => roles.refetch()} /> : null}
      <BusyForm busy={mutation.pending} method="post" className="form" onSubmit={onSubmit}>
        <fieldset disabled={mutation.pending}>
          <div className="grid-2">
            <SubjectPicker
              label="Subject ID"
              name="subjectId"
              principals={principals}
              initialValue={initialSubjectId}
              required
              invalid={isFieldError(failure, 'subjectId')}
              hint="A user, or an agent's service principal."
            />
            <div className="field">
              <label htmlFor={`${id}-role`}>Role</label>
              <select
                id={`${id}-role`}
                name="roleId"
                required
                value={roleId}
                onChange={(event) => setRoleId(event.target.value)}
                aria-invalid={isFieldError(failure, 'roleId') || undefined}
                aria-describedby={`${id}-role-hint`}
              >
                {roles.isPending ? <option value={roleId}>Loading roles…</option> : null}
                {sorted.map((role) => (
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
              <p id={`${id}-role-hint`} className="hint">
                Least privilege first. {chosenRole?.name === 'installation-admin' ? 'installation-admin administers everything, everywhere.' : ''}
              </p>
            </div>
          </div>
          <fieldset className="choices">
            <legend>Scope</legend>
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
            {scopeKind === 'RESOURCE' ? (
              <div className="spaced-top">
                <SecretPicker namespaceId={namespaceId} label="Secret" value={secret} onChange={setSecret} required allowCreate={false} />
              </div>
            ) : (
              <p className="alert notice spaced-top">
                A namespace-wide grant covers every secret, configuration and agent in this namespace, present and future.
              </p>
            )}
          </fieldset>
          <button type="submit" className="button primary">
            {mutation.pending ? 'Granting…' : 'Grant'}
          </button>
        </fieldset>
      </BusyForm>
      <FormOutcome outcome={mutation.outcome} doing="grant">
        {(result) => (
          <p role="status" className="alert success" data-testid="grant-outcome">
            {result.created ? 'Granted' : 'Already granted, nothing changed'}: {result.binding.role.name} to{' '}
            {result.binding.subject.name} ({result.binding.subject.id}) on {describeScope(result.binding.scope, names)}.
          </p>
        )}
      </FormOutcome>
    </section>
  );
}
