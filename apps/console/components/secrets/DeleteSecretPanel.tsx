'use client';

import { focusMainHeading } from '../../lib/focus';
import { deleteSecret, secretKeys, type Secret } from '../../lib/secrets';
import { useResultMutation } from '../../lib/use-result-mutation';
import { ConfirmDestructive } from '../feedback/ConfirmDestructive';
import { FormOutcome } from '../feedback/FormOutcome';
import { useToast } from '../feedback/Toaster';

/** S7: delete after typing the name; a refusal lists the consumers inside the dialog. */
export function DeleteSecretButton({ namespaceId, secret }: { namespaceId: string; secret: Secret }) {
  const toast = useToast();
  const mutation = useResultMutation({
    mutationFn: () => deleteSecret(secret.id),
    // The row (and this dialog with it) disappears once the list refetches.
    invalidate: [secretKeys.byNamespace(namespaceId)],
    onSuccess: () => toast(`Secret ${secret.name} deleted.`),
  });
  return (
    <ConfirmDestructive
      verb="Delete"
      what={`secret ${secret.name}`}
      name={secret.name}
      triggerLabel={`Delete ${secret.name}`}
      consequence={
        <p>
          This deletes its Kubernetes Secret and every grant that targets it. It is refused while a configuration, agent,
          revision or pending work still references it.
        </p>
      }
      pending={mutation.pending}
      succeeded={mutation.success !== null}
      afterSuccess={focusMainHeading}
      onConfirm={() => mutation.submit(undefined)}
    >
      <FormOutcome outcome={mutation.outcome} doing="delete the secret" />
    </ConfirmDestructive>
  );
}
