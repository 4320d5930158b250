'use client';

import { useCan } from '../../lib/can';
import { focusMainHeading } from '../../lib/focus';
import { reprovisionNamespace } from '../../lib/namespace-reprovision';
import { namespaceKeys, type Namespace } from '../../lib/namespaces';
import { useResultMutation } from '../../lib/use-result-mutation';
import { ConfirmDestructive } from '../feedback/ConfirmDestructive';
import { FormOutcome } from '../feedback/FormOutcome';
import { useToast } from '../feedback/Toaster';

/**
 * RC5: re-provision a LOST (or FAILED) namespace after typing its name. Offered to viewers who may
 * administer the namespace (what the API checks); the API still decides. It says plainly before
 * and after that the secret values stored in the lost Kubernetes namespace are not restored.
 */
export default function ReprovisionNamespaceButton({ namespace }: { namespace: Pick<Namespace, 'id' | 'name' | 'status'> }) {
  const toast = useToast();
  const may = useCan('administer', 'namespace', namespace.id, namespace.id);
  const mutation = useResultMutation({
    mutationFn: () => reprovisionNamespace(namespace.id),
    invalidate: [namespaceKeys.all],
    onSuccess: (result) => toast(`Namespace ${namespace.name} is being re-provisioned. ${result.note}`),
  });
  if (may === false) return null;
  return (
    <ConfirmDestructive
      verb="Re-provision"
      what={`namespace ${namespace.name}`}
      name={namespace.name}
      triggerLabel={`Re-provision ${namespace.name}`}
      consequence={
        <>
          <p>
            A new Kubernetes namespace is made for it, as when it was created. Its secrets, configurations, agents and grants stay
            as the control plane recorded them.
          </p>
          <p>
            <strong>The secret values stored in the {namespace.status === 'LOST' ? 'lost' : 'failed'} Kubernetes namespace are not restored.</strong>{' '}
            Store each secret’s value again (rotate it), then deploy its agents again.
          </p>
        </>
      }
      pending={mutation.pending}
      succeeded={mutation.success !== null}
      // The button goes with the LOST status it was offered for: focus moves to the page's heading.
      afterSuccess={focusMainHeading}
      onConfirm={() => mutation.submit(undefined)}
    >
      <FormOutcome outcome={mutation.outcome} doing="re-provision the namespace" />
    </ConfirmDestructive>
  );
}
