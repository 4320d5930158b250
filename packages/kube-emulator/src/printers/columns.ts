// One description of the Table columns of every built-in kind the server serves, as kube-apiserver
// 1.33 prints them (k8s.io/kubernetes pkg/printers/internalversion/printers.go; CRDs by
// apiextensions-apiserver's default table convertor): names, types and priorities as there, cells by
// the same rules (a column's type is its declared one: Secrets' DATA is a "string" column of a
// number, as there). The server always prints wide (priority 1 columns included); kubectl hides those
// without `-o wide`. Descriptions are shortened from the API's field documentation.

import {
  CLUSTERROLEBINDINGS,
  CLUSTERROLES,
  CONFIGMAPS,
  CRDS,
  DEPLOYMENTS,
  EVENTS,
  JOBS,
  LEASES,
  NAMESPACES,
  NETWORK_POLICIES,
  NODES,
  POD_DISRUPTION_BUDGETS,
  PODS,
  REPLICASETS,
  ROLEBINDINGS,
  ROLES,
  SECRETS,
  SERVICEACCOUNTS,
  SERVICES,
  ENDPOINTS,
  storageKeyOf,
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
  type ResourceType,
} from '../registry.ts';
import { isObject, type KubeObject } from '../types.ts';
import { containerCells, formatLabels, formatLabelSelector, humanDuration, int, intOrString, list, obj, rfc3339, since, text } from './format.ts';
import { podSummary, podWideCells } from './pod.ts';

export interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  cell: (object: KubeObject) => unknown;
}

export interface Printer {
  columns: Column[];
  /** metav1.TableRowCondition entries of a row (a finished Pod's Completed). */
  conditions?: (object: KubeObject) => unknown[] | undefined;
}

type Options = Partial<Omit<Column, 'name' | 'cell'>>;

export function column(name: string, cell: Column['cell'], options: Options = {}): Column {
  return { name, type: 'string', format: '', description: '', priority: 0, cell, ...options };
}

const wide = (name: string, cell: Column['cell'], options: Options = {}) => column(name, cell, { priority: 1, ...options });

export const NAME: Column = column('Name', (o) => o.metadata.name ?? '', {
  format: 'name',
  description: 'Name must be unique within a namespace. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
});

export const AGE: Column = column('Age', (o) => since(o.metadata.creationTimestamp), {
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
});

const CREATED_AT: Column = column('Created At', (o) => rfc3339(o.metadata.creationTimestamp), {
  type: 'date',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
});

const spec = (o: KubeObject) => obj(o.spec);
const status = (o: KubeObject) => obj(o.status);

/** Containers, Images and Selector of a workload's pod template, the wide columns of its printer. */
function templateColumns(): Column[] {
  return [
    wide('Containers', (o) => containerCells(spec(o).template)[0], { description: 'Names of each container in the template.' }),
    wide('Images', (o) => containerCells(spec(o).template)[1], { description: 'Images referenced by each container in the template.' }),
    wide('Selector', (o) => formatLabelSelector(spec(o).selector), { description: 'A label query over pods that should match the replica count.' }),
  ];
}

const hasCondition = (o: KubeObject, type: string) => list(status(o).conditions).some((c) => c.type === type && c.status === 'True');

function jobStatus(o: KubeObject): string {
  if (hasCondition(o, 'Complete')) return 'Complete';
  if (hasCondition(o, 'Failed')) return 'Failed';
  if (typeof o.metadata.deletionTimestamp === 'string') return 'Terminating';
  if (hasCondition(o, 'Suspended')) return 'Suspended';
  if (hasCondition(o, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(o, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

function jobCompletions(o: KubeObject): string {
  const succeeded = int(status(o).succeeded);
  if (typeof spec(o).completions === 'number') return `${succeeded}/${int(spec(o).completions)}`;
  const parallelism = int(spec(o).parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: KubeObject): string {
  const start = Date.parse(text(status(o).startTime));
  if (Number.isNaN(start)) return '';
  const end = Date.parse(text(status(o).completionTime));
  return humanDuration((Number.isNaN(end) ? Date.now() : end) - start);
}

/** getServiceExternalIP, as the server prints it (wide: load balancer addresses not shortened). */
function serviceExternalIp(o: KubeObject): string {
  const declared = Array.isArray(spec(o).externalIPs) ? (spec(o).externalIPs as unknown[]).map(String) : [];
  switch (spec(o).type) {
    case 'ClusterIP':
    case 'NodePort':
      return declared.length > 0 ? declared.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = list(obj(status(o).loadBalancer).ingress).map((i) => text(i.ip) || text(i.hostname)).filter((a) => a !== '');
      const all = [...ingress, ...declared];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return text(spec(o).externalName);
    default:
      return '<unknown>';
  }
}

function servicePorts(o: KubeObject): string {
  const ports = list(spec(o).ports).map((p) => (int(p.nodePort) > 0 ? `${int(p.port)}:${int(p.nodePort)}/${text(p.protocol)}` : `${int(p.port)}/${text(p.protocol)}`));
  return ports.length > 0 ? ports.join(',') : '<none>';
}

/** rbac.SubjectsStrings: users, groups and `namespace:name` service accounts of a binding, each `, `-joined. */
function subjects(o: KubeObject, kind: 'User' | 'Group' | 'ServiceAccount'): string {
  return list(o.subjects)
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${text(s.namespace)}:${text(s.name)}` : text(s.name)))
    .join(', ');
}

const bindingColumns: Column[] = [
  NAME,
  column('Role', (o) => `${text(obj(o.roleRef).kind)}/${text(obj(o.roleRef).name)}`, { description: 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.' }),
  AGE,
  wide('Users', (o) => subjects(o, 'User'), { description: 'Users in the roleBinding' }),
  wide('Groups', (o) => subjects(o, 'Group'), { description: 'Groups in the roleBinding' }),
  wide('ServiceAccounts', (o) => subjects(o, 'ServiceAccount'), { description: 'ServiceAccounts in the roleBinding' }),
];

/** eventTime (a MicroTime) or firstTimestamp, as printEvent reads an Event's first and last sighting. */
function eventTimes(o: KubeObject): { first: string; last: string; count: number } {
  const first = text(o.firstTimestamp) ? since(o.firstTimestamp) : since(o.eventTime);
  let last = text(o.lastTimestamp) ? since(o.lastTimestamp) : first;
  let count = int(o.count);
  const series = o.series === undefined || o.series === null ? undefined : obj(o.series);
  if (series) {
    last = since(series.lastObservedTime);
    count = int(series.count);
  } else if (count === 0) {
    count = 1;
  }
  return { first, last, count };
}

function eventObject(o: KubeObject): string {
  const involved = obj(o.involvedObject);
  const kind = text(involved.kind).toLowerCase();
  return text(involved.name) ? `${kind}/${text(involved.name)}` : kind;
}

function eventSource(o: KubeObject): string {
  const source = obj(o.source);
  const component = text(source.component) || text(o.reportingComponent);
  const instance = text(source.host) || text(o.reportingInstance);
  return instance ? `${component}, ${instance}` : component;
}

/** printNode's STATUS: the Ready condition's word, then SchedulingDisabled when cordoned. */
function nodeStatus(o: KubeObject): string {
  const ready = list(status(o).conditions).find((c) => c.type === 'Ready');
  const words = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (spec(o).unschedulable === true) words.push('SchedulingDisabled');
  return words.join(',');
}

/** findNodeRoles: node-role.kubernetes.io/<role> label keys and the kubernetes.io/role value, sorted; <none> without. */
function nodeRoles(o: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(obj(o.metadata.labels))) {
    if (key.startsWith('node-role.kubernetes.io/') && key.length > 'node-role.kubernetes.io/'.length) roles.add(key.slice('node-role.kubernetes.io/'.length));
    else if (key === 'kubernetes.io/role' && value !== '') roles.add(String(value));
  }
  return roles.size > 0 ? [...roles].sort().join(',') : '<none>';
}

function nodeAddress(o: KubeObject, type: string): string {
  return text(list(status(o).addresses).find((a) => a.type === type)?.address) || '<none>';
}

const pod = (cell: (s: ReturnType<typeof podSummary>) => string) => (o: KubeObject) => cell(podSummary(o));

const PRINTERS = new Map<string, Printer>([
  [
    storageKeyOf(PODS),
    {
      columns: [
        NAME,
        column('Ready', pod((s) => s.ready), { description: 'The aggregate readiness state of this pod for accepting traffic.' }),
        column('Status', pod((s) => s.status), { description: 'The aggregate status of the containers in this pod.' }),
        column('Restarts', pod((s) => s.restarts), { description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.' }),
        AGE,
        wide('IP', (o) => podWideCells(o)[0], { description: 'podIP address allocated to the pod.' }),
        wide('Node', (o) => podWideCells(o)[1], { description: 'NodeName indicates in which node this pod is scheduled.' }),
        wide('Nominated Node', (o) => podWideCells(o)[2], { description: 'nominatedNodeName is set only when this pod preempts other pods on the node.' }),
        wide('Readiness Gates', (o) => podWideCells(o)[3], { description: 'If specified, all readiness gates will be evaluated for pod readiness.' }),
      ],
      conditions: (o) => podSummary(o).conditions,
    },
  ],
  [
    storageKeyOf(EVENTS),
    {
      columns: [
        column('Last Seen', (o) => eventTimes(o).last, { description: 'The time at which the most recent occurrence of this event was recorded.' }),
        column('Type', (o) => text(o.type), { description: 'Type of this event (Normal, Warning).' }),
        column('Reason', (o) => text(o.reason), { description: 'This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.' }),
        column('Object', eventObject, { description: 'The object this Event is about.' }),
        wide('Subobject', (o) => text(obj(o.involvedObject).fieldPath), { description: 'The part of the object this Event is about (fieldPath).' }),
        wide('Source', eventSource, { description: 'The component reporting this event.' }),
        column('Message', (o) => text(o.message).trim(), { description: 'A human-readable description of the status of this operation.' }),
        wide('First Seen', (o) => eventTimes(o).first, { description: 'The time at which the event was first recorded.' }),
        wide('Count', (o) => eventTimes(o).count, { description: 'The number of times this event has occurred.' }),
        wide('Name', (o) => o.metadata.name ?? '', { format: 'name', description: NAME.description }),
      ],
    },
  ],
  [storageKeyOf(NAMESPACES), { columns: [NAME, column('Status', (o) => text(status(o).phase), { description: 'The status of the namespace' }), AGE] }],
  [
    storageKeyOf(SECRETS),
    {
      columns: [
        NAME,
        column('Type', (o) => text(o.type), { description: 'Used to facilitate programmatic handling of secret data.' }),
        column('Data', (o) => Object.keys(obj(o.data)).length, { description: 'Data contains the secret data.' }),
        AGE,
      ],
    },
  ],
  [
    storageKeyOf(CONFIGMAPS),
    { columns: [NAME, column('Data', (o) => Object.keys(obj(o.data)).length + Object.keys(obj(o.binaryData)).length, { description: 'Data contains the configuration data.' }), AGE] },
  ],
  [storageKeyOf(SERVICEACCOUNTS), { columns: [NAME, column('Secrets', (o) => list(o.secrets).length, { description: 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.' }), AGE] }],
  [storageKeyOf(LEASES), { columns: [NAME, column('Holder', (o) => text(spec(o).holderIdentity), { description: 'holderIdentity contains the identity of the holder of a current lease.' }), AGE] }],
  [
    storageKeyOf(SERVICES),
    {
      columns: [
        NAME,
        column('Type', (o) => text(spec(o).type), { description: 'type determines how the Service is exposed.' }),
        column('Cluster-IP', (o) => (Array.isArray(spec(o).clusterIPs) ? String((spec(o).clusterIPs as unknown[])[0] ?? '<none>') : '<none>'), { description: 'clusterIP is the IP address of the service.' }),
        column('External-IP', serviceExternalIp, { description: 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.' }),
        column('Port(s)', servicePorts, { description: 'The list of ports that are exposed by this service.' }),
        AGE,
        wide('Selector', (o) => formatLabels(spec(o).selector), { description: 'Route service traffic to pods with label keys and values matching this selector.' }),
      ],
    },
  ],
  [storageKeyOf(ENDPOINTS), { columns: [NAME, column('Endpoints', endpointsList, { description: 'Endpoints of the service.' }), AGE] }],
  [
    storageKeyOf(DEPLOYMENTS),
    {
      columns: [
        NAME,
        column('Ready', (o) => `${int(status(o).readyReplicas)}/${int(spec(o).replicas)}`, { description: 'Number of the pod with ready state' }),
        column('Up-to-date', (o) => int(status(o).updatedReplicas), { description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.' }),
        column('Available', (o) => int(status(o).availableReplicas), { description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.' }),
        AGE,
        ...templateColumns(),
      ],
    },
  ],
  [
    storageKeyOf(REPLICASETS),
    {
      columns: [
        NAME,
        column('Desired', (o) => int(spec(o).replicas), { type: 'integer', description: 'Replicas is the number of desired replicas.' }),
        column('Current', (o) => int(status(o).replicas), { type: 'integer', description: 'Replicas is the most recently observed number of replicas.' }),
        column('Ready', (o) => int(status(o).readyReplicas), { type: 'integer', description: 'The number of ready replicas for this replica set.' }),
        AGE,
        ...templateColumns(),
      ],
    },
  ],
  [
    storageKeyOf(JOBS),
    {
      columns: [
        NAME,
        column('Status', jobStatus, { description: 'Status of the job.' }),
        column('Completions', jobCompletions, { description: 'The number of pods which reached phase Succeeded.' }),
        column('Duration', jobDuration, { description: 'Time required to complete the job.' }),
        AGE,
        ...templateColumns(),
      ],
    },
  ],
  [storageKeyOf(NETWORK_POLICIES), { columns: [NAME, column('Pod-Selector', (o) => formatLabelSelector(spec(o).podSelector ?? {}), { description: 'Selects the pods to which this NetworkPolicy object applies.' }), AGE] }],
  [
    storageKeyOf(POD_DISRUPTION_BUDGETS),
    {
      columns: [
        NAME,
        column('Min Available', (o) => (spec(o).minAvailable === undefined ? 'N/A' : intOrString(spec(o).minAvailable)), { description: 'The minimum number of pods that must be available.' }),
        column('Max Unavailable', (o) => (spec(o).maxUnavailable === undefined ? 'N/A' : intOrString(spec(o).maxUnavailable)), { description: 'The maximum number of pods that may be unavailable.' }),
        column('Allowed Disruptions', (o) => int(status(o).disruptionsAllowed), { type: 'integer', description: 'Calculated number of pods that may be disrupted at this time.' }),
        AGE,
      ],
    },
  ],
  [storageKeyOf(ROLES), { columns: [NAME, CREATED_AT] }],
  [storageKeyOf(CLUSTERROLES), { columns: [NAME, CREATED_AT] }],
  [storageKeyOf(ROLEBINDINGS), { columns: bindingColumns }],
  [storageKeyOf(CLUSTERROLEBINDINGS), { columns: bindingColumns }],
  [storageKeyOf(VALIDATING_WEBHOOK_CONFIGURATIONS), { columns: [NAME, column('Webhooks', (o) => list(o.webhooks).length, { type: 'integer', description: 'Webhooks is a list of webhooks and the affected resources and operations.' }), AGE] }],
  [
    storageKeyOf(VALIDATING_ADMISSION_POLICIES),
    {
      columns: [
        NAME,
        column('Validations', (o) => list(spec(o).validations).length, { type: 'integer', description: 'Validations indicates the number of validation rules in a ValidatingAdmissionPolicy' }),
        column('ParamKind', (o) => paramKind(spec(o).paramKind), { description: 'ParamKind specifies the kind of resources used to parameterize this policy' }),
        AGE,
      ],
    },
  ],
  [
    storageKeyOf(VALIDATING_ADMISSION_POLICY_BINDINGS),
    {
      columns: [
        NAME,
        column('PolicyName', (o) => String(spec(o).policyName ?? ''), { description: 'PolicyName indicates the policy definition which the policy binding binded to' }),
        column('ParamRef', (o) => paramRef(spec(o).paramRef), { description: 'ParamRef indicates the param resource which sets the configration param' }),
        AGE,
      ],
    },
  ],
  [storageKeyOf(CRDS), { columns: [NAME, CREATED_AT] }],
  [
    storageKeyOf(NODES),
    {
      columns: [
        NAME,
        column('Status', nodeStatus, { description: 'The status of the node' }),
        column('Roles', nodeRoles, { description: 'The roles of the node' }),
        AGE,
        column('Version', (o) => text(obj(status(o).nodeInfo).kubeletVersion), { description: 'Kubelet Version reported by the node.' }),
        wide('Internal-IP', (o) => nodeAddress(o, 'InternalIP'), { description: 'List of addresses reachable to the node.' }),
        wide('External-IP', (o) => nodeAddress(o, 'ExternalIP'), { description: 'List of addresses reachable to the node.' }),
        wide('OS-Image', (o) => text(obj(status(o).nodeInfo).osImage) || '<unknown>', { description: 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).' }),
        wide('Kernel-Version', (o) => text(obj(status(o).nodeInfo).kernelVersion) || '<unknown>', { description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)." }),
        wide('Container-Runtime', (o) => text(obj(status(o).nodeInfo).containerRuntimeVersion) || '<unknown>', { description: 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).' }),
      ],
    },
  ],
]);

/** The printer of a built-in kind; undefined for custom resources and for a built-in kind nobody described (the E10 matrix test fails on one). */
export function builtInPrinter(type: Pick<ResourceType, 'group' | 'plural' | 'crdName'>): Printer | undefined {
  return type.crdName === undefined ? PRINTERS.get(storageKeyOf(type)) : undefined;
}

/** printValidatingAdmissionPolicy: the param kind as apiVersion/Kind, or <unset>. */
function paramKind(value: unknown): string {
  if (!isObject(value)) return '<unset>';
  return `${String(value.apiVersion ?? '')}/${String(value.kind ?? '')}`;
}

/** printValidatingAdmissionPolicyBinding: the parameter as namespace/name (or *\/ with a selector), or <unset>. */
function paramRef(value: unknown): string {
  if (!isObject(value)) return '<unset>';
  const namespace = typeof value.namespace === 'string' && value.namespace !== '' ? `${value.namespace}/` : '*/';
  const name = typeof value.name === 'string' && value.name !== '' ? value.name : isObject(value.selector) ? JSON.stringify(value.selector) : '';
  return `${namespace}${name}`;
}

/** formatEndpoints (pkg/printers/internalversion): ip:port pairs, the first three, then "+ N more...". */
function endpointsList(o: KubeObject): string {
  const pairs: string[] = [];
  for (const subset of list(o.subsets)) {
    const entry = obj(subset);
    const ports = list(entry.ports).map((port) => obj(port).port);
    for (const address of list(entry.addresses)) {
      const ip = String(obj(address).ip ?? '');
      const host = ip.includes(':') ? `[${ip}]` : ip;
      if (ports.length === 0) pairs.push(ip);
      else for (const port of ports) pairs.push(`${host}:${String(port)}`);
    }
  }
  if (pairs.length === 0) return '<none>';
  return pairs.length > 3 ? `${pairs.slice(0, 3).join(',')} + ${pairs.length - 3} more...` : pairs.join(',');
}
