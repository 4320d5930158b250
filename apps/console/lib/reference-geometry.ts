// The reference graph's drawing sizes and its edges' curves (no layout library here: the page's
// first load carries this, the layout runs in a worker, lib/reference-layout.ts).
import { KINDS, type NodeKind } from './reference-graph';

export const NODE_WIDTH = 180;
export const NODE_HEIGHT = 36;
export const COLUMN_GAP = 70;
export const ROW_GAP = 10;
export const HEADER = 40;

export interface Placed {
  id: string;
  x: number;
  y: number;
}

export interface Layout {
  /** Top-left corner of each node, by id. */
  at: Record<string, Placed>;
  width: number;
  height: number;
}

export const columnX = (kind: NodeKind) => KINDS.indexOf(kind) * (NODE_WIDTH + COLUMN_GAP);

/** A curve from the right edge of `from` to the left edge of `to`. */
export function edgePath(from: Placed, to: Placed): string {
  const x1 = from.x + NODE_WIDTH;
  const y1 = from.y + NODE_HEIGHT / 2;
  const x2 = to.x;
  const y2 = to.y + NODE_HEIGHT / 2;
  const bend = Math.max(40, (x2 - x1) / 2);
  return `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`;
}
