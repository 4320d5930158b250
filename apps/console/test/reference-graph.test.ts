import { describe, expect, it } from 'vitest';
import { nextNode } from '../lib/reference-navigation';
import { adjacency, blastRadius, KINDS, type GraphEdge, type GraphNode } from '../lib/reference-graph';
import { NODE_HEIGHT, columnX, pictureTransform, zoomAround, type View } from '../lib/reference-geometry';
import { layoutGraph } from '../lib/reference-layout';

// The namespace graph's layout (dagre's order, the kinds' columns, no overlap) and what a selection
// and the arrow keys reach, over generated graphs.

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** A namespace-shaped graph: edges only go right, from a layer to a later one, plus some isolated nodes. */
function generated(seed: number, size: number): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const random = rng(seed);
  const nodes: GraphNode[] = Array.from({ length: size }, (_, i) => ({
    id: `n${i}`,
    kind: KINDS[Math.floor(random() * KINDS.length)]!,
    name: `node-${Math.floor(random() * 50)}`,
    health: 'OK',
    detail: '',
  }));
  const edges: GraphEdge[] = [];
  for (let i = 0; i < size * 1.2; i++) {
    const a = nodes[Math.floor(random() * size)]!;
    const b = nodes[Math.floor(random() * size)]!;
    if (KINDS.indexOf(a.kind) < KINDS.indexOf(b.kind)) edges.push({ from: a.id, to: b.id, kind: 'BINDS', label: '', stale: false });
  }
  return { nodes, edges };
}

describe('the namespace graph’s layout', () => {
  it.each([1, 2, 3, 4, 5, 6])('generated graph %i: every node in its kind’s column, none overlapping, all inside the drawing', (seed) => {
    const { nodes, edges } = generated(seed, 20 + seed * 30);
    const layout = layoutGraph(nodes, edges);
    for (const n of nodes) {
      expect(layout.at[n.id], n.id).toBeDefined();
      expect(layout.at[n.id]!.x).toBe(columnX(n.kind));
      expect(layout.at[n.id]!.y + NODE_HEIGHT).toBeLessThanOrEqual(layout.height);
    }
    for (const kind of KINDS) {
      const ys = nodes.filter((n) => n.kind === kind).map((n) => layout.at[n.id]!.y).sort((a, b) => a - b);
      for (let i = 1; i < ys.length; i++) expect(ys[i]! - ys[i - 1]!).toBeGreaterThanOrEqual(NODE_HEIGHT);
    }
  });

  it('a chain is drawn level: a secret, its configuration and agent at the same height', () => {
    const node = (id: string, kind: GraphNode['kind']): GraphNode => ({ id, kind, name: id, health: 'OK', detail: '' });
    const edge = (from: string, to: string): GraphEdge => ({ from, to, kind: 'BINDS', label: '', stale: false });
    const layout = layoutGraph([node('s', 'SECRET'), node('c', 'CONFIGURATION'), node('a', 'AGENT')], [edge('s', 'c'), edge('c', 'a')]);
    expect(new Set(['s', 'c', 'a'].map((id) => layout.at[id]!.y)).size).toBe(1);
  });
});

describe('a selection’s blast radius and the arrow keys', () => {
  it.each([7, 8, 9])('generated graph %i: downstream is exactly what edges reach forward, upstream backward', (seed) => {
    const { nodes, edges } = generated(seed, 120);
    const adj = adjacency(edges);
    for (const n of nodes.slice(0, 30)) {
      const { downstream, upstream } = blastRadius(n.id, adj);
      // Closed under edges: every edge out of the selection or its downstream lands in it.
      for (const e of edges) {
        if (e.from === n.id || downstream.has(e.from)) expect(e.to === n.id || downstream.has(e.to)).toBe(true);
        if (e.to === n.id || upstream.has(e.to)) expect(e.from === n.id || upstream.has(e.from)).toBe(true);
      }
      // And nothing more: each member has an edge from the selection or another member.
      for (const id of downstream) expect(edges.some((e) => e.to === id && (e.from === n.id || downstream.has(e.from)))).toBe(true);
      for (const id of upstream) expect(edges.some((e) => e.from === id && (e.to === n.id || upstream.has(e.to)))).toBe(true);
      expect(downstream.has(n.id) || upstream.has(n.id)).toBe(false);
    }
  });

  it('right goes along an edge to the nearest target, left back, up and down within the column', () => {
    const { nodes, edges } = generated(11, 80);
    const adj = adjacency(edges);
    const layout = layoutGraph(nodes, edges);
    const columns = new Map(KINDS.map((k) => [k, nodes.filter((n) => n.kind === k).sort((a, b) => layout.at[a.id]!.y - layout.at[b.id]!.y).map((n) => n.id)]));
    const byId = new Map(nodes.map((n) => [n.id, n]));
    for (const n of nodes) {
      const right = nextNode('ArrowRight', n, { adj, columns, layout });
      const targets = (adj.out.get(n.id) ?? []).map((e) => e.to);
      if (targets.length === 0) expect(right).toBeNull();
      else {
        expect(targets).toContain(right);
        const distance = (id: string) => Math.abs(layout.at[id]!.y - layout.at[n.id]!.y);
        expect(Math.min(...targets.map(distance))).toBe(distance(right!));
      }
      const left = nextNode('ArrowLeft', n, { adj, columns, layout });
      if (left) expect((adj.in.get(n.id) ?? []).map((e) => e.from)).toContain(left);
      const column = columns.get(n.kind)!;
      const at = column.indexOf(n.id);
      expect(nextNode('ArrowDown', n, { adj, columns, layout })).toBe(column[at + 1] ?? null);
      expect(nextNode('ArrowUp', n, { adj, columns, layout })).toBe(at > 0 ? column[at - 1] : null);
      expect(byId.get(nextNode('Home', n, { adj, columns, layout })!)!.kind).toBe(n.kind);
    }
  });
});

describe('zooming with the wheel: the painted picture scaled, then the drawing redrawn', () => {
  // A small deterministic generator: views, wheel steps and points over many orders of magnitude.
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const view = (): View => ({ k: 0.05 + random() * 1.95, x: (random() - 0.5) * 4000, y: (random() - 0.5) * 4000 });
  const show = (v: View, p: { x: number; y: number }) => ({ x: v.k * p.x + v.x, y: v.k * p.y + v.y });

  it('the point under the pointer stays under it, and the scale stays within its bounds', () => {
    for (let i = 0; i < 500; i++) {
      const v = view();
      const [px, py] = [random() * 1280, random() * 900];
      const z = zoomAround(v, Math.exp((random() - 0.5) * 4), px, py, 0.05, 2);
      expect(z.k).toBeGreaterThanOrEqual(0.05);
      expect(z.k).toBeLessThanOrEqual(2);
      const under = { x: (px - v.x) / v.k, y: (py - v.y) / v.k };
      const after = show(z, under);
      expect(after.x).toBeCloseTo(px, 6);
      expect(after.y).toBeCloseTo(py, 6);
    }
  });

  it('every point of the picture painted at one view is shown where the redraw at the new view puts it, over a whole gesture', () => {
    for (let i = 0; i < 200; i++) {
      const drawn = view();
      let now = drawn;
      for (let step = 0; step < 15; step++) now = zoomAround(now, Math.exp((random() - 0.5) * 0.4), random() * 1280, random() * 900, 0.05, 2);
      const { s, tx, ty } = pictureTransform(drawn, now);
      for (let j = 0; j < 5; j++) {
        const p = { x: random() * 5000, y: random() * 20000 };
        const painted = show(drawn, p);
        const redrawn = show(now, p);
        expect(s * painted.x + tx).toBeCloseTo(redrawn.x, 5);
        expect(s * painted.y + ty).toBeCloseTo(redrawn.y, 5);
      }
    }
  });
});
