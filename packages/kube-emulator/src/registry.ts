// The resource registry: which group/version/resource paths the server serves and what kind each
// holds. Built-in kinds are fixed; CustomResourceDefinitions add and remove entries at run time.

import type { GroupKind, GroupResource } from './errors.ts';

export interface ResourceType {
  group: string; // '' for the core group
  version: string;
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Served subresources; `status` means the main resource ignores status and /status only writes it. */
  subresources: { status: boolean; scale: boolean };
  /** Set for resources a CRD declares; the CRD's metadata.name. */
  crdName?: string;
  /** The CRD version's openAPIV3Schema (custom resources only). */
  openAPISchema?: unknown;
  /** The CRD version's additionalPrinterColumns (custom resources only), for Table output. */
  printerColumns?: Record<string, unknown>[];
}

export function apiVersionOf(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** One storage collection per group and resource, whatever the version it is served at. */
export function storageKeyOf(type: Pick<ResourceType, 'group' | 'plural'>): string {
  return type.group ? `${type.group}/${type.plural}` : type.plural;
}

export function groupResourceOf(type: ResourceType): GroupResource {
  return { group: type.group, resource: type.plural };
}

export function groupKindOf(type: ResourceType): GroupKind {
  return { group: type.group, kind: type.kind };
}

function builtIn(
  group: string,
  version: string,
  plural: string,
  kind: string,
  namespaced: boolean,
  extra: Partial<ResourceType> = {},
): ResourceType {
  return {
    group,
    version,
    plural,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced,
    shortNames: [],
    categories: [],
    subresources: { status: false, scale: false },
    ...extra,
  };
}

export const NAMESPACES = builtIn('', 'v1', 'namespaces', 'Namespace', false, {
  shortNames: ['ns'],
  subresources: { status: true, scale: false },
});
export const SECRETS = builtIn('', 'v1', 'secrets', 'Secret', true);
export const CONFIGMAPS = builtIn('', 'v1', 'configmaps', 'ConfigMap', true, { shortNames: ['cm'] });
export const EVENTS = builtIn('', 'v1', 'events', 'Event', true, { shortNames: ['ev'] });
export const DEPLOYMENTS = builtIn('apps', 'v1', 'deployments', 'Deployment', true, {
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: { status: true, scale: true },
});
export const CRDS = builtIn('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false, {
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  subresources: { status: true, scale: false },
});

/** Leader election (client-go's leaderelection, and the control plane's elector) stores its lock here. */
export const LEASES = builtIn('coordination.k8s.io', 'v1', 'leases', 'Lease', true);

/** Workload identities: the TokenRequest API (tokens.ts) issues tokens that authenticate as them. */
export const SERVICEACCOUNTS = builtIn('', 'v1', 'serviceaccounts', 'ServiceAccount', true, { shortNames: ['sa'] });
/** Validating admission webhooks (admission.ts) the server calls before it stores a write. */
export const VALIDATING_WEBHOOK_CONFIGURATIONS = builtIn(
  'admissionregistration.k8s.io',
  'v1',
  'validatingwebhookconfigurations',
  'ValidatingWebhookConfiguration',
  false,
  { categories: ['api-extensions'] },
);

/**
 * Validating admission policies (admission-policy.ts; admissionregistration.k8s.io/v1 since
 * Kubernetes 1.30, emulated: the E8 lane's 1.20 server has no such API).
 */
export const VALIDATING_ADMISSION_POLICIES = builtIn('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies', 'ValidatingAdmissionPolicy', false, {
  categories: ['api-extensions'],
  subresources: { status: true, scale: false },
});
export const VALIDATING_ADMISSION_POLICY_BINDINGS = builtIn('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding', false, {
  categories: ['api-extensions'],
});

/** RBAC (E9): the authorizer (rbac-authorizer.ts) evaluates these four on every request. */
export const ROLES = builtIn('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true);
export const CLUSTERROLES = builtIn('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false);
export const ROLEBINDINGS = builtIn('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true);
export const CLUSTERROLEBINDINGS = builtIn('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false);

/** Written by the kubelet simulator as the deployment controller and the kubelet would (E3). */
export const PODS = builtIn('', 'v1', 'pods', 'Pod', true, { shortNames: ['po'], categories: ['all'], subresources: { status: true, scale: false } });
export const REPLICASETS = builtIn('apps', 'v1', 'replicasets', 'ReplicaSet', true, {
  shortNames: ['rs'],
  categories: ['all'],
  subresources: { status: true, scale: true },
});

/**
 * The rest of what the install (deploy/) applies: served so that `kubectl apply -k deploy/` and its
 * server-side dry run work against the embedded server. Stored as given; nothing acts on them (no
 * cluster IP is allocated, no Job runs, no policy is enforced, no disruption is counted).
 */
export const SERVICES = builtIn('', 'v1', 'services', 'Service', true, { shortNames: ['svc'], categories: ['all'], subresources: { status: true, scale: false } });
export const JOBS = builtIn('batch', 'v1', 'jobs', 'Job', true, { categories: ['all'], subresources: { status: true, scale: false } });
export const NETWORK_POLICIES = builtIn('networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', true, { shortNames: ['netpol'] });
/**
 * Endpoints: where a Service's traffic goes. No endpoints controller runs here, so they are written
 * by hand; a webhook named by service is called at one of its addresses (admission.ts), as a
 * kube-apiserver started with --enable-aggregator-routing resolves it.
 */
export const ENDPOINTS = builtIn('', 'v1', 'endpoints', 'Endpoints', true, { shortNames: ['ep'] });
export const POD_DISRUPTION_BUDGETS = builtIn('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true, { shortNames: ['pdb'], subresources: { status: true, scale: false } });

/** The kubelet simulator registers its Node, as a kubelet does, and binds the Pods it makes to it (E3). */
export const NODES = builtIn('', 'v1', 'nodes', 'Node', false, { shortNames: ['no'], subresources: { status: true, scale: false } });

export const BUILT_IN_RESOURCES: readonly ResourceType[] = [
  NAMESPACES,
  SECRETS,
  CONFIGMAPS,
  EVENTS,
  SERVICEACCOUNTS,
  PODS,
  DEPLOYMENTS,
  REPLICASETS,
  CRDS,
  LEASES,
  CLUSTERROLEBINDINGS,
  CLUSTERROLES,
  ROLEBINDINGS,
  ROLES,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
  SERVICES,
  ENDPOINTS,
  JOBS,
  NETWORK_POLICIES,
  POD_DISRUPTION_BUDGETS,
  NODES,
];

export interface GroupVersions {
  group: string;
  versions: string[];
}

export class ResourceRegistry {
  private readonly types: ResourceType[] = [...BUILT_IN_RESOURCES];

  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.find((t) => t.group === group && t.version === version && t.plural === plural);
  }

  findKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.types.find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
  }

  hasGroupVersion(group: string, version: string): boolean {
    return this.types.some((t) => t.group === group && t.version === version);
  }

  resourcesOf(group: string, version: string): ResourceType[] {
    return this.types.filter((t) => t.group === group && t.version === version);
  }

  /** One served type per storage collection (the first registered version), for controllers that scan every object. */
  byStorageKey(): Map<string, ResourceType> {
    const out = new Map<string, ResourceType>();
    for (const type of this.types) if (!out.has(storageKeyOf(type))) out.set(storageKeyOf(type), type);
    return out;
  }

  /** Every namespaced storage collection, one entry per storage key. */
  namespacedStorageKeys(): string[] {
    return [...new Set(this.types.filter((t) => t.namespaced).map(storageKeyOf))];
  }

  /** Groups other than core, in registration order, for /apis. */
  groups(): GroupVersions[] {
    const byGroup = new Map<string, string[]>();
    for (const type of this.types) {
      if (!type.group) continue;
      const versions = byGroup.get(type.group) ?? [];
      if (!versions.includes(type.version)) versions.push(type.version);
      byGroup.set(type.group, versions);
    }
    return [...byGroup].map(([group, versions]) => ({ group, versions }));
  }

  /** Replaces whatever a CRD of this name registered before with `types`. */
  setCustomResources(crdName: string, types: ResourceType[]): void {
    this.removeCustomResources(crdName);
    this.types.push(...types.map((t) => ({ ...t, crdName })));
  }

  removeCustomResources(crdName: string): void {
    for (let i = this.types.length - 1; i >= 0; i--) {
      if (this.types[i]?.crdName === crdName) this.types.splice(i, 1);
    }
  }
}
