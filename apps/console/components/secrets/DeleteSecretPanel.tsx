'use client';

import { lazy, Suspense, type ComponentProps } from 'react';
import { focusMainHeading } from '../../lib/focus';
import { deleteSecret, secretKeys, type Secret } from '../../lib/secrets';
import { DeleteButton } from '../feedback/DeleteButton';
import { TableSkeleton } from '../ui/Skeleton';

// V6: loaded when the dialog opens (the secrets route's first-load budget).
const SecretBlastRadius = lazy(() => import('./SecretBlastRadius'));

/** S7: delete after typing the name; a refusal lists the consumers inside the dialog. */
export function DeleteSecretButton({ namespaceId, secret, opener }: { namespaceId: string; secret: Secret; opener?: ComponentProps<typeof DeleteButton>['opener'] }) {
  return (
    <DeleteButton
      opener={opener}
      kind="secret"
      name={secret.name}
      remove={() => deleteSecret(secret.id)}
      // The row (and this dialog with it) disappears once the list refetches.
      invalidate={[secretKeys.byNamespace(namespaceId)]}
      afterSuccess={focusMainHeading}
      consequence={
        <>
          <p>
            This deletes its Kubernetes Secret and every grant that targets it. It is refused while a configuration, agent,
            revision or pending work still references it.
          </p>
          <Suspense fallback={<TableSkeleton label="Loading what this touches…" rows={1} />}>
            <SecretBlastRadius secretId={secret.id} action="delete" />
          </Suspense>
        </>
      }
    />
  );
}
