// A secret's reference graph (Secret.references) and an agent's gateway, for auditors: ids, names,
// env names and versions only. No document here selects a value or a backend locator.
import { queryOptions } from '@tanstack/react-query';
import { gql, graphql } from './graphql';
import type { Namespace } from './namespaces';
import { secretKeys } from './secrets';

export type GatewayDeployment = { k8sNamespace: string; name: string };

export type ReferenceConfiguration = { id: string; name: string; generation: number; envNames: string[] };

export type ReferenceAgent = {
  id: string;
  name: string;
  status: string;
  configurationId: string | null;
  viaConfiguration: boolean;
  harnessAuthProvider: string | null;
};

export type ReferenceRevision = {
  id: string;
  agentId: string;
  number: number;
  state: string;
  stale: boolean;
  deliveries: { purpose: string; envName: string; version: number; stale: boolean }[];
  gateway: GatewayDeployment | null;
};

export type SecretReferenceGraph = {
  currentVersion: number;
  configurations: ReferenceConfiguration[];
  agents: ReferenceAgent[];
  revisions: ReferenceRevision[];
  hidden: { configurations: number; agents: number; revisions: number };
};

export type SecretWithReferences = {
  id: string;
  name: string;
  version: number;
  updatedAt: string;
  namespace: Pick<Namespace, 'id' | 'name' | 'status'> | null;
  references: SecretReferenceGraph;
};

export const SecretReferencesQuery = gql<{ secret: SecretWithReferences | null }, { id: string }>(`
  query SecretReferences($id: ID!) {
    secret(id: $id) {
      id name version updatedAt
      namespace { id name status }
      references {
        currentVersion
        configurations { id name generation envNames }
        agents { id name status configurationId viaConfiguration harnessAuthProvider }
        revisions { id agentId number state stale deliveries { purpose envName version stale } gateway { k8sNamespace name } }
        hidden { configurations agents revisions }
      }
    }
  }
`);

/** Under the secrets' key prefix, so a rotation or a delete (which invalidate it) refreshes the graph. */
export function secretReferencesQueryOptions(id: string) {
  return queryOptions({
    queryKey: [...secretKeys.all, 'references', id] as const,
    queryFn: async ({ signal }) => (await graphql(SecretReferencesQuery, { id }, signal)).secret,
  });
}

export type AgentGateway = {
  id: string;
  activeRevision: { id: string; number: number; state: string; gateway: GatewayDeployment | null } | null;
};

export const AgentGatewayQuery = gql<{ agent: AgentGateway | null }, { id: string }>(`
  query AgentGateway($id: ID!) {
    agent(id: $id) { id activeRevision { id number state gateway { k8sNamespace name } } }
  }
`);

export function agentGatewayQueryOptions(id: string) {
  return queryOptions({
    queryKey: ['agents', 'gateway', id] as const,
    queryFn: async ({ signal }) => (await graphql(AgentGatewayQuery, { id }, signal)).agent,
  });
}
