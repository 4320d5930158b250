'use client';

import { useCallback, useEffect, useRef, useState, type PointerEvent as ReactPointerEvent, type RefObject } from 'react';
import { NODE_HEIGHT, NODE_WIDTH, pictureTransform, zoomAround, type Layout, type View } from '../../lib/reference-geometry';

// The reference graph's view: zoom (wheel, buttons, keys), pan (drag), fit, bringing a node on
// screen, and which part of the drawing is drawn. The transform is set on the drawing's group
// directly, once per frame, never through React: a pan re-renders nothing. While the wheel turns,
// the drawing is not redrawn at all: the compositor scales the picture already painted (a CSS
// transform on the <svg>, a layer of its own), and the drawing is redrawn, sharp, once the wheel
// has rested for SETTLE_MS (redrawing 2,000 nodes at every wheel step took 6× an idle frame).

const MIN_ZOOM = 0.05;
const MAX_ZOOM = 2;
/** Below this scale a node's words are too small to read. */
const LEGIBLE = 0.5;
/** Below this scale nodes are drawn as boxes only. */
const FAR = 0.3;
/** How long the wheel rests before the drawing is redrawn at the new scale. */
const SETTLE_MS = 150;

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
  /** The canvas's frame (it clips; its box is the canvas's, whatever the <svg> is scaled by). */
  const frameBox = useRef<HTMLDivElement>(null);
  const svg = useRef<SVGSVGElement>(null);
  const viewport = useRef<SVGGElement>(null);
  const view = useRef<View>({ k: 1, x: 0, y: 0 });
  const box = useCallback(() => frameBox.current?.getBoundingClientRect(), []);
  const { visible, apply, settle, wheeling } = useDrawing(svg, viewport, view, box);
  const zoomAt = useCallback(
    (factor: number, cx?: number, cy?: number, wheel = false) => {
      const b = box();
      const px = cx ?? (b ? b.width / 2 : 0);
      const py = cy ?? (b ? b.height / 2 : 0);
      view.current = zoomAround(view.current, factor, px, py, MIN_ZOOM, MAX_ZOOM);
      if (wheel) wheeling();
      else settle();
      apply();
    },
    [apply, box, settle, wheeling],
  );
  /** The scale at which the whole drawing fits the canvas (never above 1). */
  const fitScale = useCallback(() => {
    const b = box();
    return b ? Math.min(1, Math.max(MIN_ZOOM, Math.min(b.width / (layout.width + 32), b.height / layout.height))) : 1;
  }, [layout, box]);
  const fit = useCallback(() => {
    const b = box();
    if (!b) return;
    const k = fitScale();
    view.current = { k, x: (b.width - layout.width * k) / 2, y: 0 };
    settle();
    apply();
  }, [apply, settle, layout, fitScale, box]);
  /** Scroll the view so the node is on screen (keyboard moves, a focused secret). */
  const reveal = useCallback(
    (id: string) => {
      const at = layout.at[id];
      const b = box();
      if (!at || !b) return;
      const v = view.current;
      const sx = at.x * v.k + v.x;
      const sy = at.y * v.k + v.y;
      if (sx < 0 || sy < 0 || sx + NODE_WIDTH * v.k > b.width || sy + NODE_HEIGHT * v.k > b.height) {
        view.current = { ...v, x: b.width / 2 - (at.x + NODE_WIDTH / 2) * v.k, y: b.height / 2 - (at.y + NODE_HEIGHT / 2) * v.k };
        settle();
        apply();
      }
    },
    [apply, settle, layout, box],
  );

  // First view: the whole drawing where it is still legible; else, a focused node at full size.
  useEffect(() => {
    if (fitScale() >= LEGIBLE || !initial) fit();
    else {
      view.current = { k: 1, x: 0, y: 0 };
      reveal(initial);
    }
  }, [fit, fitScale, reveal, initial]);

  const pointer = usePanAndWheel(svg, frameBox, view, apply, settle, zoomAt);
  return { frameBox, svg, viewport, visible, zoomAt, fit, reveal, pointer };
}

/**
 * Puts the view on screen, once per frame however many wheel or pointer events came. Below FAR the
 * words are too small to read and are not drawn (level of detail: re-rasterising 2,000 labels on
 * every zoom step cost 200 ms a frame); closer, only what is on screen is drawn (culling), so a
 * frame stays short however large the namespace. While the wheel turns (`wheeling`), the picture
 * last drawn is scaled instead, until the wheel has rested SETTLE_MS or `settle` is called.
 */
function useDrawing(svg: RefObject<SVGSVGElement | null>, viewport: RefObject<SVGGElement | null>, view: RefObject<View>, box: () => DOMRect | undefined) {
  /** The view the drawing was last drawn at; during a wheel gesture the picture of it is scaled. */
  const drawn = useRef<View>({ k: 1, x: 0, y: 0 });
  const gesture = useRef<{ timer: number } | null>(null);
  const frame = useRef(0);
  const [visible, setVisible] = useState<Rect | null>(null);
  const apply = useCallback(() => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      const v = view.current;
      const element = svg.current;
      if (gesture.current && element) {
        // Mid-wheel: the picture drawn at `drawn`, moved and scaled to where `v` puts it.
        const { s, tx, ty } = pictureTransform(drawn.current, v);
        element.style.transform = `translate(${tx}px,${ty}px) scale(${s})`;
        return;
      }
      element?.style.removeProperty('transform');
      drawn.current = v;
      viewport.current?.setAttribute('transform', `translate(${v.x},${v.y}) scale(${v.k})`);
      element?.toggleAttribute('data-far', v.k < FAR);
      const b = box();
      const next = v.k < FAR || !b ? null : onScreen(b, v);
      setVisible((previous) => (sameRect(previous, next) ? previous : next));
    });
  }, [box, svg, viewport, view]);
  /** Ends a wheel gesture now (a pan or a key takes over): the drawing is redrawn at the view. */
  const settle = useCallback(() => {
    if (!gesture.current) return;
    clearTimeout(gesture.current.timer);
    gesture.current = null;
    apply();
  }, [apply]);
  /** A wheel step: the gesture lasts until the wheel has rested SETTLE_MS. */
  const wheeling = useCallback(() => {
    if (gesture.current) clearTimeout(gesture.current.timer);
    gesture.current = { timer: window.setTimeout(settle, SETTLE_MS) };
  }, [settle]);
  useEffect(
    () => () => {
      cancelAnimationFrame(frame.current);
      if (gesture.current) clearTimeout(gesture.current.timer);
    },
    [],
  );
  return { visible, apply, settle, wheeling };
}

/** The wheel zooms around the pointer; a drag on the background pans. */
function usePanAndWheel(
  svg: RefObject<SVGSVGElement | null>,
  frameBox: RefObject<HTMLDivElement | null>,
  view: RefObject<View>,
  apply: () => void,
  settle: () => void,
  zoomAt: (factor: number, cx?: number, cy?: number, wheel?: boolean) => void,
) {
  // The wheel zooms (a listener that is not passive, so the page does not scroll as well).
  useEffect(() => {
    const element = svg.current;
    if (!element) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      const box = (frameBox.current ?? element).getBoundingClientRect();
      zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - box.left, event.clientY - box.top, true);
    };
    element.addEventListener('wheel', onWheel, { passive: false });
    return () => element.removeEventListener('wheel', onWheel);
  }, [zoomAt, svg, frameBox]);

  const drag = useRef<{ x: number; y: number; vx: number; vy: number } | null>(null);
  const down = (event: ReactPointerEvent<SVGSVGElement>) => {
    if ((event.target as Element).closest('[data-node]')) return;
    settle();
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
