// Legacy (unaggregated) discovery documents: /api, /apis, /apis/{group}, /api/v1, /apis/{group}/{version}.
// client-node's KubernetesObjectApi reads the resource lists to map kinds to paths.

import { apiVersionOf, type ResourceRegistry, type ResourceType } from './registry.ts';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

/** Kubernetes version priority: v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > anything else (alphabetical). */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    const stability = m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stability, Number(m[1]), Number(m[3] ?? 0)];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && pb) {
    for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pb[i] ?? 0) - (pa[i] ?? 0);
    return 0;
  }
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function groupVersions(group: string, versions: string[]) {
  const sorted = [...versions].sort(compareKubeVersions);
  const entries = sorted.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, preferredVersion: entries[0] };
}

export function coreVersions(serverAddress: string): unknown {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/**
 * E9: the access reviews (rbac-reviews.ts) are create-only resources no store holds; a real server
 * lists them under authorization.k8s.io/v1 like any other, and clients read that list.
 */
const REVIEW_GROUP = { group: 'authorization.k8s.io', versions: ['v1'] };
const REVIEW_RESOURCES = [
  { name: 'localsubjectaccessreviews', singularName: 'localsubjectaccessreview', namespaced: true, kind: 'LocalSubjectAccessReview', verbs: ['create'] },
  { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
  { name: 'selfsubjectrulesreviews', singularName: 'selfsubjectrulesreview', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
  { name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] },
];

function groupsOf(registry: ResourceRegistry): Array<{ group: string; versions: string[] }> {
  const groups = registry.groups();
  return groups.some((g) => g.group === REVIEW_GROUP.group) ? groups : [...groups, REVIEW_GROUP];
}

export function groupList(registry: ResourceRegistry): unknown {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: groupsOf(registry).map((g) => groupVersions(g.group, g.versions)),
  };
}

export function apiGroup(registry: ResourceRegistry, group: string): unknown | undefined {
  const found = groupsOf(registry).find((g) => g.group === group);
  return found ? { kind: 'APIGroup', apiVersion: 'v1', ...groupVersions(found.group, found.versions) } : undefined;
}

function resourceEntries(type: ResourceType): unknown[] {
  const main = {
    name: type.plural,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: VERBS,
    ...(type.shortNames.length > 0 ? { shortNames: type.shortNames } : {}),
    ...(type.categories.length > 0 ? { categories: type.categories } : {}),
  };
  const entries: unknown[] = [main];
  if (type.subresources.status) {
    entries.push({ name: `${type.plural}/status`, singularName: '', namespaced: type.namespaced, kind: type.kind, verbs: SUBRESOURCE_VERBS });
  }
  if (type.group === '' && type.plural === 'serviceaccounts') {
    // The TokenRequest API (tokens.ts), as a real server lists it.
    entries.push({ name: 'serviceaccounts/token', singularName: '', namespaced: true, group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] });
  }
  if (type.group === '' && type.plural === 'pods') {
    // pods/log (pod-log.ts), read from the Pod's kubelet.
    entries.push({ name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] });
  }
  if (type.subresources.scale) {
    entries.push({
      name: `${type.plural}/scale`,
      singularName: '',
      namespaced: type.namespaced,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: SUBRESOURCE_VERBS,
    });
  }
  return entries;
}

export function resourceList(registry: ResourceRegistry, group: string, version: string): unknown | undefined {
  const types = registry.resourcesOf(group, version);
  const reviews = group === REVIEW_GROUP.group && REVIEW_GROUP.versions.includes(version) ? REVIEW_RESOURCES : [];
  if (types.length === 0 && reviews.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf({ group, version }),
    resources: [...types.flatMap(resourceEntries), ...reviews],
  };
}

export const VERSION_INFO = {
  major: '1',
  minor: '33',
  gitVersion: 'v1.33.0-occ-emulator',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.24.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};
