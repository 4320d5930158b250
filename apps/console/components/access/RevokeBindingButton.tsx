'use client';

import { accessKeys, revokeAccess, type AccessBinding } from '../../lib/access';
import { agentKeys } from '../../lib/agents';
import { focusMainHeading } from '../../lib/focus';
import { useResultMutation } from '../../lib/use-result-mutation';
import { ConfirmDestructive } from '../feedback/ConfirmDestructive';
import { FormOutcome } from '../feedback/FormOutcome';
import { useToast } from '../feedback/Toaster';

/** A2: revoke after typing the subject's name (who loses the access). */
export function RevokeBindingButton({ binding, label }: { binding: AccessBinding; label: string }) {
  const toast = useToast();
  const mutation = useResultMutation({
    mutationFn: () => revokeAccess(binding.id),
    // Agents list their service principal's grants.
    invalidate: [accessKeys.all, agentKeys.all],
    onSuccess: () => toast(`Revoked ${label}.`),
  });
  return (
    <ConfirmDestructive
      verb="Revoke"
      what={`${binding.role.name} from ${binding.subject.name}`}
      name={binding.subject.name}
      triggerLabel={`Revoke ${label}`}
      consequence={<p>{binding.subject.name} loses what this grant allowed at once; grants elsewhere stay.</p>}
      pending={mutation.pending}
      succeeded={mutation.success !== null}
      afterSuccess={focusMainHeading}
      onConfirm={() => mutation.submit(undefined)}
    >
      <FormOutcome outcome={mutation.outcome} doing="revoke" />
    </ConfirmDestructive>
  );
}
