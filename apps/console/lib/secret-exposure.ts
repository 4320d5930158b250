// V5 a secret's versions and which agents run which (the exposure matrix); V6 what a rotation or a
// delete of it touches (its blast radius). Both are read before the click, in the rotate panel and
// the delete confirmation.
import { queryOptions } from '@tanstack/react-query';
import { gql, graphql, type ResultOf } from './graphql';
import { secretExposureKeys } from './secret-exposure-keys';

export const SecretVersionsQuery = gql(`
  query SecretVersions($id: ID!) {
    secret(id: $id) {
      id version
      versions { number current createdAt firstDeliveredAt lastDeliveredAt retiredAt }
      exposure { hiddenCount items { agentId agentName revisionId revisionNumber version since envNames } }
    }
  }
`);

export const SecretBlastRadiusQuery = gql(`
  query SecretBlastRadius($id: ID!) {
    secret(id: $id) {
      id
      blastRadius {
        total { configurations agents revisions gateways }
        hidden { configurations agents revisions gateways }
        configurations { id name generation envNames }
        agents { id name status via }
        revisions { id agentId number state versions }
        gateways { agentId agentName instanceName deploymentName k8sNamespace }
      }
    }
  }
`);

export type SecretVersions = NonNullable<ResultOf<typeof SecretVersionsQuery>['secret']>;
export type SecretVersion = SecretVersions['versions'][number];
export type SecretVersionExposure = SecretVersions['exposure']['items'][number];
export type BlastRadius = NonNullable<ResultOf<typeof SecretBlastRadiusQuery>['secret']>['blastRadius'];
export type BlastRadiusCounts = BlastRadius['total'];

export function secretVersionsQueryOptions(secretId: string) {
  return queryOptions({
    queryKey: secretExposureKeys.versions(secretId),
    queryFn: async ({ signal }) => (await graphql(SecretVersionsQuery, { id: secretId }, signal)).secret,
  });
}

export function secretBlastRadiusQueryOptions(secretId: string) {
  return queryOptions({
    queryKey: secretExposureKeys.blastRadius(secretId),
    queryFn: async ({ signal }) => (await graphql(SecretBlastRadiusQuery, { id: secretId }, signal)).secret?.blastRadius ?? null,
  });
}

/** "1 configuration, 2 agents, …": every kind named, zeros included, so nothing reads as omitted. */
export function describeCounts(counts: BlastRadiusCounts): string {
  const part = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return [
    part(counts.configurations, 'configuration', 'configurations'),
    part(counts.agents, 'agent', 'agents'),
    part(counts.revisions, 'running revision', 'running revisions'),
    part(counts.gateways, 'gateway', 'gateways'),
  ].join(', ');
}

export function hiddenTotal(counts: BlastRadiusCounts): number {
  return counts.configurations + counts.agents + counts.revisions + counts.gateways;
}
