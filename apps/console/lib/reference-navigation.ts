// Moving through the namespace graph with the keyboard (components/references/NamespaceGraph.tsx):
// along edges to the right and left, within a column up and down.
import { KINDS, type Adjacency, type GraphNode } from './reference-graph';
import type { Layout } from './reference-geometry';

/** Nodes of each column, top to bottom. */
export function columnsOf(nodes: readonly GraphNode[], layout: Layout): Map<string, string[]> {
  const columns = new Map<string, string[]>();
  for (const kind of KINDS) {
    columns.set(
      kind,
      nodes
        .filter((n) => n.kind === kind && layout.at[n.id])
        .sort((a, b) => layout.at[a.id]!.y - layout.at[b.id]!.y)
        .map((n) => n.id),
    );
  }
  return columns;
}

/** Where an arrow key goes from `node`: along its edges, or within its column. */
export function nextNode(key: string, node: GraphNode, { adj, columns, layout }: { adj: Adjacency; columns: Map<string, string[]>; layout: Layout }): string | null {
  const nearest = (ids: string[]) => {
    const y = layout.at[node.id]?.y ?? 0;
    return ids.sort((a, b) => Math.abs((layout.at[a]?.y ?? 0) - y) - Math.abs((layout.at[b]?.y ?? 0) - y))[0] ?? null;
  };
  if (key === 'ArrowRight') return nearest((adj.out.get(node.id) ?? []).map((e) => e.to));
  if (key === 'ArrowLeft') return nearest((adj.in.get(node.id) ?? []).map((e) => e.from));
  const column = columns.get(node.kind) ?? [];
  const at = column.indexOf(node.id);
  if (key === 'ArrowDown') return column[at + 1] ?? null;
  if (key === 'ArrowUp') return at > 0 ? column[at - 1]! : null;
  if (key === 'Home') return column[0] ?? null;
  if (key === 'End') return column.at(-1) ?? null;
  return null;
}

