'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { disableUser, userKeys, type User } from '../../lib/users';
import { MutationErrorAlert } from '../feedback/MutationErrorAlert';

export function DisableUserButton({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: () => disableUser(user.id),
    onSuccess: async (result) => {
      if (result.__typename !== 'DisableUserSuccess') return;
      await queryClient.cancelQueries({ queryKey: userKeys.all });
      await queryClient.invalidateQueries({ queryKey: userKeys.all });
    },
  });
  const failure = mutation.data && mutation.data.__typename !== 'DisableUserSuccess' ? mutation.data : null;

  return (
    <>
      <button
        type="button"
        className="button danger"
        aria-label={`Disable ${user.name}`}
        disabled={user.disabled || mutation.isPending}
        onClick={() => {
          if (window.confirm(`Disable ${user.name}? They can no longer sign in or use their API keys.`)) mutation.mutate();
        }}
      >
        {mutation.isPending ? 'Disabling…' : 'Disable'}
      </button>
      {failure ? <MutationErrorAlert error={failure} /> : null}
      {mutation.error ? (
        <p role="alert" className="alert error">
          <strong>Could not disable {user.name}:</strong> {mutation.error.message}
        </p>
      ) : null}
    </>
  );
}
