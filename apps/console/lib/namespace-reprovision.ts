// RC5: re-provisioning a Namespace whose Kubernetes namespace was lost. Its own module, so only the
// namespaces list (which offers it) ships the document; every namespace page imports lib/namespaces.
import { gql, graphql, type ResultOf } from './graphql';
import { ConflictErrorFields, ForbiddenErrorFields, NotFoundErrorFields } from './errors';
import { NamespaceFields, type NamespaceStatus } from './namespaces';

export const ReprovisionNamespaceMutation = gql(`
  mutation ReprovisionNamespace($input: ReprovisionNamespaceInput!) {
    reprovisionNamespace(input: $input) {
      __typename
      ... on ReprovisionNamespaceSuccess { note namespace { ...NamespaceFields } }
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
    }
  }
`, [NamespaceFields, NotFoundErrorFields, ForbiddenErrorFields, ConflictErrorFields]);

export type ReprovisionNamespaceResult = ResultOf<typeof ReprovisionNamespaceMutation>['reprovisionNamespace'];

/** RC5: a LOST (or FAILED) namespace gets a new Kubernetes namespace; the values stored in the lost one are not restored. */
export async function reprovisionNamespace(id: string): Promise<ReprovisionNamespaceResult> {
  return (await graphql(ReprovisionNamespaceMutation, { input: { id } })).reprovisionNamespace;
}

/** Statuses re-provisioning applies to: the Kubernetes namespace is gone (LOST) or was never made (FAILED). */
export function mayNeedReprovisioning(status: NamespaceStatus): boolean {
  return status === 'LOST' || status === 'FAILED';
}
