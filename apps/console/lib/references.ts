// A secret's reference graph (Secret.references) and an agent's gateway, for auditors: ids, names,
// env names and versions only. No document here selects a value or a backend locator.
import { queryOptions } from '@tanstack/react-query';
import { gql, graphql, type ResultOf } from './graphql';
import { secretKeys } from './secrets';

export const GatewayDeploymentFields = gql(`fragment GatewayDeploymentFields on GatewayDeployment { k8sNamespace name }`);

export type GatewayDeployment = ResultOf<typeof GatewayDeploymentFields>;

export const SecretReferencesQuery = gql(`
  query SecretReferences($id: ID!) {
    secret(id: $id) {
      id name version updatedAt
      viewerCan { update }
      namespace { id name status }
      references {
        currentVersion
        configurations { id name generation envNames }
        agents { id name status configurationId viaConfiguration harnessAuthProvider }
        revisions { id agentId number state stale deliveries { purpose envName version stale } gateway { ...GatewayDeploymentFields } }
        hidden { configurations agents revisions }
      }
    }
  }
`, [GatewayDeploymentFields]);

export type SecretWithReferences = NonNullable<ResultOf<typeof SecretReferencesQuery>['secret']>;
export type SecretReferenceGraph = SecretWithReferences['references'];
export type ReferenceConfiguration = SecretReferenceGraph['configurations'][number];
export type ReferenceAgent = SecretReferenceGraph['agents'][number];
export type ReferenceRevision = SecretReferenceGraph['revisions'][number];

/** Under the secrets' key prefix, so a rotation or a delete (which invalidate it) refreshes the graph. */
export function secretReferencesQueryOptions(id: string) {
  return queryOptions({
    queryKey: [...secretKeys.all, 'references', id] as const,
    queryFn: async ({ signal }) => (await graphql(SecretReferencesQuery, { id }, signal)).secret,
  });
}

export const AgentGatewayQuery = gql(`
  query AgentGateway($id: ID!) {
    agent(id: $id) { id activeRevision { id number state gateway { ...GatewayDeploymentFields } } }
  }
`, [GatewayDeploymentFields]);

export type AgentGateway = NonNullable<ResultOf<typeof AgentGatewayQuery>['agent']>;

export function agentGatewayQueryOptions(id: string) {
  return queryOptions({
    queryKey: ['agents', 'gateway', id] as const,
    queryFn: async ({ signal }) => (await graphql(AgentGatewayQuery, { id }, signal)).agent,
  });
}
