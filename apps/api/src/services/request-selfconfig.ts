import { ForbiddenError, NotFoundError, ValidationError } from '@occ/domain/errors';
import { isId } from '@occ/domain/ids';
import { agentInstanceName, agentLabels } from '@occ/domain/kubernetes-names';
import { parseSelfConfigSpec, requestedCategories, type SelfConfigSpec } from '@occ/domain/selfconfig';
import { transaction } from '../db/client.ts';
import { storableRequest } from '../selfconfig/history.ts';
import { newId } from '../ids.ts';
import { check, auditHiddenDenial } from './access.ts';
import { audit } from './audit.ts';
import type { Actor, Deps } from './deps.ts';
import { toSelfConfigRequestView, type SelfConfigRequestView } from './selfconfig-requests.ts';

// SC5 over GraphQL: an agent asks to change its own instance. The caller must be the Agent's own
// service principal, and the request names the agent, never an instance: the instance is always
// that agent's (agentInstanceName), so no request can target another. The object is created in
// the cluster like any other OpenClawSelfConfig, and the controller carries it from there.

export interface RequestSelfConfigInput {
  agentId: string;
  addSkills?: string[] | null;
  removeSkills?: string[] | null;
  configPatch?: unknown;
  addWorkspaceFiles?: Array<{ path: string; content: string }> | null;
  removeWorkspaceFiles?: string[] | null;
  addEnvVars?: Array<{ name: string; value: string }> | null;
  removeEnvVars?: string[] | null;
}

const SC5_REFUSAL = "Only the agent's own service principal may request its self-configuration (SC5).";

/**
 * SC1 first: the GraphQL input as the CRD's spec (instanceRef a placeholder until the agent is
 * known), checked before anything the caller sent is looked up or written (P4).
 */
export function selfConfigSpecOfInput(input: RequestSelfConfigInput): { rawSpec: Record<string, unknown>; spec: SelfConfigSpec } {
  const files: Record<string, string> = {};
  for (const [i, f] of (input.addWorkspaceFiles ?? []).entries()) {
    if (Object.hasOwn(files, f.path)) throw new ValidationError('DUPLICATE_ITEM', `addWorkspaceFiles[${i}].path repeats an earlier file.`, `addWorkspaceFiles[${i}].path`);
    files[f.path] = f.content;
  }
  const rawSpec: Record<string, unknown> = {
    instanceRef: 'placeholder',
    ...(input.addSkills ? { addSkills: input.addSkills } : {}),
    ...(input.removeSkills ? { removeSkills: input.removeSkills } : {}),
    ...(input.configPatch !== undefined && input.configPatch !== null ? { configPatch: input.configPatch } : {}),
    ...(input.addWorkspaceFiles ? { addWorkspaceFiles: files } : {}),
    ...(input.removeWorkspaceFiles ? { removeWorkspaceFiles: input.removeWorkspaceFiles } : {}),
    ...(input.addEnvVars ? { addEnvVars: input.addEnvVars.map((e) => ({ name: e.name, value: e.value })) } : {}),
    ...(input.removeEnvVars ? { removeEnvVars: input.removeEnvVars } : {}),
  };
  const parsed = parseSelfConfigSpec(rawSpec);
  if ('problem' in parsed) {
    const { code, message } = parsed.problem;
    // Workspace files arrive as a list of {path, content}; name the GraphQL field, not the CRD's.
    const field = parsed.problem.field.replace(/^addWorkspaceFiles\[(\d+)\]$/, 'addWorkspaceFiles[$1].path');
    throw new ValidationError(code, message, field);
  }
  if (requestedCategories(parsed.spec).length === 0) throw new ValidationError('NO_ACTION', 'The request asks for no change.', null);
  return { rawSpec, spec: parsed.spec };
}

export async function requestSelfConfig(deps: Deps, actor: Actor, input: RequestSelfConfigInput): Promise<SelfConfigRequestView> {
  const cluster = deps.selfConfigCluster;
  if (!cluster) throw new Error('no Kubernetes cluster is wired for SelfConfig');
  const { rawSpec, spec: parsedSpec } = selfConfigSpecOfInput(input);

  const agent = isId('agent', input.agentId)
    ? await deps.db.agent.findUnique({ where: { id: input.agentId }, select: { id: true, namespaceId: true, servicePrincipalId: true, namespace: { select: { k8sName: true, status: true } } } })
    : null;
  if (!agent || agent.servicePrincipalId !== actor.principalId || actor.kind !== 'SERVICE') {
    // P6: an agent the caller cannot read is NOT_FOUND, as one that does not exist; one it may
    // read but is not is FORBIDDEN. Both are denials, and audited.
    if (!agent) throw new NotFoundError('No such agent.');
    const readable = (await check(deps.db, actor, { action: 'read', resourceKind: 'agent', namespaceId: agent.namespaceId, resourceId: agent.id })).allowed;
    if (!readable) {
      await auditHiddenDenial(deps, actor, { kind: 'agent', id: agent.id, namespaceId: agent.namespaceId });
      throw new NotFoundError('No such agent.');
    }
    await audit(deps.db, {
      actorId: actor.principalId,
      action: 'selfConfig.request',
      resourceKind: 'agent',
      resourceId: agent.id,
      namespaceId: agent.namespaceId,
      outcome: 'DENIED',
      reason: 'SC5: not the agent\'s own service principal',
    });
    throw new ForbiddenError(SC5_REFUSAL);
  }

  const instanceRef = agentInstanceName(agent.id);
  const spec = { ...rawSpec, instanceRef };
  const created = await cluster.createRequest(agent.namespace.k8sName, 'selfconfig-', spec, agentLabels(agent.namespaceId, agent.id, deps.installationId));
  const m = created.metadata;
  // The controller may have recorded the object already (it watches): then this adds the requester.
  const row = await transaction(deps.db, async (tx) => {
    const saved = await tx.selfConfigRequest.upsert({
      where: { uid: m.uid },
      create: {
        id: newId('selfConfigRequest'),
        uid: m.uid,
        k8sNamespace: m.namespace,
        name: m.name,
        instanceRef,
        namespaceId: agent.namespaceId,
        agentId: agent.id,
        requestedById: actor.principalId,
        request: storableRequest(spec),
        ...(m.creationTimestamp ? { createdAt: new Date(m.creationTimestamp) } : {}),
      },
      update: { requestedById: actor.principalId },
    });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'selfConfig.request',
      resourceKind: 'agent',
      resourceId: agent.id,
      namespaceId: agent.namespaceId,
      outcome: 'SUCCESS',
      details: { selfConfigRequestId: saved.id, name: m.name, categories: requestedCategories(parsedSpec) },
    });
    return saved;
  });
  return toSelfConfigRequestView(row);
}
