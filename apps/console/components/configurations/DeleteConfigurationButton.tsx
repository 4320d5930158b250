'use client';

import { useRouter } from 'next/navigation';
import { configurationKeys, deleteConfiguration } from '../../lib/configurations';
import { namespaceHref } from '../namespaces/NamespaceHeader';
import { useResultMutation } from '../../lib/use-result-mutation';
import { ConfirmDestructive } from '../feedback/ConfirmDestructive';
import { FormOutcome } from '../feedback/FormOutcome';
import { useToast } from '../feedback/Toaster';

/** Delete after typing the name; refused while an agent selects it, the agents named in the dialog. */
export function DeleteConfigurationButton({ namespaceId, configuration }: { namespaceId: string; configuration: { id: string; name: string } }) {
  const toast = useToast();
  const router = useRouter();
  const mutation = useResultMutation({
    mutationFn: () => deleteConfiguration(configuration.id),
    invalidate: [configurationKeys.byNamespace(namespaceId), configurationKeys.detail(configuration.id)],
    onSuccess: () => toast(`Configuration ${configuration.name} deleted.`),
  });
  return (
    <ConfirmDestructive
      verb="Delete"
      what={`configuration ${configuration.name}`}
      name={configuration.name}
      triggerLabel={`Delete ${configuration.name}`}
      consequence={
        <p>
          This deletes the configuration and the grants that target it. It is refused while an agent selects it; revisions
          deployed from it keep their frozen copy.
        </p>
      }
      pending={mutation.pending}
      succeeded={mutation.success !== null}
      afterSuccess={() => router.push(namespaceHref('configurations', namespaceId))}
      onConfirm={() => mutation.submit(undefined)}
    >
      <FormOutcome outcome={mutation.outcome} doing="delete the configuration" />
    </ConfirmDestructive>
  );
}
