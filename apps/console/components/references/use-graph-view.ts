'use client';

import { useCallback, useEffect, useRef, useState, type PointerEvent as ReactPointerEvent, type RefObject } from 'react';
import { NODE_HEIGHT, NODE_WIDTH, type Layout } from '../../lib/reference-geometry';

// The reference graph's view: zoom (wheel, buttons, keys), pan (drag), fit, bringing a node on
// screen, and which part of the drawing is drawn. The transform is set on the drawing's group
// directly, once per frame, never through React: a pan re-renders nothing.

interface View {
  k: number;
  x: number;
  y: number;
}

const MIN_ZOOM = 0.05;
const MAX_ZOOM = 2;
/** Below this scale a node's words are too small to read. */
const LEGIBLE = 0.5;
/** Below this scale nodes are drawn as boxes only. */
const FAR = 0.3;

/** A part of the drawing, in its own units. */
export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** What the canvas shows of the drawing, widened by a screen's worth and snapped to a grid, so a small pan draws nothing new. */
function onScreen(box: { width: number; height: number }, { k, x, y }: View): Rect {
  const snap = 400;
  const w = box.width / k;
  const h = box.height / k;
  const x0 = -x / k;
  const y0 = -y / k;
  return { x0: Math.floor((x0 - w) / snap) * snap, y0: Math.floor((y0 - h) / snap) * snap, x1: Math.ceil((x0 + 2 * w) / snap) * snap, y1: Math.ceil((y0 + 2 * h) / snap) * snap };
}

const sameRect = (a: Rect | null, b: Rect | null) => a === b || (!!a && !!b && a.x0 === b.x0 && a.y0 === b.y0 && a.x1 === b.x1 && a.y1 === b.y1);

export function useGraphView(layout: Layout, initial: string | null) {
  const svg = useRef<SVGSVGElement>(null);
  const viewport = useRef<SVGGElement>(null);
  const view = useRef<View>({ k: 1, x: 0, y: 0 });

  // One transform per frame however many wheel or pointer events came; below FAR the words are
  // too small to read and are not drawn (level of detail: re-rasterising 2,000 labels on every
  // zoom step cost 200 ms a frame).
  // Close enough to read, only what is on screen is drawn (culling): each zoom step re-lays out
  // every label drawn, so a frame stays short however large the namespace.
  const frame = useRef(0);
  const [visible, setVisible] = useState<Rect | null>(null);
  const apply = useCallback(() => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      const { k, x, y } = view.current;
      viewport.current?.setAttribute('transform', `translate(${x},${y}) scale(${k})`);
      svg.current?.toggleAttribute('data-far', k < FAR);
      const box = svg.current?.getBoundingClientRect();
      const next = k < FAR || !box ? null : onScreen(box, view.current);
      setVisible((previous) => (sameRect(previous, next) ? previous : next));
    });
  }, []);
  useEffect(() => () => cancelAnimationFrame(frame.current), []);
  const zoomAt = useCallback(
    (factor: number, cx?: number, cy?: number) => {
      const box = svg.current?.getBoundingClientRect();
      const px = cx ?? (box ? box.width / 2 : 0);
      const py = cy ?? (box ? box.height / 2 : 0);
      const v = view.current;
      const k = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, v.k * factor));
      view.current = { k, x: px - ((px - v.x) * k) / v.k, y: py - ((py - v.y) * k) / v.k };
      apply();
    },
    [apply],
  );
  /** The scale at which the whole drawing fits the canvas (never above 1). */
  const fitScale = useCallback(() => {
    const box = svg.current?.getBoundingClientRect();
    return box ? Math.min(1, Math.max(MIN_ZOOM, Math.min(box.width / (layout.width + 32), box.height / layout.height))) : 1;
  }, [layout]);
  const fit = useCallback(() => {
    const box = svg.current?.getBoundingClientRect();
    if (!box) return;
    const k = fitScale();
    view.current = { k, x: (box.width - layout.width * k) / 2, y: 0 };
    apply();
  }, [apply, layout, fitScale]);
  /** Scroll the view so the node is on screen (keyboard moves, a focused secret). */
  const reveal = useCallback(
    (id: string) => {
      const at = layout.at[id];
      const box = svg.current?.getBoundingClientRect();
      if (!at || !box) return;
      const v = view.current;
      const sx = at.x * v.k + v.x;
      const sy = at.y * v.k + v.y;
      if (sx < 0 || sy < 0 || sx + NODE_WIDTH * v.k > box.width || sy + NODE_HEIGHT * v.k > box.height) {
        view.current = { ...v, x: box.width / 2 - (at.x + NODE_WIDTH / 2) * v.k, y: box.height / 2 - (at.y + NODE_HEIGHT / 2) * v.k };
        apply();
      }
    },
    [apply, layout],
  );

  // First view: the whole drawing where it is still legible; else, a focused node at full size.
  useEffect(() => {
    if (fitScale() >= LEGIBLE || !initial) fit();
    else {
      view.current = { k: 1, x: 0, y: 0 };
      reveal(initial);
    }
  }, [fit, fitScale, reveal, initial]);

  const pointer = usePanAndWheel(svg, view, apply, zoomAt);
  return { svg, viewport, visible, zoomAt, fit, reveal, pointer };
}

/** The wheel zooms around the pointer; a drag on the background pans. */
function usePanAndWheel(
  svg: RefObject<SVGSVGElement | null>,
  view: RefObject<View>,
  apply: () => void,
  zoomAt: (factor: number, cx?: number, cy?: number) => void,
) {
  // The wheel zooms (a listener that is not passive, so the page does not scroll as well).
  useEffect(() => {
    const element = svg.current;
    if (!element) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      const box = element.getBoundingClientRect();
      zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - box.left, event.clientY - box.top);
    };
    element.addEventListener('wheel', onWheel, { passive: false });
    return () => element.removeEventListener('wheel', onWheel);
  }, [zoomAt]);

  const drag = useRef<{ x: number; y: number; vx: number; vy: number } | null>(null);
  const down = (event: ReactPointerEvent<SVGSVGElement>) => {
    if ((event.target as Element).closest('[data-node]')) return;
    drag.current = { x: event.clientX, y: event.clientY, vx: view.current.x, vy: view.current.y };
    event.currentTarget.setPointerCapture(event.pointerId);
  };
  const move = (event: ReactPointerEvent<SVGSVGElement>) => {
    const d = drag.current;
    if (!d) return;
    view.current = { ...view.current, x: d.vx + event.clientX - d.x, y: d.vy + event.clientY - d.y };
    apply();
  };
  const up = () => {
    drag.current = null;
  };

  return { down, move, up };
}
