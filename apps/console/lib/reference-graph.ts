// A namespace's references as one graph (Namespace.referenceGraph): the query, paging through
// it, what a selection reaches (its blast radius), and an SVG of it to export. Ids, names, env
// names, versions and states only; no document here selects a value or a backend locator.
import { GraphQLRequestError, gql, graphql, type ResultOf } from './graphql';
import { namespaceHref } from './namespace-links';

/** Nodes a page asks for: the API's most, and within the cost limit with every field below. */
export const REFERENCE_GRAPH_PAGE = 300;

export const NamespaceReferenceGraphQuery = gql(`
  query NamespaceReferenceGraph($id: ID!, $first: Int, $after: String) {
    namespace(id: $id) {
      id name status
      referenceGraph(first: $first, after: $after) {
        nodes { id kind name health detail }
        edges { from to kind label stale }
        hidden { secrets configurations agents revisions }
        totalCount hasNextPage endCursor
      }
    }
  }
`);

/**
 * The pages after the first: nodes and edges only. P7 prices every field under a page by the
 * page's size, so the hidden counts and the total (the same on every page) would cost 300 times
 * each; asked once, a namespace of 2,000 nodes fits the default budget of 30,000 points with one
 * short wait instead of several.
 */
export const NamespaceReferenceGraphRestQuery = gql(`
  query NamespaceReferenceGraphRest($id: ID!, $first: Int, $after: String) {
    namespace(id: $id) {
      id
      referenceGraph(first: $first, after: $after) {
        nodes { id kind name health detail }
        edges { from to kind label stale }
        hasNextPage endCursor
      }
    }
  }
`);

type Answer = ResultOf<typeof NamespaceReferenceGraphQuery>;
type Page = NonNullable<Answer['namespace']>['referenceGraph'];
export type GraphNode = Page['nodes'][number];
export type GraphEdge = Page['edges'][number];
export type NodeKind = GraphNode['kind'];
export type Health = GraphNode['health'];
export type HiddenCounts = Page['hidden'];

export const KINDS: readonly NodeKind[] = ['SECRET', 'CONFIGURATION', 'AGENT', 'REVISION', 'GATEWAY'];
export const KIND_LABEL: Record<NodeKind, string> = { SECRET: 'Secrets', CONFIGURATION: 'Configurations', AGENT: 'Agents', REVISION: 'Revisions', GATEWAY: 'Gateways' };
export const KIND_ONE: Record<NodeKind, string> = { SECRET: 'secret', CONFIGURATION: 'configuration', AGENT: 'agent', REVISION: 'revision', GATEWAY: 'gateway' };
export const HEALTH_LABEL: Record<Health, string> = { OK: 'ok', STALE: 'stale', PENDING: 'pending', FAILING: 'failing', IDLE: 'idle' };

export interface LoadedGraph {
  namespace: Pick<NonNullable<Answer['namespace']>, 'id' | 'name' | 'status'> | null;
  nodes: GraphNode[];
  edges: GraphEdge[];
  hidden: HiddenCounts | null;
  totalCount: number;
  /** Seconds the loading waits for the viewer's cost budget to refill (P7), while it does. */
  waiting?: number;
}

/** How many times one page waits for the cost budget before the loading gives up. */
const BUDGET_WAITS = 10;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

/**
 * Every page of the graph, one after another; `onPage` sees each as it arrives (the screen shows
 * "n of total" while a large namespace loads).
 */
export async function loadReferenceGraph(namespaceId: string, signal: AbortSignal | undefined, onPage?: (loaded: LoadedGraph) => void): Promise<LoadedGraph> {
  const graph: LoadedGraph = { namespace: null, nodes: [], edges: [], hidden: null, totalCount: 0 };
  let after: string | null = null;
  let waits = 0;
  for (;;) {
    let data: Answer | ResultOf<typeof NamespaceReferenceGraphRestQuery>;
    try {
      const variables = { id: namespaceId, first: REFERENCE_GRAPH_PAGE, after };
      data = after === null ? await graphql(NamespaceReferenceGraphQuery, variables, signal) : await graphql(NamespaceReferenceGraphRestQuery, variables, signal);
    } catch (error) {
      // A large namespace's pages can spend the viewer's cost budget (P7): wait as the server says, then go on.
      if (!(error instanceof GraphQLRequestError) || error.status !== 429 || error.retryAfter === undefined || waits >= BUDGET_WAITS) throw error;
      waits++;
      onPage?.({ ...graph, waiting: error.retryAfter });
      await sleep(error.retryAfter * 1000, signal);
      continue;
    }
    waits = 0;
    if (!data.namespace) return graph;
    const page: Pick<Page, 'nodes' | 'edges' | 'hasNextPage' | 'endCursor'> = data.namespace.referenceGraph;
    if (after === null) {
      const first = (data as Answer).namespace!;
      graph.namespace = { id: first.id, name: first.name, status: first.status };
      graph.hidden = first.referenceGraph.hidden;
      graph.totalCount = first.referenceGraph.totalCount;
    }
    graph.nodes = graph.nodes.concat(page.nodes);
    graph.edges = graph.edges.concat(page.edges);
    if (!page.hasNextPage || !page.endCursor) return graph;
    onPage?.({ ...graph });
    after = page.endCursor;
  }
}

export interface Adjacency {
  out: Map<string, GraphEdge[]>;
  in: Map<string, GraphEdge[]>;
}

export function adjacency(edges: readonly GraphEdge[]): Adjacency {
  const out = new Map<string, GraphEdge[]>();
  const into = new Map<string, GraphEdge[]>();
  const add = (map: Map<string, GraphEdge[]>, key: string, e: GraphEdge) => {
    const list = map.get(key);
    if (list) list.push(e);
    else map.set(key, [e]);
  };
  for (const e of edges) {
    add(out, e.from, e);
    add(into, e.to, e);
  }
  return { out, in: into };
}

/**
 * What a change to `id` reaches: every node downstream of it (a secret's configurations, their
 * agents, revisions and gateways), and the nodes upstream that feed it, so the selection shows
 * where it comes from as well as what it touches.
 */
export function blastRadius(id: string, adj: Adjacency): { downstream: Set<string>; upstream: Set<string> } {
  const walk = (next: (at: string) => string[]) => {
    const seen = new Set<string>([id]);
    const queue = [id];
    while (queue.length > 0) {
      for (const to of next(queue.pop()!)) {
        if (seen.has(to)) continue;
        seen.add(to);
        queue.push(to);
      }
    }
    seen.delete(id);
    return seen;
  };
  return {
    downstream: walk((at) => (adj.out.get(at) ?? []).map((e) => e.to)),
    upstream: walk((at) => (adj.in.get(at) ?? []).map((e) => e.from)),
  };
}

/** Where a node's own page is in the console, or null for a gateway (it has none). */
export function nodeHref(node: GraphNode, namespaceId: string, agentOfRevision: (revisionId: string) => string | undefined): string | null {
  switch (node.kind) {
    case 'SECRET':
      return namespaceHref('secrets', namespaceId, { id: node.id });
    case 'CONFIGURATION':
      return namespaceHref('configurations', namespaceId, { id: node.id });
    case 'AGENT':
      return namespaceHref('agents', namespaceId, { id: node.id });
    case 'REVISION': {
      const agentId = agentOfRevision(node.id);
      return agentId ? namespaceHref('agents', namespaceId, { id: agentId }) : null;
    }
    default:
      return null;
  }
}
