import { canonicalJsonIndented, contentHash, sha256Hex } from './content-hash.ts';
import { envPartOwners, type FieldOwner } from './field-ownership.ts';
import {
  AGENT_ID_LABEL,
  FIELD_MANAGER,
  gatewayDeploymentName,
  INSTALLATION_ID_LABEL,
  MANAGED_BY_LABEL,
  NAMESPACE_ID_LABEL,
  REVISION_NUMBER_LABEL,
  SECRET_VALUE_KEY,
  SELFCONFIG_AGENT_ROLE,
} from './kubernetes-names.ts';
import { INSTANCE_API_VERSION } from './revision-render.ts';

// RC2: the gateway's children, rendered from the OpenClawInstance alone (its spec, its labels and
// its managedFields), by pure functions. The reconciler applies them; nothing else describes what
// the gateway runs (RC1). Each child is named deterministically, labelled as the instance is, and
// owned by the instance (ownerReferences), so garbage collection retires them with it.
//
// What the gateway runs:
// - an immutable ConfigMap named by the hash of its content: `openclaw.json` (spec.config.raw),
//   `skills.json` (spec.skills) and one key per workspace file (spec.workspace.initialFiles), so a
//   new document is a new object and Pods roll to it;
// - the Deployment: the gateway container with the platform's env and spec.env, the ConfigMap
//   mounted at /etc/openclaw and the workspace files at /workspace; with spec.modelAuth, a
//   model-auth container that mounts the revision-owned Secret (D5) and nothing else;
// - the ServiceAccount the gateway runs as (a token only with selfConfigure), and with
//   selfConfigure enabled the RoleBinding that lets it file SelfConfig requests (SC5).
//
// An env item whose value comes from a reference (valueFrom) is rendered only when occ-controller
// holds that reference, i.e. a revision admitted it (D2): a secretKeyRef written into the instance
// by anyone else is left out and reported, never delivered.

export const GATEWAY_COMPONENT_LABEL = 'app.kubernetes.io/component';
export const GATEWAY_COMPONENT = 'openclaw-gateway';
export const GATEWAY_CONTAINER = 'gateway';
export const MODEL_AUTH_CONTAINER = 'model-auth';
export const CONFIG_FILE = 'openclaw.json';
export const SKILLS_FILE = 'skills.json';
export const CONFIG_MOUNT_PATH = '/etc/openclaw';
export const WORKSPACE_MOUNT_PATH = '/workspace';
export const MODEL_AUTH_MOUNT_PATH = '/var/run/openclaw/model-auth';
export const DEFAULT_MODEL_AUTH_IMAGE = 'ghcr.io/openclaw/model-auth:latest';
/** Pod template annotations: which revision the Pods run, and the hash of the template they were made from. */
export const REVISION_ID_ANNOTATION = 'openclaw.rocks/revision-id';
export const TEMPLATE_HASH_ANNOTATION = 'openclaw.rocks/template-hash';
/** On the Deployment (not its template): the instance generation whose rendering it holds. */
export const INSTANCE_GENERATION_ANNOTATION = 'openclaw.rocks/instance-generation';

/** The platform's own env names in the gateway container: every one of them reserved (C2, SC4). */
export const PLATFORM_ENV_NAMES = ['OPENCLAW_CONFIG_PATH', 'OPENCLAW_SKILLS_PATH', 'OPENCLAW_WORKSPACE_DIR', 'OPENCLAW_INSTANCE_NAME', 'OPENCLAW_NAMESPACE'] as const;

type Obj = Record<string, unknown>;

export interface InstanceObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation?: number;
    resourceVersion?: string;
    labels?: Record<string, string>;
    managedFields?: unknown;
    deletionTimestamp?: string;
  };
  spec?: Obj;
  status?: Obj;
}

export interface RenderOptions {
  images?: { modelAuth?: string };
}

/** An env item of the instance that is not rendered, and who wrote it. */
export interface IgnoredEnv {
  name: string;
  reason: 'unadmitted-reference' | 'value-and-reference';
  owners: FieldOwner[];
}

export interface GatewayRender {
  agentUuid: string;
  ownerReference: Obj;
  configMap: Obj;
  configMapName: string;
  deployment: Obj;
  deploymentName: string;
  serviceAccount: Obj;
  serviceAccountName: string;
  /** Null when selfConfigure is off: the reconciler removes one an earlier spec made. */
  roleBinding: Obj | null;
  roleBindingName: string;
  /** The hash of the pod template (without this annotation): Pods carrying it run this rendering. */
  templateHash: string;
  /** spec.revision, when a revision set it. */
  revision: { id: string; number: number } | null;
  /** spec.modelAuth's Secret, when the instance names one. */
  modelAuthSecretName: string | null;
  replicas: number;
  ignoredEnv: IgnoredEnv[];
}

const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The labels of ours the children carry: the instance's installation, namespace and agent labels. */
function childLabels(instance: InstanceObject): Record<string, string> {
  const labels = instance.metadata.labels ?? {};
  const out: Record<string, string> = {};
  for (const key of [MANAGED_BY_LABEL, INSTALLATION_ID_LABEL, NAMESPACE_ID_LABEL, AGENT_ID_LABEL]) if (labels[key] !== undefined) out[key] = labels[key];
  return out;
}

/** Whether the reconciler of installation `installationId` renders this instance: it is labelled ours, with an agent. */
export function isRenderable(instance: InstanceObject, installationId: string): boolean {
  const labels = instance.metadata.labels ?? {};
  return labels[INSTALLATION_ID_LABEL] === installationId && typeof labels[AGENT_ID_LABEL] === 'string' && labels[AGENT_ID_LABEL] !== '';
}

/** The names of an agent's children, from the UUID in its agent label. */
export function gatewayChildNames(agentUuid: string, configHash: string): { deployment: string; configMap: string; serviceAccount: string; roleBinding: string } {
  const instanceName = `agent-${agentUuid}`;
  return {
    deployment: gatewayDeploymentName(`agt_${agentUuid}`),
    configMap: `gateway-config-${agentUuid}-${configHash}`,
    serviceAccount: instanceName,
    roleBinding: `${instanceName}-selfconfig`,
  };
}

/** A workspace file's ConfigMap key: keys allow only [-._a-zA-Z0-9], paths hold slashes. */
export function workspaceKey(path: string): string {
  return `workspace-${sha256Hex(path).slice(0, 20)}`;
}

function sortedJson(value: unknown): string {
  return canonicalJsonIndented(value);
}

/**
 * The env of spec.env the gateway receives: literals as they are; a reference only when
 * occ-controller owns it (admitted by a revision); an item with both a value and a reference
 * (two managers' halves) delivers the reference, never both (RC3).
 */
function specEnv(instance: InstanceObject): { env: Obj[]; ignored: IgnoredEnv[] } {
  const items = Array.isArray(instance.spec?.env) ? instance.spec.env.filter(isObject) : [];
  const owners = envPartOwners(instance.metadata.managedFields);
  const env: Obj[] = [];
  const ignored: IgnoredEnv[] = [];
  const reserved = new Set<string>([...PLATFORM_ENV_NAMES]);
  for (const item of items) {
    const name = str(item.name);
    if (!name || reserved.has(name)) continue;
    if (item.valueFrom !== undefined) {
      const by = owners.get(name)?.valueFrom ?? [];
      if (!by.some((o) => o.manager === FIELD_MANAGER)) {
        ignored.push({ name, reason: 'unadmitted-reference', owners: by });
        continue;
      }
      const ref = isObject(item.valueFrom) && isObject(item.valueFrom.secretKeyRef) ? item.valueFrom.secretKeyRef : null;
      if (!ref) {
        ignored.push({ name, reason: 'unadmitted-reference', owners: by });
        continue;
      }
      if (item.value !== undefined) ignored.push({ name, reason: 'value-and-reference', owners: by });
      env.push({ name, valueFrom: { secretKeyRef: { name: str(ref.name) ?? '', key: str(ref.key) ?? SECRET_VALUE_KEY, optional: ref.optional === true } } });
    } else if (typeof item.value === 'string') {
      env.push({ name, value: item.value });
    }
  }
  return { env, ignored };
}

/** RC2: every child of the instance, from its spec, labels and managedFields alone. */
export function renderGateway(instance: InstanceObject, options: RenderOptions = {}): GatewayRender {
  const spec = instance.spec ?? {};
  const labels = childLabels(instance);
  const agentUuid = labels[AGENT_ID_LABEL] ?? '';
  const namespace = instance.metadata.namespace;
  const ownerReference = { apiVersion: INSTANCE_API_VERSION, kind: 'OpenClawInstance', name: instance.metadata.name, uid: instance.metadata.uid, controller: true, blockOwnerDeletion: true };
  const meta = (name: string, extra: Record<string, string> = {}) => ({ name, namespace, labels: { ...labels, ...extra }, ownerReferences: [ownerReference] });

  const config = isObject(spec.config) && isObject(spec.config.raw) ? spec.config.raw : {};
  const skills = Array.isArray(spec.skills) ? spec.skills.filter((s): s is string => typeof s === 'string').sort() : [];
  const workspace = isObject(spec.workspace) && isObject(spec.workspace.initialFiles) ? spec.workspace.initialFiles : {};
  const files = Object.entries(workspace)
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data: Record<string, string> = { [CONFIG_FILE]: sortedJson(config), [SKILLS_FILE]: JSON.stringify(skills) };
  for (const [path, content] of files) data[workspaceKey(path)] = content;
  const names = gatewayChildNames(agentUuid, contentHash(data));

  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(names.configMap), immutable: true, data };

  const selfConfigure = isObject(spec.selfConfigure) && spec.selfConfigure.enabled === true;
  const serviceAccount = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(names.serviceAccount), automountServiceAccountToken: selfConfigure };
  const roleBinding = selfConfigure
    ? {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: meta(names.roleBinding),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: SELFCONFIG_AGENT_ROLE },
        subjects: [{ kind: 'ServiceAccount', name: names.serviceAccount, namespace }],
      }
    : null;

  const revision = isObject(spec.revision) && typeof spec.revision.id === 'string' && Number.isInteger(spec.revision.number) ? { id: spec.revision.id, number: spec.revision.number as number } : null;
  const modelAuth = isObject(spec.modelAuth) && typeof spec.modelAuth.secretName === 'string' ? { provider: str(spec.modelAuth.provider) ?? '', secretName: spec.modelAuth.secretName } : null;
  const replicas = typeof spec.replicas === 'number' && Number.isInteger(spec.replicas) && spec.replicas >= 0 ? spec.replicas : 1;
  const { env, ignored } = specEnv(instance);

  const gateway: Obj = {
    name: GATEWAY_CONTAINER,
    image: str(spec.image) ?? 'ghcr.io/openclaw/openclaw:latest',
    securityContext: restrictedContainer(),
    env: [
      { name: 'OPENCLAW_CONFIG_PATH', value: `${CONFIG_MOUNT_PATH}/${CONFIG_FILE}` },
      { name: 'OPENCLAW_SKILLS_PATH', value: `${CONFIG_MOUNT_PATH}/${SKILLS_FILE}` },
      { name: 'OPENCLAW_WORKSPACE_DIR', value: WORKSPACE_MOUNT_PATH },
      { name: 'OPENCLAW_INSTANCE_NAME', value: instance.metadata.name },
      { name: 'OPENCLAW_NAMESPACE', value: namespace },
      ...env,
    ],
    volumeMounts: [
      { name: 'config', mountPath: CONFIG_MOUNT_PATH, readOnly: true },
      ...(files.length ? [{ name: 'workspace', mountPath: WORKSPACE_MOUNT_PATH, readOnly: true }] : []),
    ],
  };
  if (isObject(spec.resources)) gateway.resources = spec.resources;
  const containers: Obj[] = [gateway];
  const volumes: Obj[] = [
    {
      name: 'config',
      configMap: {
        name: names.configMap,
        items: [
          { key: CONFIG_FILE, path: CONFIG_FILE },
          { key: SKILLS_FILE, path: SKILLS_FILE },
        ],
      },
    },
  ];
  if (files.length) volumes.push({ name: 'workspace', configMap: { name: names.configMap, items: files.map(([path]) => ({ key: workspaceKey(path), path })) } });
  if (modelAuth) {
    volumes.push({ name: 'model-auth', secret: { secretName: modelAuth.secretName, optional: false } });
    containers.push({
      name: MODEL_AUTH_CONTAINER,
      image: options.images?.modelAuth ?? DEFAULT_MODEL_AUTH_IMAGE,
      env: [
        { name: 'MODEL_PROVIDER', value: modelAuth.provider },
        { name: 'MODEL_CREDENTIAL_FILE', value: `${MODEL_AUTH_MOUNT_PATH}/${SECRET_VALUE_KEY}` },
      ],
      volumeMounts: [{ name: 'model-auth', mountPath: MODEL_AUTH_MOUNT_PATH, readOnly: true }],
      securityContext: restrictedContainer(),
    });
  }
  const selector = { ...labels, [GATEWAY_COMPONENT_LABEL]: GATEWAY_COMPONENT };
  const template = {
    metadata: {
      labels: { ...selector, ...(revision ? { [REVISION_NUMBER_LABEL]: String(revision.number) } : {}) },
      annotations: revision ? { [REVISION_ID_ANNOTATION]: revision.id } : {},
    },
    spec: { serviceAccountName: names.serviceAccount, automountServiceAccountToken: selfConfigure, securityContext: RESTRICTED_POD, containers, volumes },
  };
  const templateHash = contentHash(template);
  (template.metadata.annotations as Record<string, string>)[TEMPLATE_HASH_ANNOTATION] = templateHash;
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      ...meta(names.deployment, { [GATEWAY_COMPONENT_LABEL]: GATEWAY_COMPONENT }),
      annotations: { [INSTANCE_GENERATION_ANNOTATION]: String(instance.metadata.generation ?? 0) },
    },
    spec: { replicas, selector: { matchLabels: selector }, template },
  };
  return {
    agentUuid,
    ownerReference,
    configMap,
    configMapName: names.configMap,
    deployment,
    deploymentName: names.deployment,
    serviceAccount,
    serviceAccountName: names.serviceAccount,
    roleBinding,
    roleBindingName: names.roleBinding,
    templateHash,
    revision,
    modelAuthSecretName: modelAuth?.secretName ?? null,
    replicas,
    ignoredEnv: ignored,
  };
}

/**
 * Pod Security `restricted` (the product labels its namespaces to enforce it): no root, no
 * privilege escalation, no capabilities, the runtime's seccomp profile. The root filesystem stays
 * writable: the OpenClaw gateway keeps its state under its home directory.
 */
const RESTRICTED_POD = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };

function restrictedContainer(): Obj {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
}

let injected: ReadonlySet<string> | null = null;

/**
 * SC4, SG5: every env name the platform puts into a gateway Pod, read from a rendering with every
 * optional part on (model auth, selfConfigure, workspace files), so a name added to the render is
 * protected without a second list to keep in step. An agent may neither set nor remove any of them.
 */
export function platformInjectedEnvNames(): ReadonlySet<string> {
  if (injected) return injected;
  const probe: InstanceObject = {
    metadata: { name: 'probe', namespace: 'probe', uid: 'probe', labels: {} },
    spec: { modelAuth: { provider: 'probe', secretName: 'probe' }, selfConfigure: { enabled: true }, workspace: { initialFiles: { probe: 'probe' } } },
  };
  const pod = (renderGateway(probe).deployment.spec as { template: { spec: { containers?: Obj[]; initContainers?: Obj[] } } }).template.spec;
  const names = new Set<string>();
  for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    for (const item of Array.isArray(container.env) ? container.env.filter(isObject) : []) if (typeof item.name === 'string') names.add(item.name);
  }
  injected = names;
  return names;
}
