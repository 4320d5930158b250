'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { memo, useCallback, useEffect, useMemo, useState, type Dispatch, type KeyboardEvent as ReactKeyboardEvent, type RefObject, type SetStateAction } from 'react';
import { plural } from '../../lib/format';
import {
  HEALTH_LABEL,
  KINDS,
  KIND_LABEL,
  KIND_ONE,
  adjacency,
  blastRadius,
  loadReferenceGraph,
  nodeHref,
  type GraphEdge,
  type GraphNode,
  type LoadedGraph,
} from '../../lib/reference-graph';
import { NODE_HEIGHT, NODE_WIDTH, columnX, edgePath, type Layout } from '../../lib/reference-geometry';
import { columnsOf, nextNode } from '../../lib/reference-navigation';
import { useGraphView, type Rect } from './use-graph-view';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { NamespaceHeader } from '../namespaces/NamespaceHeader';
import { TableSkeleton } from '../ui/Skeleton';

// /references?namespace=ns_…[&focus=id]: the namespace's references as a picture, for auditors
// and administrators: secrets → configurations → agents → revisions → gateways, each node's health
// in colour and in words, stale deliveries as red dashed edges. Select a node (click, or the
// keyboard) to light its blast radius (what it reaches, and what feeds it); zoom with the wheel or
// the buttons, pan by dragging; export what is shown as SVG. Beside it the same graph as a list,
// for screen readers and for finding a node by name. Laid out off the page's thread.

// The drawing's own colours (light), kept as attributes so "Export SVG" stands alone; in dark mode
// the stylesheet overrides them (globals.css, "The namespace's reference graph").
const HEALTH_COLOUR: Record<GraphNode['health'], string> = { OK: '#1e6b35', STALE: '#a15c00', PENDING: '#1f5fbf', FAILING: '#b3261e', IDLE: '#5a6472' };

export function NamespaceGraphScreen({ namespaceId, focusId }: { namespaceId: string; focusId: string | null }) {
  const [progress, setProgress] = useState<LoadedGraph | null>(null);
  const query = useQuery({
    queryKey: ['namespaces', 'reference-graph', namespaceId] as const,
    queryFn: ({ signal }) => loadReferenceGraph(namespaceId, signal, setProgress),
  });
  const { data, error, isPending } = query;
  const layout = useLayout(data ?? null);

  return (
    <>
      <NamespaceHeader namespace={data?.namespace ?? null} namespaceId={namespaceId} section="references" title={data?.namespace ? `References in ${data.namespace.name}` : 'References'} />
      <p className="lede">
        Secrets → the configurations that bind them → the agents that select those → their live revisions → the gateways they run in. Select a node to see
        everything it reaches.
      </p>
      {isPending ? (
        <>
          <p role="status" className="muted">
            {progress ? `Loading the graph: ${progress.nodes.length.toLocaleString('en')} of ${progress.totalCount.toLocaleString('en')} nodes…` : 'Loading the graph…'}
            {progress?.waiting !== undefined ? ` Waiting ${progress.waiting} s for your request budget to refill.` : ''}
          </p>
          <TableSkeleton label="Loading the graph…" rows={5} />
        </>
      ) : null}
      {error ? <QueryErrorAlert error={error} what="this namespace's references" retry={() => query.refetch()} /> : null}
      {data && !data.namespace ? (
        <p role="alert" className="alert error">
          Namespace <code>{namespaceId}</code> does not exist or you may not see it. <Link href="/namespaces">All namespaces</Link>
        </p>
      ) : null}
      {data?.namespace && data.nodes.length === 0 ? <p className="empty">Nothing in this namespace yet that you may read.</p> : null}
      {data?.namespace && data.nodes.length > 0 ? (
        layout ? (
          <GraphView graph={data} layout={layout} namespaceId={namespaceId} focusId={focusId} />
        ) : (
          <p role="status" className="muted">
            Laying out {plural(data.nodes.length, 'node')}…
          </p>
        )
      ) : null}
    </>
  );
}

/** The graph's layout, computed in a worker (or here, where workers are not available). */
function useLayout(graph: LoadedGraph | null): Layout | null {
  const [layout, setLayout] = useState<{ for: LoadedGraph; layout: Layout } | null>(null);
  useEffect(() => {
    if (!graph || graph.nodes.length === 0) return;
    const nodes = graph.nodes.map(({ id, kind }) => ({ id, kind }));
    const edges = graph.edges.map(({ from, to }) => ({ from, to }));
    let worker: Worker | null = null;
    try {
      worker = new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
    } catch {
      worker = null;
    }
    // Without a worker, the same code on this thread, loaded only then.
    const here = () => void import('../../lib/reference-layout').then(({ layoutGraph }) => setLayout({ for: graph, layout: layoutGraph(nodes, edges) }));
    if (!worker) {
      here();
      return;
    }
    // Measured for bench/console/graph.bench.ts.
    const started = performance.now();
    worker.onmessage = (event: MessageEvent<{ layout: Layout }>) => {
      performance.measure('occ-graph-layout', { start: started, end: performance.now() });
      setLayout({ for: graph, layout: event.data.layout });
    };
    worker.onerror = here;
    worker.postMessage({ id: 1, nodes, edges });
    return () => worker?.terminate();
  }, [graph]);
  return layout && layout.for === graph ? layout.layout : null;
}

function GraphView({ graph, layout, namespaceId, focusId }: { graph: LoadedGraph; layout: Layout; namespaceId: string; focusId: string | null }) {
  const router = useRouter();
  const adj = useMemo(() => adjacency(graph.edges), [graph.edges]);
  const byId = useMemo(() => new Map(graph.nodes.map((n) => [n.id, n])), [graph.nodes]);
  const agentOfRevision = useCallback((revisionId: string) => adj.in.get(revisionId)?.find((e) => e.kind === 'REVISION')?.from, [adj]);
  const initial = focusId && byId.has(focusId) ? focusId : null;
  const [selected, setSelected] = useState<string | null>(initial);
  const [current, setCurrent] = useState<string>(initial ?? graph.nodes[0]!.id);
  const radius = useMemo(() => (selected ? blastRadius(selected, adj) : null), [selected, adj]);
  const columns = useMemo(() => columnsOf(graph.nodes, layout), [graph.nodes, layout]);
  const { frameBox, svg, viewport, visible, zoomAt, fit, reveal, pointer } = useGraphView(layout, initial);

  const { onKeyDown, focusTarget, focusNode } = useGraphKeys({ svg, visible, current, setCurrent, setSelected, reveal, zoomAt, fit, move: (key, node) => nextNode(key, node, { adj, columns, layout }), byId });

  // Stable, so the list (memo) is drawn again only for a new graph, not at each selection, arrow key or zoom.
  const showInGraph = useCallback(
    (id: string) => {
      setSelected(id);
      focusNode(id);
    },
    [focusNode],
  );

  const exportSvg = () => svg.current && downloadSvg(standaloneSvg(svg.current, layout), `references-${graph.namespace?.name ?? namespaceId}.svg`);

  const selectedNode = selected ? byId.get(selected) : undefined;
  const hidden = graph.hidden;
  const hiddenTotal = hidden ? hidden.secrets + hidden.configurations + hidden.agents + hidden.revisions : 0;

  return (
    <div className="reference-graph">
      <div className="graph-pane">
        <GraphToolbar zoomAt={zoomAt} fit={fit} exportSvg={exportSvg} nodes={graph.nodes.length} edges={graph.edges.length} hidden={hiddenTotal} />
        <p className="muted graph-help" id="graph-help">
          Tab to the graph, then arrows: right to what a node feeds, left to what feeds it, up and down within a column. Enter selects (its blast radius lights
          up), Escape clears, + and − zoom, 0 fits.
        </p>
        <div ref={frameBox} className="graph-frame" style={{ height: `min(70vh, ${Math.ceil(layout.height) + 24}px)` }}>
          <svg
            ref={svg}
            className={`graph-canvas${selected ? ' has-selection' : ''}`}
            role="group"
            aria-label={`References in ${graph.namespace?.name ?? 'this namespace'}`}
            aria-describedby="graph-help"
            onPointerDown={pointer.down}
            onPointerMove={pointer.move}
            onPointerUp={pointer.up}
            onKeyDown={onKeyDown}
            data-testid="reference-graph"
          >
            <g ref={viewport}>
              <Columns height={layout.height} />
              <Edges edges={graph.edges} layout={layout} radius={radius} selected={selected} visible={visible} />
              <Nodes
                visible={visible}
                keep={focusTarget ?? current}
                nodes={graph.nodes}
                layout={layout}
                radius={radius}
                selected={selected}
                current={current}
                onSelect={(id) => {
                  setCurrent(id);
                  setSelected((s) => (s === id ? null : id));
                }}
                onOpen={(node) => {
                  const href = nodeHref(node, namespaceId, agentOfRevision);
                  if (href) router.push(href);
                }}
              />
            </g>
          </svg>
        </div>
        {selectedNode && radius ? <SelectionSummary node={selectedNode} radius={radius} byId={byId} href={nodeHref(selectedNode, namespaceId, agentOfRevision)} /> : null}
      </div>
      <GraphList graph={graph} adj={adj} namespaceId={namespaceId} agentOfRevision={agentOfRevision} onShow={showInGraph} />
    </div>
  );
}


/** The graph's keys: arrows move the tab stop (once the node is drawn), Enter selects, Escape clears, + − 0 zoom and fit. */
function useGraphKeys({
  svg,
  visible,
  current,
  setCurrent,
  setSelected,
  reveal,
  zoomAt,
  fit,
  move: moveFrom,
  byId,
}: {
  svg: RefObject<SVGSVGElement | null>;
  visible: unknown;
  current: string;
  setCurrent: (id: string) => void;
  setSelected: Dispatch<SetStateAction<string | null>>;
  reveal: (id: string) => void;
  zoomAt: (factor: number) => void;
  fit: () => void;
  move: (key: string, node: GraphNode) => string | null;
  byId: Map<string, GraphNode>;
}) {
  // Focus moves once the node is drawn (culling may have left it out until the view moved).
  const [focusTarget, setFocusTarget] = useState<string | null>(null);
  const focusNode = useCallback(
    (id: string) => {
      setCurrent(id);
      reveal(id);
      setFocusTarget(id);
    },
    [reveal],
  );
  useEffect(() => {
    if (!focusTarget) return;
    const element = svg.current?.querySelector<SVGGElement>(`[data-node="${CSS.escape(focusTarget)}"]`);
    if (element) {
      element.focus();
      setFocusTarget(null);
    }
  }, [focusTarget, visible, current]);

  const onKeyDown = (event: ReactKeyboardEvent<SVGSVGElement>) => {
    const node = byId.get(current);
    if (!node) return;
    const move = moveFrom(event.key, node);
    if (move) {
      event.preventDefault();
      focusNode(move);
      return;
    }
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      setSelected((s) => (s === node.id ? null : node.id));
    } else if (event.key === 'Escape') {
      setSelected(null);
    } else if (event.key === '+' || event.key === '=') {
      zoomAt(1.25);
    } else if (event.key === '-') {
      zoomAt(0.8);
    } else if (event.key === '0') {
      fit();
    }
  };

  return { onKeyDown, focusTarget, focusNode };
}

function downloadSvg(text: string, filename: string): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

type Radius = ReturnType<typeof blastRadius> | null;

function GraphToolbar({ zoomAt, fit, exportSvg, nodes, edges, hidden }: { zoomAt: (factor: number) => void; fit: () => void; exportSvg: () => void; nodes: number; edges: number; hidden: number }) {
  return (
        <div className="graph-toolbar" role="toolbar" aria-label="Graph view">
          <button type="button" className="button secondary" onClick={() => zoomAt(1.25)}>
            Zoom in
          </button>
          <button type="button" className="button secondary" onClick={() => zoomAt(0.8)}>
            Zoom out
          </button>
          <button type="button" className="button secondary" onClick={fit}>
            Fit
          </button>
          <button type="button" className="button secondary" onClick={exportSvg}>
            Export SVG
          </button>
          <span className="muted" data-testid="graph-counts">
            {plural(nodes, 'node')}, {plural(edges, 'edge')}
            {hidden > 0 ? `; ${hidden} more you may not read` : ''}
          </span>
        </div>
  );
}

/** What the selected node reaches and what feeds it, in words. */
function SelectionSummary({ node, radius, byId, href }: { node: GraphNode; radius: NonNullable<Radius>; byId: Map<string, GraphNode>; href: string | null }) {
  return (
          <p role="status" className="graph-selection" data-testid="graph-selection">
            <strong>{node.name}</strong> reaches {plural(radius.downstream.size, 'node')} (
            {KINDS.map((k) => [k, [...radius.downstream].filter((id) => byId.get(id)?.kind === k).length] as const)
              .filter(([, n]) => n > 0)
              .map(([k, n]) => plural(n, KIND_ONE[k]))
              .join(', ') || 'nothing'}
            ) and is fed by {plural(radius.upstream.size, 'node')}.{' '}
            {href ? <Link href={href}>Open {node.name}</Link> : null}
          </p>
        
  );
}


/** Whether the box spanned by two nodes' corners meets the rectangle. */
function crosses(r: Rect, a: { x: number; y: number }, b: { x: number; y: number }): boolean {
  return Math.max(a.x, b.x) + NODE_WIDTH >= r.x0 && Math.min(a.x, b.x) <= r.x1 && Math.max(a.y, b.y) + NODE_HEIGHT >= r.y0 && Math.min(a.y, b.y) <= r.y1;
}

const lit = (id: string, selected: string | null, radius: Radius) => !selected || id === selected || !!radius?.downstream.has(id) || !!radius?.upstream.has(id);

const Columns = memo(function Columns({ height }: { height: number }) {
  return (
    <g aria-hidden="true">
      {KINDS.map((kind) => (
        <g key={kind}>
          <rect x={columnX(kind) - 8} y={0} width={NODE_WIDTH + 16} height={height} fill="#8891a0" fillOpacity={0.07} rx={8} />
          <text className="graph-column-label" x={columnX(kind) + NODE_WIDTH / 2} y={24} textAnchor="middle" fontSize={14} fontWeight={600} fill="#5a6472">
            {KIND_LABEL[kind]}
          </text>
        </g>
      ))}
    </g>
  );
});

const Edges = memo(function Edges({ edges, layout, radius, selected, visible }: { edges: GraphEdge[]; layout: Layout; radius: Radius; selected: string | null; visible: Rect | null }) {
  return (
    <g aria-hidden="true" fill="none">
      {edges.map((e, i) => {
        const from = layout.at[e.from];
        const to = layout.at[e.to];
        if (!from || !to) return null;
        if (visible && !crosses(visible, from, to)) return null;
        const on = lit(e.from, selected, radius) && lit(e.to, selected, radius);
        return (
          <path
            key={i}
            className="graph-edge"
            data-stale={e.stale ? 'true' : undefined}
            d={edgePath(from, to)}
            stroke={e.stale ? '#b3261e' : '#8891a0'}
            strokeWidth={e.stale ? 2 : 1.2}
            strokeDasharray={e.stale ? '6 4' : e.kind === 'DELIVERS' ? '2 3' : undefined}
            opacity={on ? 0.9 : 0.12}
            data-edge={`${e.from}>${e.to}`}
          />
        );
      })}
    </g>
  );
});

const Nodes = memo(function Nodes({
  visible,
  keep,
  nodes,
  layout,
  radius,
  selected,
  current,
  onSelect,
  onOpen,
}: {
  visible: Rect | null;
  /** Drawn even off screen: it holds the tab stop. */
  keep: string;
  nodes: GraphNode[];
  layout: Layout;
  radius: Radius;
  selected: string | null;
  current: string;
  onSelect: (id: string) => void;
  onOpen: (node: GraphNode) => void;
}) {
  return (
    <g>
      {nodes.map((n) => {
        const at = layout.at[n.id];
        if (!at) return null;
        if (visible && n.id !== keep && n.id !== selected && !crosses(visible, at, at)) return null;
        const on = lit(n.id, selected, radius);
        const colour = HEALTH_COLOUR[n.health];
        // What the box shows (a long name cut short); the accessible name starts with the same words.
        const shown = n.name.length > 25 ? `${n.name.slice(0, 24)}…` : n.name;
        return (
          <g
            key={n.id}
            data-node={n.id}
            data-lit={on ? 'true' : 'false'}
            data-health={n.health}
            role="button"
            tabIndex={n.id === current ? 0 : -1}
            aria-pressed={n.id === selected}
            aria-label={`${shown} ${HEALTH_LABEL[n.health]} · ${n.detail}, ${KIND_ONE[n.kind]}${shown === n.name ? '' : `, ${n.name}`}`}
            transform={`translate(${at.x},${at.y})`}
            opacity={on ? 1 : 0.25}
            className="graph-node"
            onClick={() => onSelect(n.id)}
            onDoubleClick={() => onOpen(n)}
          >
            <rect className="graph-box" width={NODE_WIDTH} height={NODE_HEIGHT} rx={6} fill={n.id === selected ? '#e8f0fb' : '#ffffff'} stroke={colour} strokeWidth={n.health === 'OK' ? 1.5 : 2.5} />
            <text className="graph-name" x={10} fontSize={12} fill="#1c2430">
              <tspan x={10} y={15} fontWeight={600}>
                {shown}
              </tspan>{' '}
              <tspan className="graph-health" x={10} y={29} fontSize={11} fill={colour}>
                {HEALTH_LABEL[n.health]} · {n.detail}
              </tspan>
            </text>
          </g>
        );
      })}
    </g>
  );
});

/** The graph as shown (selection and all), as a file: the whole drawing at its own size, white behind. */
function standaloneSvg(element: SVGSVGElement, layout: Layout): string {
  const copy = element.cloneNode(true) as SVGSVGElement;
  copy.querySelector('g')?.removeAttribute('transform');
  for (const attribute of ['class', 'style', 'role', 'aria-label', 'aria-describedby', 'data-testid', 'data-far']) copy.removeAttribute(attribute);
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', String(layout.width + 32));
  copy.setAttribute('height', String(layout.height + 16));
  copy.setAttribute('viewBox', `-16 0 ${layout.width + 32} ${layout.height + 16}`);
  copy.setAttribute('font-family', 'system-ui, sans-serif');
  copy.insertAdjacentHTML('afterbegin', `<rect x="-16" y="0" width="${layout.width + 32}" height="${layout.height + 16}" fill="#ffffff"/>`);
  return new XMLSerializer().serializeToString(copy);
}

/** The same graph as a list, by kind: for screen readers, and to find a node by name. */
const GraphList = memo(function GraphList({
  graph,
  adj,
  namespaceId,
  agentOfRevision,
  onShow,
}: {
  graph: LoadedGraph;
  adj: ReturnType<typeof adjacency>;
  namespaceId: string;
  agentOfRevision: (id: string) => string | undefined;
  onShow: (id: string) => void;
}) {
  const name = useMemo(() => new Map(graph.nodes.map((n) => [n.id, n.name])), [graph.nodes]);
  return (
    <section className="graph-list" aria-label="The graph as a list">
      <h2>As a list</h2>
      {graph.hidden ? <HiddenNote hidden={graph.hidden} /> : null}
      {KINDS.map((kind) => {
        const nodes = graph.nodes.filter((n) => n.kind === kind);
        if (nodes.length === 0) return null;
        return (
          <section key={kind} aria-label={KIND_LABEL[kind]}>
            <h3>
              {KIND_LABEL[kind]} ({nodes.length})
            </h3>
            <ul>
              {nodes.map((n) => {
                const href = nodeHref(n, namespaceId, agentOfRevision);
                const out = adj.out.get(n.id) ?? [];
                return (
                  <li key={n.id} data-list-node={n.id}>
                    {href ? <Link href={href}>{n.name}</Link> : <span>{n.name}</span>} <span className={`health health-${n.health.toLowerCase()}`}>{HEALTH_LABEL[n.health]}</span>{' '}
                    <span className="muted">{n.detail}</span>
                    {out.length > 0 ? (
                      <span className="muted">
                        {' '}
                        → {out.map((e) => `${name.get(e.to) ?? e.to}${e.label ? ` (${e.label})` : ''}${e.stale ? ' stale' : ''}`).join('; ')}
                      </span>
                    ) : null}{' '}
                    <button type="button" className="link-button" onClick={() => onShow(n.id)} aria-label={`Show ${n.name} in the graph`}>
                      Show
                    </button>
                  </li>
                );
              })}
            </ul>
          </section>
        );
      })}
    </section>
  );
});

function HiddenNote({ hidden }: { hidden: NonNullable<LoadedGraph['hidden']> }) {
  const parts = (
    [
      ['secret', hidden.secrets],
      ['configuration', hidden.configurations],
      ['agent', hidden.agents],
      ['revision', hidden.revisions],
    ] as const
  ).filter(([, n]) => n > 0);
  if (parts.length === 0) return null;
  return (
    <p className="muted" data-testid="graph-hidden">
      Next to these, and not shown because you may not read them: {parts.map(([kind, n]) => plural(n, kind)).join(', ')}.
    </p>
  );
}


