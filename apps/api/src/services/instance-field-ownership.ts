import { agentInstanceName } from '@occ/domain/kubernetes-names';
import { fieldOwnership, type OwnedItem } from '@occ/domain/field-ownership';
import type { AgentView } from './agents.ts';
import type { Deps } from './deps.ts';

// Who owns what on an agent's OpenClawInstance: for each skill, env var, workspace file and
// config key, the field managers that own it and their operation (Apply or Update), read from a
// fresh object's managedFields with the one FieldsV1 parser (SC7). The caller has already been
// allowed to read the agent (this is a field of Agent).

export interface InstanceFieldOwnership {
  instanceName: string;
  k8sNamespace: string;
  resourceVersion: string;
  items: OwnedItem[];
}

/** `k8sNamespace` when the caller has it (a page of agents reads their namespaces through a loader). */
export async function instanceFieldOwnership(deps: Deps, agent: AgentView, k8sNamespace?: string): Promise<InstanceFieldOwnership | null> {
  const cluster = deps.selfConfigCluster;
  if (!cluster) return null;
  const namespace = k8sNamespace ? { k8sName: k8sNamespace } : await deps.db.namespace.findUnique({ where: { id: agent.namespaceId }, select: { k8sName: true } });
  if (!namespace) return null;
  const name = agentInstanceName(agent.id);
  const instance = await cluster.getInstance(namespace.k8sName, name);
  if (!instance) return null;
  return { instanceName: name, k8sNamespace: namespace.k8sName, resourceVersion: instance.metadata.resourceVersion, items: fieldOwnership(instance.metadata.managedFields) };
}
