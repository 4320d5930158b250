import {
  REFERENCE_NODE_KINDS,
  referenceGraphPage,
  type ReferenceCursor,
  type ReferenceEdge,
  type ReferenceEdgeKind,
  type ReferenceGraph,
  type ReferenceGraphPage,
  type ReferenceHealth,
  type ReferenceNode,
  type ReferenceNodeKind,
} from '@occ/domain/reference-graph';
import { GraphQLError } from 'graphql';
import { builder } from '../builder.ts';
import { NamespaceRef } from './namespace.ts';

// Namespace.referenceGraph: the namespace's references as nodes and edges, a page of nodes at a
// time (services/namespace-references.ts builds it, the domain's reference-graph.ts decides what
// it holds). Ids, names, env names, versions and states only (S3, S4).

export const REFERENCE_GRAPH_DEFAULT = 500;
export const REFERENCE_GRAPH_MAX = 500;

const upper = <T extends string>(values: readonly T[], descriptions: Record<T, string>) =>
  Object.fromEntries(values.map((v) => [v.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase(), { value: v, description: descriptions[v] }])) as Record<string, { value: T; description: string }>;

const NodeKindEnum = builder.enumType('ReferenceNodeKind', {
  description: 'The graph’s layers, left to right.',
  values: upper<ReferenceNodeKind>(REFERENCE_NODE_KINDS, {
    secret: 'A Secret of the namespace.',
    configuration: 'A Configuration.',
    agent: 'An Agent.',
    revision: 'A live revision of an agent (queued to active).',
    gateway: 'The gateway Deployment an active revision runs in (its id is `gateway:` and its name).',
  }),
});

const HealthEnum = builder.enumType('ReferenceHealth', {
  values: upper<ReferenceHealth>(['ok', 'stale', 'pending', 'failing', 'idle'], {
    ok: 'Nothing to do.',
    stale: 'W7: a running revision holds an older version of the secret (for a revision: it holds one).',
    pending: 'Deploying, or a revision on its way.',
    failing: 'The agent (or its gateway) failed or is degraded.',
    idle: 'Not running: stopped, or never deployed.',
  }),
});

const EdgeKindEnum = builder.enumType('ReferenceEdgeKind', {
  values: upper<ReferenceEdgeKind>(['binds', 'harnessAuth', 'selects', 'revision', 'runs', 'delivers'], {
    binds: 'secret → configuration that binds it (label: the env names).',
    harnessAuth: 'secret → agent that uses it as harnessAuth.',
    selects: 'configuration → agent that selects it.',
    revision: 'agent → one of its live revisions.',
    runs: 'active revision → its gateway Deployment.',
    delivers: 'secret → revision that holds it, where that delivery is stale (W7) or the agent no longer references the secret.',
  }),
});

const NodeRef = builder.objectRef<ReferenceNode>('ReferenceNode').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.field({ type: NodeKindEnum, resolve: (n) => n.kind }),
    name: t.exposeString('name'),
    health: t.field({ type: HealthEnum, resolve: (n) => n.health }),
    detail: t.exposeString('detail', { description: 'A short fact: a version, a generation, a status, a state.' }),
  }),
});

const EdgeRef = builder.objectRef<ReferenceEdge>('ReferenceEdge').implement({
  fields: (t) => ({
    from: t.exposeID('from'),
    to: t.exposeID('to'),
    kind: t.field({ type: EdgeKindEnum, resolve: (e) => e.kind }),
    label: t.exposeString('label'),
    stale: t.exposeBoolean('stale', { description: 'The delivery along it is older than the secret’s current version (W7).' }),
  }),
});

const HiddenRef = builder.objectRef<ReferenceGraph['hidden']>('ReferenceGraphHiddenCounts').implement({
  description: 'Nodes next to one you may read that you may not read: counted, never named (P6).',
  fields: (t) => ({
    secrets: t.int({ resolve: (h) => h.secret }),
    configurations: t.int({ resolve: (h) => h.configuration }),
    agents: t.int({ resolve: (h) => h.agent }),
    revisions: t.int({ resolve: (h) => h.revision }),
  }),
});

type Page = ReferenceGraphPage & { endCursor: string | null };

const PageRef = builder.objectRef<Page>('ReferenceGraphPage').implement({
  description: 'A page of the graph’s nodes (secrets, then configurations, agents, revisions, gateways, each by name) and the edges that leave them.',
  fields: (t) => ({
    nodes: t.field({ type: [NodeRef], resolve: (p) => p.nodes }),
    edges: t.field({ type: [EdgeRef], description: 'The edges whose source is a node of this page; their targets may be on another page.', resolve: (p) => p.edges }),
    hidden: t.field({ type: HiddenRef, resolve: (p) => p.hidden }),
    totalCount: t.exposeInt('totalCount', { description: 'Nodes in the whole graph.' }),
    hasNextPage: t.exposeBoolean('hasNextPage'),
    endCursor: t.exposeString('endCursor', { nullable: true, description: 'Pass as `after` for the next page.' }),
  }),
});

export function encodeReferenceCursor(node: ReferenceCursor): string {
  return Buffer.from(JSON.stringify([node.kind, node.name, node.id])).toString('base64url');
}

export function decodeReferenceCursor(cursor: string): ReferenceCursor {
  const refuse = () => new GraphQLError('after is not a cursor this graph gave.', { extensions: { code: 'BAD_USER_INPUT', argument: 'after' } });
  if (cursor.length > 1000 || !/^[A-Za-z0-9_-]*$/.test(cursor)) throw refuse();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(value) || value.length !== 3 || !value.every((v) => typeof v === 'string')) throw refuse();
  const [kind, name, id] = value as [string, string, string];
  if (!(REFERENCE_NODE_KINDS as readonly string[]).includes(kind)) throw refuse();
  return { kind: kind as ReferenceNodeKind, name, id };
}

builder.objectField(NamespaceRef, 'referenceGraph', (t) =>
  t.field({
    type: PageRef,
    description:
      'The namespace’s references as a graph: secrets → configurations → agents → live revisions → gateway Deployments, with each node’s health and stale deliveries marked (W7); what you may not read is left out and counted (P6). A page of nodes at a time.',
    args: {
      first: t.arg.int({ defaultValue: REFERENCE_GRAPH_DEFAULT, description: `Nodes on the page (1 to ${REFERENCE_GRAPH_MAX}).` }),
      after: t.arg.string({ description: 'The endCursor of the page before.' }),
    },
    resolve: async (ns, args, ctx) => {
      const first = args.first ?? REFERENCE_GRAPH_DEFAULT;
      if (!Number.isInteger(first) || first < 1 || first > REFERENCE_GRAPH_MAX) {
        throw new GraphQLError(`first must be a whole number from 1 to ${REFERENCE_GRAPH_MAX}.`, { extensions: { code: 'BAD_USER_INPUT', argument: 'first' } });
      }
      const after = args.after ? decodeReferenceCursor(args.after) : null;
      const page = referenceGraphPage(await ctx.loaders.namespaceReferences.load(ns.id), first, after);
      const last = page.nodes.at(-1);
      return { ...page, endCursor: last ? encodeReferenceCursor(last) : null };
    },
  }),
);
