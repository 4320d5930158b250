'use client';

import { focusMainHeading } from '../../lib/focus';
import { deleteSecret, secretKeys, type Secret } from '../../lib/secrets';
import { DeleteButton } from '../feedback/DeleteButton';

/** S7: delete after typing the name; a refusal lists the consumers inside the dialog. */
export function DeleteSecretButton({ namespaceId, secret }: { namespaceId: string; secret: Secret }) {
  return (
    <DeleteButton
      kind="secret"
      name={secret.name}
      remove={() => deleteSecret(secret.id)}
      // The row (and this dialog with it) disappears once the list refetches.
      invalidate={[secretKeys.byNamespace(namespaceId)]}
      afterSuccess={focusMainHeading}
      consequence={
        <p>
          This deletes its Kubernetes Secret and every grant that targets it. It is refused while a configuration, agent,
          revision or pending work still references it.
        </p>
      }
    />
  );
}
