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

/** A view of the drawing: a point p of it is shown at k·p + (x, y) on the canvas. */
export interface View {
  k: number;
  x: number;
  y: number;
}

/** The view zoomed by `factor` (the scale kept within [min, max]) around the canvas point (px, py), which stays put. */
export function zoomAround(v: View, factor: number, px: number, py: number, min: number, max: number): View {
  const k = Math.min(max, Math.max(min, v.k * factor));
  return { k, x: px - ((px - v.x) * k) / v.k, y: py - ((py - v.y) * k) / v.k };
}

/**
 * The CSS transform (origin at the canvas's top-left) that shows the picture painted at view
 * `drawn` as view `now` would draw it: scale s = now.k / drawn.k, then move by (tx, ty).
 */
export function pictureTransform(drawn: View, now: View): { s: number; tx: number; ty: number } {
  const s = now.k / drawn.k;
  return { s, tx: now.x - s * drawn.x, ty: now.y - s * drawn.y };
}
