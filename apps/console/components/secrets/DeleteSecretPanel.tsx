'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { deleteSecret, secretKeys, type Secret } from '../../lib/secrets';
import { MutationErrorAlert } from '../feedback/MutationErrorAlert';

export function DeleteSecretPanel({
  namespaceId,
  secret,
  onClose,
}: {
  namespaceId: string;
  secret: Secret;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const id = useId();
  const mutation = useMutation({
    mutationFn: () => deleteSecret(secret.id),
    // On success the row (and this panel with it) disappears once the list refetches.
    onSettled: () => queryClient.invalidateQueries({ queryKey: secretKeys.byNamespace(namespaceId) }),
  });

  const failure = mutation.data && mutation.data.__typename !== 'DeleteSecretSuccess' ? mutation.data : null;

  return (
    <div className="panel" role="group" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Delete {secret.name}?</h3>
      <p>
        This deletes its Kubernetes Secret and every grant that targets it. It is refused while a configuration,
        agent, revision or pending work still references it.
      </p>
      <div className="button-row">
        <button type="button" className="button danger" onClick={() => mutation.mutate()} disabled={mutation.isPending}>
          {mutation.isPending ? 'Deleting…' : 'Confirm delete'}
        </button>
        <button type="button" className="button secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
      {failure ? <MutationErrorAlert error={failure} /> : null}
      {mutation.error ? (
        <p role="alert" className="alert error">
          <strong>Could not delete the secret:</strong> {mutation.error.message}
        </p>
      ) : null}
    </div>
  );
}
