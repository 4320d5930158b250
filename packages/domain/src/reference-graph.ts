import { PENDING_REVISION_STATES, type RevisionState } from './revision.ts';

// A namespace's references as one graph, for auditors and administrators: secrets →
// configurations that bind them → agents that select those (or use a secret as harnessAuth) →
// their live revisions → the gateway Deployment an active revision runs in. Pure: the API reads
// the namespace's rows and says what the reader may read; this builds the nodes, the edges, each
// node's health, and the counts of what was left out (P6: counted, never named). Stale as W7
// counts it: an active revision holding a secret at a version older than the secret's current one.

export const REFERENCE_NODE_KINDS = ['secret', 'configuration', 'agent', 'revision', 'gateway'] as const;
export type ReferenceNodeKind = (typeof REFERENCE_NODE_KINDS)[number];

/** OK; STALE (W7); PENDING (deploying, a revision on its way); FAILING (failed or degraded); IDLE (not running, by choice or not yet deployed). */
export type ReferenceHealth = 'ok' | 'stale' | 'pending' | 'failing' | 'idle';

export type ReferenceEdgeKind = 'binds' | 'harnessAuth' | 'selects' | 'revision' | 'runs' | 'delivers';

export interface ReferenceNode {
  id: string;
  kind: ReferenceNodeKind;
  name: string;
  health: ReferenceHealth;
  /** A short fact: a secret's version, an agent's status, a revision's state, a configuration's generation. */
  detail: string;
}

export interface ReferenceEdge {
  from: string;
  to: string;
  kind: ReferenceEdgeKind;
  /** Env names, for a binding or a delivery. */
  label: string;
  /** The delivery along it is older than the secret's current version (W7). */
  stale: boolean;
}

export interface ReferenceGraph {
  nodes: ReferenceNode[];
  edges: ReferenceEdge[];
  /** Nodes next to a readable one that the reader may not read, per kind: counted, never named (P6). */
  hidden: Record<Exclude<ReferenceNodeKind, 'gateway'>, number>;
}

export interface ReferenceRows {
  secrets: ReadonlyArray<{ id: string; name: string; version: number }>;
  configurations: ReadonlyArray<{ id: string; name: string; generation: number }>;
  bindings: ReadonlyArray<{ configurationId: string; secretId: string; envName: string }>;
  agents: ReadonlyArray<{ id: string; name: string; status: string; configurationId: string | null; harnessSecretId: string | null }>;
  /** Live revisions (queued to active); one row per delivered secret, or one with `secretId` null for a revision that delivers none. */
  revisions: ReadonlyArray<{ id: string; agentId: string; number: number; state: RevisionState; gatewayName: string; secretId: string | null; version: number | null; envName: string | null }>;
}

export type MayReadNode = (kind: Exclude<ReferenceNodeKind, 'gateway'>, id: string) => boolean;

/** Revisions that deliver their secrets (active) or are on their way to (queued to activating). */
export const LIVE_REVISION_STATES: readonly RevisionState[] = [...PENDING_REVISION_STATES, 'active'];

/** An agent's derived status (RC6) as a health word. */
export function agentHealth(status: string): ReferenceHealth {
  if (status === 'running') return 'ok';
  if (status === 'failed' || status === 'degraded') return 'failing';
  if (status === 'deploying') return 'pending';
  return 'idle';
}

/** Nodes in the order a page lists them: by kind (the graph's layers, left to right), then name, then id. */
export function compareNodes(a: ReferenceNode, b: ReferenceNode): number {
  const layer = REFERENCE_NODE_KINDS.indexOf(a.kind) - REFERENCE_NODE_KINDS.indexOf(b.kind);
  if (layer !== 0) return layer;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

class HiddenCounter {
  readonly seen = new Set<string>();
  readonly counts: ReferenceGraph['hidden'] = { secret: 0, configuration: 0, agent: 0, revision: 0 };
  note(kind: Exclude<ReferenceNodeKind, 'gateway'>, id: string): void {
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.counts[kind]++;
  }
}

/** The graph of what `mayRead` lets the reader see; edges only between nodes it holds. */
export function buildReferenceGraph(rows: ReferenceRows, mayRead: MayReadNode): ReferenceGraph {
  const hidden = new HiddenCounter();
  const nodes = new Map<string, ReferenceNode>();
  const edges: ReferenceEdge[] = [];
  const add = (node: ReferenceNode) => nodes.set(node.id, node);

  const secrets = new Map(rows.secrets.filter((s) => mayRead('secret', s.id)).map((s) => [s.id, s]));
  const configurations = new Map(rows.configurations.filter((c) => mayRead('configuration', c.id)).map((c) => [c.id, c]));
  const agents = new Map(rows.agents.filter((a) => mayRead('agent', a.id)).map((a) => [a.id, a]));
  const secretIds = new Set(rows.secrets.map((s) => s.id));
  const configurationIds = new Set(rows.configurations.map((c) => c.id));

  // Stale secrets: some active revision (readable or not: the secret's state is the secret's) holds an older version.
  const current = new Map(rows.secrets.map((s) => [s.id, s.version]));
  const staleDelivery = (r: ReferenceRows['revisions'][number]) => r.state === 'active' && r.secretId !== null && r.version !== null && r.version < (current.get(r.secretId) ?? r.version);
  const staleSecrets = new Set(rows.revisions.filter(staleDelivery).map((r) => r.secretId!));

  for (const s of secrets.values()) add({ id: s.id, kind: 'secret', name: s.name, health: staleSecrets.has(s.id) ? 'stale' : 'ok', detail: `version ${s.version}` });
  for (const c of configurations.values()) add({ id: c.id, kind: 'configuration', name: c.name, health: 'ok', detail: `generation ${c.generation}` });
  for (const a of agents.values()) add({ id: a.id, kind: 'agent', name: a.name, health: agentHealth(a.status), detail: a.status });

  const bindingsOf = new Map<string, Map<string, string[]>>(); // configuration → secret → env names
  for (const b of rows.bindings) {
    const bySecret = bindingsOf.get(b.configurationId) ?? new Map<string, string[]>();
    bindingsOf.set(b.configurationId, bySecret);
    bySecret.set(b.secretId, [...(bySecret.get(b.secretId) ?? []), b.envName]);
  }
  for (const [configurationId, bySecret] of bindingsOf) {
    for (const [secretId, envNames] of bySecret) {
      const secretSeen = secrets.has(secretId);
      const configurationSeen = configurations.has(configurationId);
      if (secretSeen && configurationSeen) edges.push({ from: secretId, to: configurationId, kind: 'binds', label: envNames.join(', '), stale: false });
      else if (secretSeen && configurationIds.has(configurationId)) hidden.note('configuration', configurationId);
      else if (configurationSeen && secretIds.has(secretId)) hidden.note('secret', secretId);
    }
  }

  for (const a of rows.agents) {
    const agentSeen = agents.has(a.id);
    if (a.configurationId && configurationIds.has(a.configurationId)) {
      if (agentSeen && configurations.has(a.configurationId)) edges.push({ from: a.configurationId, to: a.id, kind: 'selects', label: '', stale: false });
      else if (agentSeen) hidden.note('configuration', a.configurationId);
      else if (configurations.has(a.configurationId)) hidden.note('agent', a.id);
    }
    if (a.harnessSecretId && secretIds.has(a.harnessSecretId)) {
      if (agentSeen && secrets.has(a.harnessSecretId)) edges.push({ from: a.harnessSecretId, to: a.id, kind: 'harnessAuth', label: '', stale: false });
      else if (agentSeen) hidden.note('secret', a.harnessSecretId);
      else if (secrets.has(a.harnessSecretId)) hidden.note('agent', a.id);
    }
  }

  addRevisions(rows, { agents, secrets, secretIds, nodes, edges, hidden, mayRead, staleDelivery, bindingsOf });

  return { nodes: [...nodes.values()].sort(compareNodes), edges, hidden: hidden.counts };
}

interface RevisionContext {
  agents: Map<string, ReferenceRows['agents'][number]>;
  secrets: Map<string, ReferenceRows['secrets'][number]>;
  secretIds: Set<string>;
  nodes: Map<string, ReferenceNode>;
  edges: ReferenceEdge[];
  hidden: HiddenCounter;
  mayRead: MayReadNode;
  staleDelivery: (r: ReferenceRows['revisions'][number]) => boolean;
  bindingsOf: Map<string, Map<string, string[]>>;
}

/**
 * Each live revision of a readable agent: agent → revision, and revision → gateway while it is
 * active. A delivery gets an edge of its own (secret → revision) where it is stale (W7: the edge
 * to redeploy along) or where the agent no longer references the secret (its binding or
 * harnessAuth was removed since); otherwise the path secret → configuration → agent → revision
 * already says it.
 */
function addRevisions(rows: ReferenceRows, ctx: RevisionContext): void {
  const hiddenRevisions = new Set<string>();
  const agentOf = new Map<string, ReferenceRows['agents'][number]>();
  const delivered = new Map<string, { stale: boolean; envNames: string[] }>(); // `${revision} ${secret}`
  for (const r of rows.revisions) {
    const agent = ctx.agents.get(r.agentId);
    if (!agent) {
      // A revision of an unreadable agent is next to a readable secret it delivers.
      if (r.secretId !== null && ctx.secrets.has(r.secretId)) ctx.hidden.note('revision', r.id);
      continue;
    }
    if (hiddenRevisions.has(r.id)) continue;
    if (!ctx.mayRead('revision', r.id)) {
      hiddenRevisions.add(r.id);
      ctx.hidden.note('revision', r.id);
      continue;
    }
    const stale = ctx.staleDelivery(r);
    let node = ctx.nodes.get(r.id);
    if (!node) {
      node = { id: r.id, kind: 'revision', name: `${agent.name} #${r.number}`, health: r.state === 'active' ? 'ok' : 'pending', detail: r.state };
      ctx.nodes.set(r.id, node);
      agentOf.set(r.id, agent);
      ctx.edges.push({ from: agent.id, to: r.id, kind: 'revision', label: '', stale: false });
      if (r.state === 'active') {
        const gatewayId = `gateway:${r.gatewayName}`;
        ctx.nodes.set(gatewayId, { id: gatewayId, kind: 'gateway', name: r.gatewayName, health: agentHealth(agent.status), detail: `Deployment, revision ${r.number}` });
        ctx.edges.push({ from: r.id, to: gatewayId, kind: 'runs', label: '', stale: false });
      }
    }
    if (stale) node.health = 'stale';
    if (r.secretId === null || !ctx.secretIds.has(r.secretId)) continue;
    if (!ctx.secrets.has(r.secretId)) {
      ctx.hidden.note('secret', r.secretId);
      continue;
    }
    const key = `${r.id} ${r.secretId}`;
    const entry = delivered.get(key) ?? { stale: false, envNames: [] };
    entry.stale ||= stale;
    if (r.envName) entry.envNames.push(r.envName);
    delivered.set(key, entry);
  }
  for (const [key, { stale, envNames }] of delivered) {
    const [revisionId, secretId] = key.split(' ') as [string, string];
    const agent = agentOf.get(revisionId)!;
    const referenced = agent.harnessSecretId === secretId || (agent.configurationId !== null && ctx.bindingsOf.get(agent.configurationId)?.has(secretId) === true);
    if (!referenced || stale) ctx.edges.push({ from: secretId, to: revisionId, kind: 'delivers', label: envNames.join(', '), stale });
  }
}

/** Where a page of nodes starts: after the node of this kind, name and id (the last node of the page before). */
export type ReferenceCursor = Pick<ReferenceNode, 'kind' | 'name' | 'id'>;

export interface ReferenceGraphPage extends ReferenceGraph {
  totalCount: number;
  hasNextPage: boolean;
}

/**
 * A page of the graph's nodes in their order (`compareNodes`) after `after`, with the edges that
 * leave them; paging to the end yields every node and every edge once. A cursor names a place,
 * not a node, so a node removed between pages does not stop the paging.
 */
export function referenceGraphPage(graph: ReferenceGraph, first: number, after: ReferenceCursor | null): ReferenceGraphPage {
  const start = after === null ? 0 : firstAfter(graph.nodes, after);
  const nodes = graph.nodes.slice(start, start + first);
  const onPage = new Set(nodes.map((n) => n.id));
  return {
    nodes,
    edges: graph.edges.filter((e) => onPage.has(e.from)),
    hidden: graph.hidden,
    totalCount: graph.nodes.length,
    hasNextPage: start + first < graph.nodes.length,
  };
}

/** The index of the first node after `cursor` in the sorted `nodes` (binary search). */
function firstAfter(nodes: readonly ReferenceNode[], cursor: ReferenceCursor): number {
  const probe: ReferenceNode = { ...cursor, health: 'ok', detail: '' };
  let low = 0;
  let high = nodes.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareNodes(nodes[middle]!, probe) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
