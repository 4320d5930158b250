'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { accessKeys, revokeAccess, type AccessBinding } from '../../lib/access';
import { agentKeys } from '../../lib/agents';
import { MutationErrorAlert } from '../feedback/MutationErrorAlert';

export function RevokeBindingButton({ binding, label }: { binding: AccessBinding; label: string }) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: () => revokeAccess(binding.id),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: accessKeys.all });
      // Agents list their service principal's grants.
      await queryClient.invalidateQueries({ queryKey: agentKeys.all });
    },
  });
  const failure = mutation.data && mutation.data.__typename !== 'RevokeAccessSuccess' ? mutation.data : null;
  return (
    <>
      <button
        type="button"
        className="button danger"
        aria-label={`Revoke ${label}`}
        onClick={() => mutation.mutate()}
        disabled={mutation.isPending}
      >
        {mutation.isPending ? 'Revoking…' : 'Revoke'}
      </button>
      {failure ? <MutationErrorAlert error={failure} /> : null}
      {mutation.error ? (
        <p role="alert" className="alert error">
          <strong>Could not revoke:</strong> {mutation.error.message}
        </p>
      ) : null}
    </>
  );
}
