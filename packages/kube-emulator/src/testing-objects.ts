// Test fixtures shared by test files (not built: tsconfig.build.json leaves it out).

// Every built-in kind the server serves, with the fields its real writers send: pruning by
// schema must keep them all. A kind added to BUILT_IN_RESOURCES without an entry here fails, so a
// new kind cannot be served with a schema that silently empties it (as Pods once were).
export const WRITTEN: Record<string, Record<string, unknown>> = {
  '/namespaces': { metadata: { name: 'n', labels: { a: 'b' } }, spec: { finalizers: ['kubernetes'] } },
  '/secrets': { metadata: { name: 's' }, type: 'Opaque', data: { value: 'eA==' }, immutable: false },
  '/configmaps': { metadata: { name: 'c' }, data: { a: 'b' }, immutable: true },
  '/events': { metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', message: 'm', type: 'Normal', count: 1 },
  '/serviceaccounts': { metadata: { name: 'sa' }, automountServiceAccountToken: false },
  '/pods': { metadata: { name: 'p' }, spec: { containers: [{ name: 'g', image: 'x', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'value', optional: false } } }] }] }, status: { phase: 'Running', containerStatuses: [{ name: 'g', ready: true, restartCount: 0, image: 'x', imageID: '' }] } },
  'apps/deployments': { metadata: { name: 'd' }, spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'g', image: 'x' }] } } }, status: { replicas: 1, conditions: [{ type: 'Available', status: 'True' }] } },
  'apps/replicasets': { metadata: { name: 'r' }, spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'g', image: 'x' }] } } }, status: { replicas: 1, readyReplicas: 1 } },
  'apiextensions.k8s.io/customresourcedefinitions': { metadata: { name: 'xs.example.com' }, spec: { group: 'example.com', names: { plural: 'xs', kind: 'X' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true }] } },
  'rbac.authorization.k8s.io/rolebindings': { metadata: { name: 'occ-tenant' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'occ-tenant' }, subjects: [{ kind: 'ServiceAccount', name: 'occ-api', namespace: 'occ-system' }] },
  'rbac.authorization.k8s.io/clusterrolebindings': { metadata: { name: 'cluster-admin' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:masters' }] },
  'rbac.authorization.k8s.io/roles': { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['s'], verbs: ['get'] }] },
  'rbac.authorization.k8s.io/clusterroles': { metadata: { name: 'c' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] }, rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] },
  'coordination.k8s.io/leases': { metadata: { name: 'l' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } },
  '/endpoints': { metadata: { name: 'occ-api' }, subsets: [{ addresses: [{ ip: '192.0.2.2', nodeName: 'n1', targetRef: { kind: 'Pod', name: 'p', namespace: 'ns' } }], ports: [{ name: 'webhook', port: 9443, protocol: 'TCP', appProtocol: 'https' }] }] },
  '/services': { metadata: { name: 'occ-api' }, spec: { type: 'ClusterIP', selector: { app: 'a' }, ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] } },
  'batch/jobs': { metadata: { name: 'j' }, spec: { backoffLimit: 2, ttlSecondsAfterFinished: 600, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'x', args: ['a'] }] } } }, status: { succeeded: 1 } },
  'networking.k8s.io/networkpolicies': { metadata: { name: 'np' }, spec: { podSelector: { matchLabels: { a: 'b' } }, policyTypes: ['Ingress', 'Egress'], ingress: [{ from: [{ namespaceSelector: {} }], ports: [{ protocol: 'TCP', port: 4000 }] }], egress: [{ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }] } },
  'policy/poddisruptionbudgets': { metadata: { name: 'pdb' }, spec: { minAvailable: 1, selector: { matchLabels: { a: 'b' } } }, status: { currentHealthy: 2, desiredHealthy: 1 } },
  '/nodes': {
    metadata: { name: 'kubelet-simulator', labels: { 'kubernetes.io/hostname': 'kubelet-simulator' } },
    spec: { unschedulable: false },
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: { kubeletVersion: 'v1.33.0', osImage: 'x', kernelVersion: 'y', containerRuntimeVersion: 'z', machineID: '', systemUUID: '', bootID: '', operatingSystem: 'linux', architecture: 'amd64', kubeProxyVersion: '' },
    },
  },
  'admissionregistration.k8s.io/validatingadmissionpolicies': {
    metadata: { name: 'p' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: ['rbac.authorization.k8s.io'], apiVersions: ['*'], operations: ['CREATE'], resources: ['rolebindings'], resourceNames: ['x'], scope: '*' }], namespaceSelector: {}, objectSelector: {}, matchPolicy: 'Equivalent' },
      matchConditions: [{ name: 'c', expression: 'true' }],
      variables: [{ name: 'v', expression: 'object.metadata.name' }],
      validations: [{ expression: "object.roleRef.name != 'x'", message: 'm', messageExpression: "'m'", reason: 'Forbidden' }],
    },
  },
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': {
    metadata: { name: 'b' },
    spec: { policyName: 'p', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { a: 'b' } }, objectSelector: {}, matchPolicy: 'Equivalent' } },
  },
  'admissionregistration.k8s.io/validatingwebhookconfigurations': { metadata: { name: 'w' }, webhooks: [{ name: 'w.example.com', clientConfig: { url: 'https://x' }, rules: [{ operations: ['CREATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }], sideEffects: 'None', admissionReviewVersions: ['v1'] }] },
};
