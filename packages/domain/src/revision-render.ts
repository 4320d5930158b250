import {
  agentInstanceName,
  agentLabels,
  agentServiceAccountName,
  gatewayConfigMapName,
  gatewayDeploymentName,
  harnessSecretName,
  REVISION_NUMBER_LABEL,
  SECRET_VALUE_KEY,
  SELFCONFIG_AGENT_ROLE,
  selfConfigRoleBindingName,
} from './kubernetes-names.ts';
import { gatewayBindings, type FrozenRevision } from './revision.ts';

// The Kubernetes objects of one revision (W4, D5), as pure functions of the frozen revision and
// its secret context (W3: each Secret's backend name, resolved from metadata for this run and
// never stored). Each is applied with server-side apply by `occ-controller`. Only the
// revision-owned model-auth Secret holds a value; every other object holds references only.

/** The label the kubelet simulator and the deployment controller select gateways by (E3). */
export const GATEWAY_COMPONENT_LABEL = 'app.kubernetes.io/component';
export const GATEWAY_COMPONENT = 'openclaw-gateway';
export const GATEWAY_CONTAINER = 'gateway';
export const MODEL_AUTH_CONTAINER = 'model-auth';
export const CONFIG_FILE = 'openclaw.json';
export const CONFIG_MOUNT_PATH = '/etc/openclaw';
export const MODEL_AUTH_MOUNT_PATH = '/var/run/openclaw/model-auth';
export const DEFAULT_GATEWAY_IMAGE = 'ghcr.io/openclaw/openclaw:latest';
export const DEFAULT_MODEL_AUTH_IMAGE = 'ghcr.io/openclaw/model-auth:latest';
export const REVISION_ID_ANNOTATION = 'openclaw.rocks/revision-id';

export interface RenderContext {
  installationId: string;
  /** The agent's Kubernetes namespace. */
  k8sNamespace: string;
  revisionId: string;
  /** W3: secret id → the name of its Kubernetes Secret, for this run only. */
  secretNames: ReadonlyMap<string, string>;
  images?: { gateway?: string; modelAuth?: string };
}

export type RenderRevision = Pick<FrozenRevision, 'agentId' | 'namespaceId' | 'number' | 'configuration' | 'secrets' | 'harnessAuth' | 'selfConfigure'>;

/** UTF-8 then base64, without Node's Buffer (the domain runs in the console too). */
function base64(value: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

// Loose object shapes (what is sent to the API server).
type Obj = Record<string, unknown>;

function metadata(revision: RenderRevision, context: RenderContext, name: string, extraLabels: Record<string, string> = {}): Obj {
  return { name, namespace: context.k8sNamespace, labels: { ...agentLabels(revision.namespaceId, revision.agentId, context.installationId), ...extraLabels } };
}

function secretName(context: RenderContext, secretId: string): string {
  const name = context.secretNames.get(secretId);
  if (!name) throw new Error(`the secret context has no Secret for ${secretId}`);
  return name;
}

/** The gateway's secret env: one secretKeyRef per binding, optional false, key `value`. */
export function gatewaySecretEnv(revision: RenderRevision, context: RenderContext): Obj[] {
  return gatewayBindings(revision).map((b) => ({
    name: b.envName,
    valueFrom: { secretKeyRef: { name: secretName(context, b.source.id), key: SECRET_VALUE_KEY, optional: false } },
  }));
}

/** The parts of the native document the instance carries apart: skills and workspace files. */
export function splitValues(values: Record<string, unknown>): { skills: string[]; initialFiles: Record<string, string>; raw: Record<string, unknown>; model: string | null } {
  const { skills, workspaceFiles, ...raw } = values;
  const skillList = Array.isArray(skills) ? skills.filter((s): s is string => typeof s === 'string') : [];
  const files: Record<string, string> = {};
  if (typeof workspaceFiles === 'object' && workspaceFiles !== null && !Array.isArray(workspaceFiles)) {
    for (const [path, content] of Object.entries(workspaceFiles)) if (typeof content === 'string') files[path] = content;
  }
  const agents = raw.agents as { defaults?: { model?: unknown } } | undefined;
  const model = typeof raw.model === 'string' ? raw.model : typeof agents?.defaults?.model === 'string' ? agents.defaults.model : null;
  return { skills: [...new Set(skillList)], initialFiles: files, raw, model };
}

export function renderServiceAccount(revision: RenderRevision, context: RenderContext): Obj {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: metadata(revision, context, agentServiceAccountName(revision.agentId)),
    // The gateway talks to the API server only to file SelfConfig requests.
    automountServiceAccountToken: revision.selfConfigure.enabled,
  };
}

/**
 * SC5: with selfConfigure enabled, the agent's ServiceAccount may create (and read back) the
 * OpenClawSelfConfig requests of its own namespace: a RoleBinding there of the ClusterRole
 * occ-selfconfig-agent (deploy/rbac.yaml). Without it a real cluster refuses the agent's request
 * (403) before the admission webhook decides whose instance it names. Disabled: none is rendered,
 * and the compute driver removes one a previous revision made.
 */
export function renderSelfConfigRoleBinding(revision: RenderRevision, context: RenderContext): Obj | null {
  if (!revision.selfConfigure.enabled) return null;
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: metadata(revision, context, selfConfigRoleBindingName(revision.agentId)),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: SELFCONFIG_AGENT_ROLE },
    subjects: [{ kind: 'ServiceAccount', name: agentServiceAccountName(revision.agentId), namespace: context.k8sNamespace }],
  };
}

/** The agent's OpenClawInstance, applied with SSA as occ-controller (W4). */
export function renderInstance(revision: RenderRevision, context: RenderContext): Obj {
  const { skills, initialFiles, raw, model } = splitValues(revision.configuration?.values ?? {});
  return {
    apiVersion: 'openclaw.rocks/v1alpha1',
    kind: 'OpenClawInstance',
    metadata: metadata(revision, context, agentInstanceName(revision.agentId)),
    spec: {
      image: context.images?.gateway ?? DEFAULT_GATEWAY_IMAGE,
      ...(model ? { model } : {}),
      skills,
      env: gatewaySecretEnv(revision, context),
      workspace: { initialFiles },
      config: { raw },
      selfConfigure: { enabled: revision.selfConfigure.enabled, allowedActions: revision.selfConfigure.allowedActions },
    },
  };
}

/** The revision's native document, references only; immutable, one per revision. */
export function renderConfigMap(revision: RenderRevision, context: RenderContext): Obj {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(revision, context, gatewayConfigMapName(revision.agentId, revision.number), { [REVISION_NUMBER_LABEL]: String(revision.number) }),
    immutable: true,
    data: { [CONFIG_FILE]: JSON.stringify(revision.configuration?.values ?? {}) },
  };
}

/**
 * D5: the revision-owned copy of the model key, read server-side from the current source. The
 * only rendered object that holds a value; it is mounted into the model-auth container alone.
 */
export function renderModelAuthSecret(revision: RenderRevision, context: RenderContext, value: string): Obj {
  if (!revision.harnessAuth) throw new Error('the revision has no harnessAuth');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: metadata(revision, context, harnessSecretName(revision.agentId, revision.number), { [REVISION_NUMBER_LABEL]: String(revision.number) }),
    type: 'Opaque',
    immutable: true,
    data: { [SECRET_VALUE_KEY]: base64(value) },
  };
}

/**
 * The gateway Deployment. Only the gateway container receives secretKeyRef env (exactly the bound
 * names); the model-auth container, when there is harnessAuth, mounts the revision-owned model-auth
 * Secret as a file and gets no env from any Secret.
 */
export function renderGatewayDeployment(revision: RenderRevision, context: RenderContext): Obj {
  const name = gatewayDeploymentName(revision.agentId);
  const labels = agentLabels(revision.namespaceId, revision.agentId, context.installationId);
  const selector = { ...labels, [GATEWAY_COMPONENT_LABEL]: GATEWAY_COMPONENT };
  const podLabels = { ...selector, [REVISION_NUMBER_LABEL]: String(revision.number) };
  const configVolume = { name: 'config', configMap: { name: gatewayConfigMapName(revision.agentId, revision.number) } };
  const containers: Obj[] = [
    {
      name: GATEWAY_CONTAINER,
      image: context.images?.gateway ?? DEFAULT_GATEWAY_IMAGE,
      env: [
        { name: 'OPENCLAW_CONFIG_PATH', value: `${CONFIG_MOUNT_PATH}/${CONFIG_FILE}` },
        { name: 'OPENCLAW_INSTANCE_NAME', value: agentInstanceName(revision.agentId) },
        { name: 'OPENCLAW_NAMESPACE', value: context.k8sNamespace },
        ...gatewaySecretEnv(revision, context),
      ],
      volumeMounts: [{ name: 'config', mountPath: CONFIG_MOUNT_PATH, readOnly: true }],
    },
  ];
  const volumes: Obj[] = [configVolume];
  if (revision.harnessAuth) {
    volumes.push({ name: 'model-auth', secret: { secretName: harnessSecretName(revision.agentId, revision.number), optional: false } });
    containers.push({
      name: MODEL_AUTH_CONTAINER,
      image: context.images?.modelAuth ?? DEFAULT_MODEL_AUTH_IMAGE,
      env: [
        { name: 'MODEL_PROVIDER', value: revision.harnessAuth.provider },
        { name: 'MODEL_CREDENTIAL_FILE', value: `${MODEL_AUTH_MOUNT_PATH}/${SECRET_VALUE_KEY}` },
      ],
      volumeMounts: [{ name: 'model-auth', mountPath: MODEL_AUTH_MOUNT_PATH, readOnly: true }],
    });
  }
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { ...metadata(revision, context, name), labels: selector },
    spec: {
      replicas: 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: podLabels, annotations: { [REVISION_ID_ANNOTATION]: context.revisionId } },
        spec: {
          serviceAccountName: agentServiceAccountName(revision.agentId),
          automountServiceAccountToken: revision.selfConfigure.enabled,
          containers,
          volumes,
        },
      },
    },
  };
}
