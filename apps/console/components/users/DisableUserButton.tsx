'use client';

import { useResultMutation } from '../../lib/use-result-mutation';
import { disableUser, userKeys, type User } from '../../lib/users';
import { ConfirmDestructive } from '../feedback/ConfirmDestructive';
import { FormOutcome } from '../feedback/FormOutcome';
import { useToast } from '../feedback/Toaster';

export function DisableUserButton({ user }: { user: User }) {
  const toast = useToast();
  const mutation = useResultMutation({
    mutationFn: () => disableUser(user.id),
    invalidate: [userKeys.all],
    cancelFirst: true,
    onSuccess: () => toast(`User ${user.name} disabled.`),
  });
  return (
    <ConfirmDestructive
      verb="Disable"
      what={`user ${user.name}`}
      name={user.name}
      triggerLabel={`Disable ${user.name}`}
      disabled={user.disabled}
      consequence={<p>They can no longer sign in or use their API keys.</p>}
      pending={mutation.pending}
      succeeded={mutation.success !== null}
      onConfirm={() => mutation.submit(undefined)}
    >
      <FormOutcome outcome={mutation.outcome} doing={`disable ${user.name}`} />
    </ConfirmDestructive>
  );
}
