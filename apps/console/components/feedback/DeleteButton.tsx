'use client';

import type { QueryKey } from '@tanstack/react-query';
import type { ComponentProps, ReactNode } from 'react';
import { useResultMutation } from '../../lib/use-result-mutation';
import { ConfirmDestructive } from './ConfirmDestructive';
import { FormOutcome } from './FormOutcome';
import { useToast } from './Toaster';

/**
 * Every delete in the console: type the name to confirm (ConfirmDestructive), a typed refusal shown
 * inside the dialog, a toast and the caches refreshed after a success, then `afterSuccess` (focus or
 * navigation), once the dialog has closed.
 */
export function DeleteButton<R extends { __typename: string }>({
  kind,
  name,
  remove,
  invalidate,
  consequence,
  afterSuccess,
  opener,
}: {
  /** "secret", "agent", "configuration": in the title, the toast and the error text. */
  kind: string;
  name: string;
  remove: () => Promise<R>;
  invalidate: QueryKey[];
  consequence: ReactNode;
  afterSuccess: () => void;
  /** Opened from a row's menu instead of a button of its own (ConfirmDestructive's `opener`). */
  opener?: ComponentProps<typeof ConfirmDestructive>['opener'];
}) {
  const toast = useToast();
  const mutation = useResultMutation({
    mutationFn: remove,
    invalidate,
    onSuccess: () => toast(`${kind.charAt(0).toUpperCase()}${kind.slice(1)} ${name} deleted.`),
  });
  return (
    <ConfirmDestructive
      verb="Delete"
      what={`${kind} ${name}`}
      name={name}
      triggerLabel={`Delete ${name}`}
      consequence={consequence}
      pending={mutation.pending}
      succeeded={mutation.success !== null}
      afterSuccess={afterSuccess}
      onConfirm={() => mutation.submit(undefined)}
      opener={opener}
    >
      <FormOutcome outcome={mutation.outcome} doing={`delete the ${kind}`} />
    </ConfirmDestructive>
  );
}
