import { uuidOf } from '@occ/domain/ids';
import { AGENT_ID_LABEL, agentInstanceName } from '@occ/domain/kubernetes-names';
import { fieldOwnership, type OwnedItem } from '@occ/domain/field-ownership';
import { sql, sqlRows } from '../db/sql.ts';
import type { InstanceObject } from '../selfconfig/cluster.ts';
import type { AgentView } from './agents.ts';
import type { Deps } from './deps.ts';

// Who owns what on an agent's OpenClawInstance: for each skill, env var, workspace file and
// config key, the field managers that own it and their operation (Apply or Update), read from a
// fresh object's managedFields with the one FieldsV1 parser (SC7). The caller has already been
// allowed to read the agents (this is a field of Agent).
//
// A page of agents is read with one list per Kubernetes namespace, selected by the agents'
// `openclaw.rocks/agent-id` labels (a set-based selector), never a GET per agent: a GET per node
// made a page of 100 agents cost 100 API requests, and four readers of such pages slowed every
// other caller of the process 346 times (P7; bench/api/fairness.bench.ts). The instance is matched
// by its name too, so an object of another name that carries an agent's label is not taken for it.

export interface InstanceFieldOwnership {
  instanceName: string;
  k8sNamespace: string;
  resourceVersion: string;
  items: OwnedItem[];
}

/** Agents per list request: a selector of 100 ids is about 4 KB of query string. */
const IDS_PER_LIST = 100;

/** Each agent's OpenClawInstance as the cluster holds it now, or null; one list per namespace (see above). */
export async function agentInstances(deps: Deps, agents: readonly AgentView[]): Promise<Array<InstanceObject | null>> {
  const cluster = deps.selfConfigCluster;
  if (!cluster || agents.length === 0) return agents.map(() => null);
  const namespaceIds = [...new Set(agents.map((a) => a.namespaceId))];
  const namespaces = await sqlRows<{ id: string; k8sName: string }>(
    deps.db,
    sql`SELECT "id", "k8sName" FROM "public"."Namespace" WHERE "id" = ANY(${namespaceIds}::text[])`,
  );
  const k8sNameOf = new Map(namespaces.map((n) => [n.id, n.k8sName]));

  const wanted = new Map<string, string[]>(); // k8s namespace → the agents' label values
  for (const agent of agents) {
    const k8sNamespace = k8sNameOf.get(agent.namespaceId);
    if (!k8sNamespace) continue;
    const labels = wanted.get(k8sNamespace) ?? [];
    labels.push(uuidOf(agent.id)); // agentLabels' value
    wanted.set(k8sNamespace, labels);
  }
  const found = new Map<string, InstanceObject>(); // "namespace/name" → the instance
  await Promise.all(
    [...wanted].flatMap(([k8sNamespace, values]) =>
      chunks([...new Set(values)], IDS_PER_LIST).map(async (chunk) => {
        for (const instance of await cluster.listInstances(k8sNamespace, `${AGENT_ID_LABEL} in (${chunk.join(',')})`)) found.set(`${k8sNamespace}/${instance.metadata.name}`, instance);
      }),
    ),
  );
  return agents.map((agent) => found.get(`${k8sNameOf.get(agent.namespaceId)}/${agentInstanceName(agent.id)}`) ?? null);
}

/** Agent.fieldOwnership from an instance read by agentInstances. */
export function instanceFieldOwnership(instance: InstanceObject | null): InstanceFieldOwnership | null {
  if (!instance) return null;
  const { name, namespace, resourceVersion, managedFields } = instance.metadata;
  return { instanceName: name, k8sNamespace: namespace, resourceVersion, items: fieldOwnership(managedFields) };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
