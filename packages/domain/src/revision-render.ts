import { approvalSpec } from './selfconfig-approval.ts';
import { agentInstanceName, agentLabels, harnessSecretName, REVISION_NUMBER_LABEL, SECRET_VALUE_KEY } from './kubernetes-names.ts';
import { gatewayBindings, type FrozenRevision } from './revision.ts';

// What a revision contributes to its agent's one desired state (RC1, W4): the fields
// `occ-controller` applies to the OpenClawInstance, and the revision-owned model-auth Secret (D5).
// Pure functions of the frozen revision and its secret context (W3: each Secret's backend name,
// resolved from metadata for this run and never stored). The gateway itself is rendered from the
// instance by the reconciler (gateway-render.ts), never from a revision.

export const INSTANCE_API_VERSION = 'openclaw.rocks/v1alpha1';
export const DEFAULT_GATEWAY_IMAGE = 'ghcr.io/openclaw/openclaw:latest';

export interface RenderContext {
  installationId: string;
  /** The agent's Kubernetes namespace. */
  k8sNamespace: string;
  revisionId: string;
  /** W3: secret id → the name of its Kubernetes Secret, for this run only. */
  secretNames: ReadonlyMap<string, string>;
  images?: { gateway?: string };
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

/**
 * RC1 RC3 W4: the OpenClawInstance fields the revision sets, applied with SSA as occ-controller.
 * Only what the Configuration sets is sent: an empty list, map or document is left out, so the
 * manager owns no empty node that would stand in the way of another manager's items. Besides the
 * native parts (image, model, skills, env, workspace files, config keys, selfConfigure) the spec
 * names the revision (`revision`), the revision-owned model-auth Secret (`modelAuth`, D5) and the
 * replica count; the reconciler renders the gateway from these alone (RC2).
 */
export function instanceBody(revision: RenderRevision, context: RenderContext): Obj {
  const { skills, initialFiles, raw, model } = splitValues(revision.configuration?.values ?? {});
  const env = gatewaySecretEnv(revision, context);
  const spec: Obj = {
    image: context.images?.gateway ?? DEFAULT_GATEWAY_IMAGE,
    replicas: 1,
    revision: { id: context.revisionId, number: revision.number },
    selfConfigure: {
      enabled: revision.selfConfigure.enabled,
      ...(revision.selfConfigure.allowedActions.length ? { allowedActions: revision.selfConfigure.allowedActions } : {}),
      // SG3: only when a category needs approval, so an agent without it renders as before.
      ...(revision.selfConfigure.approval?.length ? { approval: approvalSpec(revision.selfConfigure.approval) } : {}),
    },
  };
  if (model) spec.model = model;
  if (skills.length) spec.skills = skills;
  if (env.length) spec.env = env;
  if (Object.keys(initialFiles).length) spec.workspace = { initialFiles };
  if (Object.keys(raw).length) spec.config = { raw };
  if (revision.harnessAuth) spec.modelAuth = { provider: revision.harnessAuth.provider, secretName: harnessSecretName(revision.agentId, revision.number) };
  return {
    apiVersion: INSTANCE_API_VERSION,
    kind: 'OpenClawInstance',
    metadata: { name: agentInstanceName(revision.agentId), namespace: context.k8sNamespace, labels: agentLabels(revision.namespaceId, revision.agentId, context.installationId) },
    spec,
  };
}

/**
 * D5: the revision-owned copy of the model key, read server-side from the current source. The
 * only rendered object that holds a value; the gateway Deployment mounts it into the model-auth
 * container alone (named in the instance's spec.modelAuth).
 */
export function renderModelAuthSecret(revision: RenderRevision, context: RenderContext, value: string): Obj {
  if (!revision.harnessAuth) throw new Error('the revision has no harnessAuth');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: harnessSecretName(revision.agentId, revision.number),
      namespace: context.k8sNamespace,
      labels: { ...agentLabels(revision.namespaceId, revision.agentId, context.installationId), [REVISION_NUMBER_LABEL]: String(revision.number) },
    },
    type: 'Opaque',
    immutable: true,
    data: { [SECRET_VALUE_KEY]: base64(value) },
  };
}
