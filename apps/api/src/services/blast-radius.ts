import type { AccessRequest } from '@occ/domain/access';
import { agentInstanceName, gatewayDeploymentName, kubernetesNamespaceName } from '@occ/domain/kubernetes-names';
import { PENDING_REVISION_STATES, type RevisionState } from '@occ/domain/revision';
import type { Db, Tx } from '../db/client.ts';
import { sql, sqlRows } from '../db/sql.ts';
import { derivedStatusSql } from './agents.ts';
import { dbState, revisionState } from './revisions.ts';
import { secretReferenceGraphs, type SecretReferenceGraph } from './secret-references.ts';

// V6: what a rotate or a delete of a secret (or an update or delete of a configuration) would
// touch, asked before the click: the configurations, the agents, the revisions that deliver it
// and the gateways those run in. Every node comes from the full reference graph, so the totals
// count everything; the nodes the caller may not read are counted in `hidden` and never named,
// the policy of SECRET_IN_USE's consumers (S7) and of Secret.references (P6). A gateway is
// named when its agent is readable (an agent's runtime is read through its agent). Names, ids,
// env names and version numbers only: never a value, never a backend locator.

type MayRead = (request: Omit<AccessRequest, 'subjectId'>) => boolean;

export type BlastRadiusVia = 'configuration' | 'harnessAuth' | 'revision';

export interface BlastRadiusConfiguration {
  id: string;
  name: string;
  generation: number;
  /** The env names it binds the secret under (for a configuration's own radius: every bound name). */
  envNames: string[];
}

export interface BlastRadiusAgent {
  id: string;
  name: string;
  status: string;
  /** Why it is touched: it selects a configuration that binds it, uses it as harnessAuth, or a live revision delivers it. */
  via: BlastRadiusVia[];
}

export interface BlastRadiusRevision {
  id: string;
  agentId: string;
  number: number;
  state: RevisionState;
  /** The env names under which it delivers the secret (a configuration's radius: every bound name). */
  envNames: string[];
  /** The secret versions it was admitted at (empty for a configuration's radius). */
  versions: number[];
}

export interface BlastRadiusGateway {
  agentId: string;
  agentName: string;
  k8sNamespace: string;
  /** The agent's OpenClawInstance (RC1), as the product names it. */
  instanceName: string;
  /** The gateway Deployment the reconciler renders from the instance (RC2). */
  deploymentName: string;
  /** The active revision it runs: null when the caller may not read that revision. */
  revisionId: string | null;
  revisionNumber: number | null;
}

export interface BlastRadiusCounts {
  configurations: number;
  agents: number;
  revisions: number;
  gateways: number;
}

export interface BlastRadius {
  configurations: BlastRadiusConfiguration[];
  agents: BlastRadiusAgent[];
  /** Active revisions and those on their way (queued to activating): each would run or start with the change. */
  revisions: BlastRadiusRevision[];
  gateways: BlastRadiusGateway[];
  /** Everything touched, readable or not. */
  total: BlastRadiusCounts;
  /** What the caller may not read: counted, never named. */
  hidden: BlastRadiusCounts;
}

const LIVE_STATES: readonly RevisionState[] = [...PENDING_REVISION_STATES, 'active'];

interface Node<T> {
  node: T;
  readable: boolean;
}

function split<T>(nodes: Array<Node<T>>): { visible: T[]; hidden: number } {
  return { visible: nodes.filter((n) => n.readable).map((n) => n.node), hidden: nodes.filter((n) => !n.readable).length };
}

function gatewayOf(revision: { id: string; number: number; agentId: string; namespaceId: string }, agentName: string, revisionReadable: boolean): BlastRadiusGateway {
  return {
    agentId: revision.agentId,
    agentName,
    k8sNamespace: kubernetesNamespaceName(revision.namespaceId),
    instanceName: agentInstanceName(revision.agentId),
    deploymentName: gatewayDeploymentName(revision.agentId),
    revisionId: revisionReadable ? revision.id : null,
    revisionNumber: revisionReadable ? revision.number : null,
  };
}

function assemble(
  configurations: Array<Node<BlastRadiusConfiguration>>,
  agents: Array<Node<BlastRadiusAgent>>,
  revisions: Array<Node<BlastRadiusRevision & { namespaceId: string }>>,
  agentNames: Map<string, { name: string; readable: boolean }>,
): BlastRadius {
  // One gateway per agent: the one its active revision runs in (RC8 holds one active per agent).
  const gateways: Array<Node<BlastRadiusGateway>> = [];
  for (const { node, readable } of revisions) {
    if (node.state !== 'active') continue;
    const agent = agentNames.get(node.agentId);
    gateways.push({ node: gatewayOf(node, agent?.name ?? '', readable), readable: agent?.readable ?? false });
  }
  const c = split(configurations);
  const a = split(agents);
  const r = split(revisions);
  const g = split(gateways);
  return {
    configurations: c.visible,
    agents: a.visible,
    revisions: r.visible.map(({ namespaceId: _n, ...rest }) => rest),
    gateways: g.visible,
    total: { configurations: configurations.length, agents: agents.length, revisions: revisions.length, gateways: gateways.length },
    hidden: { configurations: c.hidden, agents: a.hidden, revisions: r.hidden, gateways: g.hidden },
  };
}

/** V6 for each secret: its full reference graph, filtered by what the caller may read (a page's in three statements). */
export async function secretBlastRadii(db: Db | Tx, mayRead: MayRead, secrets: ReadonlyArray<{ id: string; version: number }>): Promise<Map<string, BlastRadius>> {
  const graphs = await secretReferenceGraphs(db, () => true, secrets);
  const out = new Map<string, BlastRadius>();
  for (const secret of secrets) out.set(secret.id, secretRadius(graphs.get(secret.id)!, mayRead));
  return out;
}

function secretRadius(graph: SecretReferenceGraph, mayRead: MayRead): BlastRadius {
  const delivering = new Set(graph.revisions.map((r) => r.agentId));
  const agentNames = new Map<string, { name: string; readable: boolean }>();
  const agents = graph.agents.map((a) => {
    const readable = mayRead({ action: 'read', resourceKind: 'agent', namespaceId: a.namespaceId, resourceId: a.id });
    agentNames.set(a.id, { name: a.name, readable });
    const via: BlastRadiusVia[] = [];
    if (a.viaConfiguration) via.push('configuration');
    if (a.harnessAuthProvider !== null) via.push('harnessAuth');
    if (delivering.has(a.id)) via.push('revision');
    return { node: { id: a.id, name: a.name, status: a.status, via }, readable };
  });
  return assemble(
    graph.configurations.map((c) => ({
      node: { id: c.id, name: c.name, generation: c.generation, envNames: c.envNames },
      readable: mayRead({ action: 'read', resourceKind: 'configuration', namespaceId: c.namespaceId, resourceId: c.id }),
    })),
    agents,
    graph.revisions.map((r) => ({
      node: {
        id: r.id,
        agentId: r.agentId,
        namespaceId: r.namespaceId,
        number: r.number,
        state: r.state,
        envNames: r.deliveries.map((d) => d.envName),
        versions: [...new Set(r.deliveries.map((d) => d.version))].sort((x, y) => x - y),
      },
      readable: mayRead({ action: 'read', resourceKind: 'agentRevision', namespaceId: r.namespaceId, resourceId: r.id }),
    })),
    agentNames,
  );
}

/**
 * V6 for each configuration: itself, the agents that select it or whose live revisions were frozen
 * from it, those revisions, and their gateways (a page's in three statements). The caller read the
 * configurations to get here. Their binding names are read here, not taken from the caller's view:
 * a page of agents loads a configuration without its bindings unless they are selected.
 */
export async function configurationBlastRadii(
  db: Db | Tx,
  mayRead: MayRead,
  configurations: ReadonlyArray<{ id: string; name: string; generation: number }>,
): Promise<Map<string, BlastRadius>> {
  const ids = configurations.map((c) => c.id);
  const live = LIVE_STATES.map(dbState);
  const [agentRows, revisionRows, bindingRows] = await Promise.all([
    sqlRows<{ id: string; name: string; namespaceId: string; status: string; configurationId: string | null }>(
      db,
      sql`SELECT a.id, a.name, a."namespaceId", ${derivedStatusSql('a')} AS status, a."configurationId"
      FROM "public"."Agent" a
      WHERE a."configurationId" = ANY(${ids}::text[])
         OR a.id IN (SELECT r."agentId" FROM "public"."AgentRevision" r WHERE r."configurationId" = ANY(${ids}::text[]) AND r.state::text = ANY(${live}::text[]))
      ORDER BY a.name, a.id`,
    ),
    sqlRows<{ id: string; agentId: string; namespaceId: string; configurationId: string; number: number; state: string; envNames: string[] | null }>(
      db,
      sql`SELECT r.id, r."agentId", r."namespaceId", r."configurationId", r.number, r.state::text AS state,
        (SELECT array_agg(rs."envName" ORDER BY rs."envName") FROM "public"."AgentRevisionSecret" rs WHERE rs."revisionId" = r.id AND rs.purpose = 'binding') AS "envNames"
      FROM "public"."AgentRevision" r
      WHERE r."configurationId" = ANY(${ids}::text[]) AND r.state::text = ANY(${live}::text[])
      ORDER BY r."agentId", r.number DESC`,
    ),
    sqlRows<{ configurationId: string; envName: string }>(
      db,
      sql`SELECT b."configurationId", b."envName" FROM "public"."ConfigurationSecretBinding" b WHERE b."configurationId" = ANY(${ids}::text[]) ORDER BY b."envName"`,
    ),
  ]);
  const out = new Map<string, BlastRadius>();
  for (const configuration of configurations) {
    const revisions = revisionRows.filter((r) => r.configurationId === configuration.id);
    const delivering = new Set(revisions.map((r) => r.agentId));
    const agentNames = new Map<string, { name: string; readable: boolean }>();
    const agents = agentRows
      .filter((a) => a.configurationId === configuration.id || delivering.has(a.id))
      .map((a) => {
        const readable = mayRead({ action: 'read', resourceKind: 'agent', namespaceId: a.namespaceId, resourceId: a.id });
        agentNames.set(a.id, { name: a.name, readable });
        const via: BlastRadiusVia[] = [];
        if (a.configurationId === configuration.id) via.push('configuration');
        if (delivering.has(a.id)) via.push('revision');
        return { node: { id: a.id, name: a.name, status: a.status, via }, readable };
      });
    const envNames = bindingRows.filter((b) => b.configurationId === configuration.id).map((b) => b.envName);
    out.set(
      configuration.id,
      assemble(
        [{ node: { id: configuration.id, name: configuration.name, generation: configuration.generation, envNames }, readable: true }],
        agents,
        revisions.map((r) => ({
          node: { id: r.id, agentId: r.agentId, namespaceId: r.namespaceId, number: r.number, state: revisionState(r.state as never), envNames: r.envNames ?? [], versions: [] },
          readable: mayRead({ action: 'read', resourceKind: 'agentRevision', namespaceId: r.namespaceId, resourceId: r.id }),
        })),
        agentNames,
      ),
    );
  }
  return out;
}
