// Where each node of a reference graph goes. dagre (a maintained layered-layout library) orders
// the nodes to keep edges from crossing; the columns are the graph's layers (secrets,
// configurations, agents, revisions, gateways), so a node's x is its kind's column whatever rank
// dagre gave it (an agent never deployed has no revision after it and would otherwise sit with
// the gateways), and each column is then packed top to bottom in dagre's order without overlap.
// dagre's longest-path ranker: its network simplex took 12 s for 2,000 nodes here, this ~1 s.
import dagre from '@dagrejs/dagre';
import { KINDS, type GraphEdge, type GraphNode } from './reference-graph';
import { COLUMN_GAP, HEADER, NODE_HEIGHT, NODE_WIDTH, ROW_GAP, columnX, type Layout, type Placed } from './reference-geometry';

export function layoutGraph(nodes: ReadonlyArray<Pick<GraphNode, 'id' | 'kind'>>, edges: ReadonlyArray<Pick<GraphEdge, 'from' | 'to'>>): Layout {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: ROW_GAP, ranksep: COLUMN_GAP, ranker: 'longest-path' });
  g.setDefaultEdgeLabel(() => ({}));
  const kindOf = new Map(nodes.map((n) => [n.id, n.kind]));
  for (const n of nodes) g.setNode(n.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const e of edges) {
    const from = kindOf.get(e.from);
    const to = kindOf.get(e.to);
    if (!from || !to || e.from === e.to) continue;
    g.setEdge(e.from, e.to, { minlen: Math.max(1, KINDS.indexOf(to) - KINDS.indexOf(from)) });
  }
  dagre.layout(g);

  const at: Record<string, Placed> = {};
  let height = HEADER;
  for (const kind of KINDS) {
    const column = nodes
      .filter((n) => n.kind === kind)
      .map((n) => ({ id: n.id, order: g.node(n.id)?.y ?? 0 }))
      .sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : 1));
    // Keep dagre's spacing where it leaves room; push down only what would overlap.
    let next = HEADER;
    const top = column.length > 0 ? column[0]!.order : 0;
    for (const { id, order } of column) {
      const y = Math.max(next, HEADER + order - top);
      at[id] = { id, x: columnX(kind), y };
      next = y + NODE_HEIGHT + ROW_GAP;
    }
    height = Math.max(height, next);
  }
  return { at, width: columnX('GATEWAY') + NODE_WIDTH, height };
}
