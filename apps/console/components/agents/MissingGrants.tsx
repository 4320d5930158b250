'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { accessKeys, grantAccess } from '../../lib/access';
import { agentKeys, type MissingGrant } from '../../lib/agents';
import { MutationErrorAlert } from '../feedback/MutationErrorAlert';

/** A3: what the agent's service principal still needs before it can consume its selection. */
export function MissingGrants({ grants, names }: { grants: MissingGrant[]; names: ReadonlyMap<string, string> }) {
  if (grants.length === 0) {
    return (
      <p role="status" className="alert success" data-testid="missing-grants">
        Nothing missing: its service principal may operate on every secret this agent consumes.
      </p>
    );
  }
  return (
    <div className="alert notice" data-testid="missing-grants">
      <p>
        <strong>Missing grants.</strong> Its service principal cannot consume its selection until it has:
      </p>
      <ul className="plain-list">
        {grants.map((grant) => (
          <MissingGrantItem key={`${grant.action}:${grant.resourceKind}:${grant.resourceId}`} grant={grant} names={names} />
        ))}
      </ul>
    </div>
  );
}

function MissingGrantItem({ grant, names }: { grant: MissingGrant; names: ReadonlyMap<string, string> }) {
  const queryClient = useQueryClient();
  const target = `${grant.resourceKind} ${names.get(grant.resourceId) ?? grant.resourceId}`;
  const mutation = useMutation({
    mutationFn: () =>
      grantAccess({
        subjectId: grant.subjectId,
        roleId: grant.roleId,
        scope: {
          kind: 'RESOURCE',
          resourceKind: grant.resourceKind,
          resourceId: grant.resourceId,
          ...(grant.namespaceId ? { namespaceId: grant.namespaceId } : {}),
        },
      }),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: agentKeys.all });
      await queryClient.invalidateQueries({ queryKey: accessKeys.all });
    },
  });
  const failure = mutation.data && mutation.data.__typename !== 'GrantAccessSuccess' ? mutation.data : null;
  return (
    <li>
      <strong>{grant.action}</strong> on {target} (role <code>{grant.roleId}</code>){' '}
      <button
        type="button"
        className="button secondary"
        onClick={() => mutation.mutate()}
        disabled={mutation.isPending}
        aria-label={`Grant ${grant.action} on ${target}`}
      >
        {mutation.isPending ? 'Granting…' : 'Grant it'}
      </button>
      {failure ? <MutationErrorAlert error={failure} /> : null}
      {mutation.error ? (
        <p role="alert" className="alert error">
          <strong>Could not grant:</strong> {mutation.error.message}
        </p>
      ) : null}
    </li>
  );
}
