'use client';

import { useRouter } from 'next/navigation';
import { configurationKeys, deleteConfiguration } from '../../lib/configurations';
import { DeleteButton } from '../feedback/DeleteButton';
import { namespaceHref } from '../../lib/namespace-links';

/** Delete after typing the name; refused while an agent selects it, the agents named in the dialog. */
export function DeleteConfigurationButton({ namespaceId, configuration }: { namespaceId: string; configuration: { id: string; name: string } }) {
  const router = useRouter();
  return (
    <DeleteButton
      kind="configuration"
      name={configuration.name}
      remove={() => deleteConfiguration(configuration.id)}
      invalidate={[configurationKeys.byNamespace(namespaceId), configurationKeys.detail(configuration.id)]}
      afterSuccess={() => router.push(namespaceHref('configurations', namespaceId))}
      consequence={
        <p>
          This deletes the configuration and the grants that target it. It is refused while an agent selects it; revisions
          deployed from it keep their frozen copy.
        </p>
      }
    />
  );
}
