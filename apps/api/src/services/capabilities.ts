import type { AccessRequest } from '@occ/domain/access';

// What a caller may do to one object, as the console asks before it shows a control
// (`viewerCan` on Namespace, Secret, Configuration and Agent). Each capability is the access
// request its mutations authorize with: the services build their requests here too, so the
// answer and the mutation's decision are one decision, never two that could drift apart.

type Request = Omit<AccessRequest, 'subjectId'>;
type Located = { id: string; namespaceId: string };

const on = (resourceKind: Request['resourceKind'], action: Request['action']) => (o: Located): Request => ({ action, resourceKind, namespaceId: o.namespaceId, resourceId: o.id });
const inNamespace = (resourceKind: Request['resourceKind'], action: Request['action']) => (n: { id: string }): Request => ({ action, resourceKind, namespaceId: n.id, resourceId: null });

export const CAPABILITIES = {
  namespace: {
    /** createSecret in it. */
    createSecret: { mutations: ['createSecret'], request: inNamespace('secret', 'create') },
    /** createConfiguration in it. */
    createConfiguration: { mutations: ['createConfiguration'], request: inNamespace('configuration', 'create') },
    /** createAgent in it. */
    createAgent: { mutations: ['createAgent'], request: inNamespace('agent', 'create') },
    /** reprovisionNamespace and its secrets' default rotation policy. */
    administer: { mutations: ['reprovisionNamespace', 'setNamespaceSecretRotationPolicy'], request: (n: { id: string }): Request => ({ action: 'administer', resourceKind: 'namespace', namespaceId: n.id, resourceId: n.id }) },
  },
  secret: {
    /** updateSecret: store a new value (rotate). */
    update: { mutations: ['updateSecret'], request: on('secret', 'update') },
    /** deleteSecret. */
    delete: { mutations: ['deleteSecret'], request: on('secret', 'delete') },
    /** Its rotation policy, and the decisions on its rollouts (approve, pause, resume, abort). */
    administer: {
      mutations: ['setSecretRotationPolicy', 'approveSecretRollout', 'pauseSecretRollout', 'resumeSecretRollout', 'abortSecretRollout'],
      request: on('secret', 'administer'),
    },
    /** Bind it in a configuration, or use it as an agent's harnessAuth (C3, C4). */
    operate: { mutations: ['createConfiguration', 'updateConfiguration', 'createAgent', 'updateAgent'], request: on('secret', 'operate') },
  },
  configuration: {
    update: { mutations: ['updateConfiguration'], request: on('configuration', 'update') },
    delete: { mutations: ['deleteConfiguration'], request: on('configuration', 'delete') },
  },
  agent: {
    update: { mutations: ['updateAgent'], request: on('agent', 'update') },
    delete: { mutations: ['deleteAgent'], request: on('agent', 'delete') },
    /** deployAgent, stopAgent and rollbackAgent (the deploy itself also needs the agent's principal to operate its secrets, D2). */
    deploy: { mutations: ['deployAgent', 'stopAgent', 'rollbackAgent'], request: on('agent', 'deploy') },
    /** Decisions on its SelfConfig requests (approve, reject) and resuming its SelfConfig. */
    administer: { mutations: ['approveSelfConfig', 'rejectSelfConfig', 'resumeSelfConfig'], request: on('agent', 'administer') },
  },
} as const;

export type CapabilityKind = keyof typeof CAPABILITIES;
export type Capability<K extends CapabilityKind> = keyof (typeof CAPABILITIES)[K] & string;

/** The access request `capability` on `object` is decided by: what its mutations authorize with. */
export function capabilityRequest<K extends CapabilityKind>(kind: K, capability: Capability<K>, object: Located | { id: string }): Request {
  const entry = (CAPABILITIES[kind] as Record<string, { request: (o: never) => Request }>)[capability]!;
  return entry.request(object as never);
}
