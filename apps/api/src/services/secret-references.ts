import type { AccessRequest } from '@occ/domain/access';
import { gatewayDeploymentName, kubernetesNamespaceName } from '@occ/domain/kubernetes-names';
import { LIVE_REVISION_STATES } from '@occ/domain/reference-graph';
import type { RevisionSecretPurpose, RevisionState } from '@occ/domain/revision';
import type { Db, Tx } from '../db/client.ts';
import { derivedStatusSql } from './agents.ts';
import { dbState, revisionState } from './revisions.ts';

// Where a secret's references go, transitively, for auditors: the configurations that
// bind it (under which env names), the agents that select those configurations or use it as
// harnessAuth, their revisions that deliver it (with the version each holds, stale when older
// than the current one, W7) and the gateway Deployment a running revision lives in. Nodes the
// caller may not read are counted per kind, never named (the policy of Secret.consumers, P6).
// Three statements for any number of secrets (a page of them through the request's loader), and
// never a value nor a backend locator: the graph holds ids, names, env names and versions.

export interface GatewayDeployment {
  k8sNamespace: string;
  name: string;
}

/**
 * The gateway Deployment that runs a revision, while it is active: named as the deploy worker
 * names it (K1: the namespace's Kubernetes namespace from its id; W4: one gateway per agent).
 */
export function revisionGateway(revision: { namespaceId: string; agentId: string; state: RevisionState }): GatewayDeployment | null {
  return revision.state === 'active' ? { k8sNamespace: kubernetesNamespaceName(revision.namespaceId), name: gatewayDeploymentName(revision.agentId) } : null;
}

export interface ReferenceConfiguration {
  id: string;
  name: string;
  namespaceId: string;
  generation: number;
  /** The env names under which it binds the secret. */
  envNames: string[];
}

export interface ReferenceAgent {
  id: string;
  name: string;
  namespaceId: string;
  status: string;
  /** The configuration it selects, when that binds the secret and the caller may read it. */
  configurationId: string | null;
  /** It selects a configuration that binds the secret (readable or not). */
  viaConfiguration: boolean;
  /** The harness provider, when it uses the secret as harnessAuth. */
  harnessAuthProvider: string | null;
}

export interface ReferenceDelivery {
  purpose: RevisionSecretPurpose;
  envName: string;
  version: number;
  stale: boolean;
}

export interface ReferenceRevision {
  id: string;
  agentId: string;
  namespaceId: string;
  number: number;
  state: RevisionState;
  deliveries: ReferenceDelivery[];
  /** Running with an older version of the secret than the current one (W7). */
  stale: boolean;
  /** The Deployment that runs it: set while the revision is active. */
  gateway: GatewayDeployment | null;
}

export interface SecretReferenceGraph {
  secretId: string;
  currentVersion: number;
  configurations: ReferenceConfiguration[];
  agents: ReferenceAgent[];
  revisions: ReferenceRevision[];
  /** Nodes the caller may not read: counted, not named. */
  hidden: { configurations: number; agents: number; revisions: number };
}

type MayRead = (request: Omit<AccessRequest, 'subjectId'>) => boolean;

type BindingRow = { secretId: string; envName: string; id: string; name: string; namespaceId: string; generation: number };
type AgentRow = {
  secretId: string;
  id: string;
  name: string;
  namespaceId: string;
  status: string;
  configurationId: string | null;
  harnessProvider: string | null;
  harnessAuth: boolean;
  viaConfiguration: boolean;
};
type RevisionRow = {
  secretId: string;
  id: string;
  agentId: string;
  namespaceId: string;
  number: number;
  state: string;
  purpose: string;
  envName: string;
  version: number;
};

/** The graphs of many secrets (current versions given, as the caller read them) in three statements. */
export async function secretReferenceGraphs(
  db: Db | Tx,
  mayRead: MayRead,
  secrets: ReadonlyArray<{ id: string; version: number }>,
): Promise<Map<string, SecretReferenceGraph>> {
  const ids = [...new Set(secrets.map((s) => s.id))];
  const live = LIVE_REVISION_STATES.map(dbState);
  const [bindings, agents, revisions] =
    ids.length === 0
      ? [[], [], []]
      : await Promise.all([
          db.$queryRaw<BindingRow[]>`
            SELECT b."secretId", b."envName", c.id, c.name, c."namespaceId", c.generation
            FROM "ConfigurationSecretBinding" b JOIN "Configuration" c ON c.id = b."configurationId"
            WHERE b."secretId" = ANY(${ids}::text[])
            ORDER BY c.name, c.id, b."envName"`,
          // Agents that reference the secret now (their configuration binds it, or harnessAuth), and
          // those whose live revisions still deliver it after the reference was removed: each part
          // found through its own index, not by testing every agent.
          db.$queryRaw<AgentRow[]>`
            WITH refs AS (
              SELECT a.id AS "agentId", a."harnessSecretId" AS "secretId" FROM "Agent" a WHERE a."harnessSecretId" = ANY(${ids}::text[])
              UNION
              SELECT a.id, b."secretId" FROM "ConfigurationSecretBinding" b JOIN "Agent" a ON a."configurationId" = b."configurationId"
              WHERE b."secretId" = ANY(${ids}::text[])
              UNION
              SELECT r."agentId", rs."secretId" FROM "AgentRevisionSecret" rs JOIN "AgentRevision" r ON r.id = rs."revisionId"
              WHERE rs."secretId" = ANY(${ids}::text[]) AND r.state::text = ANY(${live}::text[])
            )
            SELECT refs."secretId", a.id, a.name, a."namespaceId", ${derivedStatusSql('a')} AS status, a."configurationId", a."harnessProvider",
                   (a."harnessSecretId" IS NOT DISTINCT FROM refs."secretId") AS "harnessAuth",
                   EXISTS (SELECT 1 FROM "ConfigurationSecretBinding" b WHERE b."configurationId" = a."configurationId" AND b."secretId" = refs."secretId") AS "viaConfiguration"
            FROM refs JOIN "Agent" a ON a.id = refs."agentId"
            ORDER BY a.name, a.id`,
          db.$queryRaw<RevisionRow[]>`
            SELECT rs."secretId", r.id, r."agentId", r."namespaceId", r.number, r.state::text AS state, rs.purpose, rs."envName", rs.version
            FROM "AgentRevisionSecret" rs
            JOIN "AgentRevision" r ON r.id = rs."revisionId"
            WHERE rs."secretId" = ANY(${ids}::text[]) AND r.state::text = ANY(${live}::text[])
            ORDER BY r."agentId", r.number DESC, rs."envName"`,
        ]);

  const result = new Map<string, SecretReferenceGraph>();
  for (const { id: secretId, version: currentVersion } of secrets) {
    if (result.has(secretId)) continue;
    const graph: SecretReferenceGraph = { secretId, currentVersion, configurations: [], agents: [], revisions: [], hidden: { configurations: 0, agents: 0, revisions: 0 } };

    const configurations = new Map<string, ReferenceConfiguration>();
    const hiddenConfigurations = new Set<string>();
    for (const b of bindings) {
      if (b.secretId !== secretId || hiddenConfigurations.has(b.id)) continue;
      let node = configurations.get(b.id);
      if (!node) {
        if (!mayRead({ action: 'read', resourceKind: 'configuration', namespaceId: b.namespaceId, resourceId: b.id })) {
          hiddenConfigurations.add(b.id);
          continue;
        }
        node = { id: b.id, name: b.name, namespaceId: b.namespaceId, generation: b.generation, envNames: [] };
        configurations.set(b.id, node);
      }
      node.envNames.push(b.envName);
    }
    graph.configurations = [...configurations.values()];
    graph.hidden.configurations = hiddenConfigurations.size;

    for (const a of agents) {
      if (a.secretId !== secretId) continue;
      if (!mayRead({ action: 'read', resourceKind: 'agent', namespaceId: a.namespaceId, resourceId: a.id })) {
        graph.hidden.agents++;
        continue;
      }
      graph.agents.push({
        id: a.id,
        name: a.name,
        namespaceId: a.namespaceId,
        status: a.status,
        configurationId: a.viaConfiguration && a.configurationId && configurations.has(a.configurationId) ? a.configurationId : null,
        viaConfiguration: a.viaConfiguration,
        harnessAuthProvider: a.harnessAuth ? a.harnessProvider : null,
      });
    }

    const revisionsById = new Map<string, ReferenceRevision>();
    const hiddenRevisions = new Set<string>();
    for (const r of revisions) {
      if (r.secretId !== secretId || hiddenRevisions.has(r.id)) continue;
      let node = revisionsById.get(r.id);
      if (!node) {
        if (!mayRead({ action: 'read', resourceKind: 'agentRevision', namespaceId: r.namespaceId, resourceId: r.id })) {
          hiddenRevisions.add(r.id);
          continue;
        }
        const state = revisionState(r.state as never);
        node = {
          id: r.id,
          agentId: r.agentId,
          namespaceId: r.namespaceId,
          number: r.number,
          state,
          deliveries: [],
          stale: false,
          gateway: revisionGateway({ namespaceId: r.namespaceId, agentId: r.agentId, state }),
        };
        revisionsById.set(r.id, node);
      }
      // Stale as W7 counts it: a running revision holding older bytes. One on its way reads the
      // value current when it starts.
      const stale = node.state === 'active' && r.version < currentVersion;
      node.deliveries.push({ purpose: r.purpose as RevisionSecretPurpose, envName: r.envName, version: r.version, stale });
      node.stale ||= stale;
    }
    graph.revisions = [...revisionsById.values()];
    graph.hidden.revisions = hiddenRevisions.size;
    result.set(secretId, graph);
  }
  return result;
}
