import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REVISION_STATES, type RevisionState } from './revision.ts';
import {
  LIVE_REVISION_STATES,
  agentHealth,
  buildReferenceGraph,
  referenceGraphPage,
  type MayReadNode,
  type ReferenceCursor,
  type ReferenceGraph,
  type ReferenceRows,
} from './reference-graph.ts';

// A namespace's reference graph (reference-graph.ts): the fixture is a namespace with one
// secret rotated under a running revision, one bound by two configurations, a harnessAuth, and a
// revision still delivering a secret its configuration no longer binds.

const everything: MayReadNode = () => true;

const rows: ReferenceRows = {
  secrets: [
    { id: 'sec_token', name: 'token', version: 3 },
    { id: 'sec_model', name: 'model-key', version: 1 },
    { id: 'sec_old', name: 'old-webhook', version: 1 },
    { id: 'sec_unused', name: 'unused', version: 1 },
  ],
  configurations: [
    { id: 'cfg_alpha', name: 'alpha', generation: 2 },
    { id: 'cfg_beta', name: 'beta', generation: 1 },
  ],
  bindings: [
    { configurationId: 'cfg_alpha', secretId: 'sec_token', envName: 'TOKEN' },
    { configurationId: 'cfg_beta', secretId: 'sec_token', envName: 'TOKEN' },
    { configurationId: 'cfg_beta', secretId: 'sec_token', envName: 'TOKEN_BACKUP' },
  ],
  agents: [
    { id: 'agt_one', name: 'one', status: 'running', configurationId: 'cfg_alpha', harnessSecretId: 'sec_model' },
    { id: 'agt_two', name: 'two', status: 'degraded', configurationId: 'cfg_beta', harnessSecretId: null },
    { id: 'agt_three', name: 'three', status: 'deploying', configurationId: null, harnessSecretId: null },
  ],
  revisions: [
    { id: 'rev_one1', agentId: 'agt_one', number: 1, state: 'active', gatewayName: 'gw-one', secretId: 'sec_token', version: 2, envName: 'TOKEN' },
    { id: 'rev_one1', agentId: 'agt_one', number: 1, state: 'active', gatewayName: 'gw-one', secretId: 'sec_model', version: 1, envName: 'OPENAI_API_KEY' },
    { id: 'rev_one1', agentId: 'agt_one', number: 1, state: 'active', gatewayName: 'gw-one', secretId: 'sec_old', version: 1, envName: 'WEBHOOK' },
    { id: 'rev_two1', agentId: 'agt_two', number: 1, state: 'active', gatewayName: 'gw-two', secretId: 'sec_token', version: 3, envName: 'TOKEN' },
    { id: 'rev_three1', agentId: 'agt_three', number: 1, state: 'queued', gatewayName: 'gw-three', secretId: null, version: null, envName: null },
  ],
};

const ids = (g: ReferenceGraph) => g.nodes.map((n) => n.id);
const edge = (g: ReferenceGraph, from: string, to: string) => g.edges.filter((e) => e.from === from && e.to === to);

describe('reference graph of a namespace', () => {
  it('W7 holds every readable node in layer order, each with its health', () => {
    const g = buildReferenceGraph(rows, everything);
    expect(g.nodes).toEqual([
      { id: 'sec_model', kind: 'secret', name: 'model-key', health: 'ok', detail: 'version 1' },
      { id: 'sec_old', kind: 'secret', name: 'old-webhook', health: 'ok', detail: 'version 1' },
      { id: 'sec_token', kind: 'secret', name: 'token', health: 'stale', detail: 'version 3' },
      { id: 'sec_unused', kind: 'secret', name: 'unused', health: 'ok', detail: 'version 1' },
      { id: 'cfg_alpha', kind: 'configuration', name: 'alpha', health: 'ok', detail: 'generation 2' },
      { id: 'cfg_beta', kind: 'configuration', name: 'beta', health: 'ok', detail: 'generation 1' },
      { id: 'agt_one', kind: 'agent', name: 'one', health: 'ok', detail: 'running' },
      { id: 'agt_three', kind: 'agent', name: 'three', health: 'pending', detail: 'deploying' },
      { id: 'agt_two', kind: 'agent', name: 'two', health: 'failing', detail: 'degraded' },
      { id: 'rev_one1', kind: 'revision', name: 'one #1', health: 'stale', detail: 'active' },
      { id: 'rev_three1', kind: 'revision', name: 'three #1', health: 'pending', detail: 'queued' },
      { id: 'rev_two1', kind: 'revision', name: 'two #1', health: 'ok', detail: 'active' },
      { id: 'gateway:gw-one', kind: 'gateway', name: 'gw-one', health: 'ok', detail: 'Deployment, revision 1' },
      { id: 'gateway:gw-two', kind: 'gateway', name: 'gw-two', health: 'failing', detail: 'Deployment, revision 1' },
    ]);
    expect(g.hidden).toEqual({ secret: 0, configuration: 0, agent: 0, revision: 0 });
  });

  it('W7 draws the paths from a secret to its gateways, a stale delivery and an orphaned one as edges of their own', () => {
    const g = buildReferenceGraph(rows, everything);
    expect(g.edges).toHaveLength(12);
    expect(edge(g, 'sec_token', 'cfg_beta')).toEqual([{ from: 'sec_token', to: 'cfg_beta', kind: 'binds', label: 'TOKEN, TOKEN_BACKUP', stale: false }]);
    expect(edge(g, 'sec_token', 'cfg_alpha')).toEqual([{ from: 'sec_token', to: 'cfg_alpha', kind: 'binds', label: 'TOKEN', stale: false }]);
    expect(edge(g, 'cfg_alpha', 'agt_one')).toEqual([{ from: 'cfg_alpha', to: 'agt_one', kind: 'selects', label: '', stale: false }]);
    expect(edge(g, 'cfg_beta', 'agt_two')).toHaveLength(1);
    expect(edge(g, 'sec_model', 'agt_one')).toEqual([{ from: 'sec_model', to: 'agt_one', kind: 'harnessAuth', label: '', stale: false }]);
    for (const [agent, revision] of [['agt_one', 'rev_one1'], ['agt_two', 'rev_two1'], ['agt_three', 'rev_three1']]) {
      expect(edge(g, agent!, revision!)).toEqual([{ from: agent, to: revision, kind: 'revision', label: '', stale: false }]);
    }
    expect(edge(g, 'rev_one1', 'gateway:gw-one')).toEqual([{ from: 'rev_one1', to: 'gateway:gw-one', kind: 'runs', label: '', stale: false }]);
    expect(edge(g, 'rev_two1', 'gateway:gw-two')).toHaveLength(1);
    // The rotated token still at version 2 in rev_one1: the edge to redeploy along.
    expect(edge(g, 'sec_token', 'rev_one1')).toEqual([{ from: 'sec_token', to: 'rev_one1', kind: 'delivers', label: 'TOKEN', stale: true }]);
    // Nothing references old-webhook any more, yet the running revision holds it.
    expect(edge(g, 'sec_old', 'rev_one1')).toEqual([{ from: 'sec_old', to: 'rev_one1', kind: 'delivers', label: 'WEBHOOK', stale: false }]);
    // A current delivery along a path already drawn gets no edge of its own; a queued revision no gateway.
    expect(edge(g, 'sec_token', 'rev_two1')).toEqual([]);
    expect(edge(g, 'sec_model', 'rev_one1')).toEqual([]);
    expect(g.edges.filter((e) => e.from === 'rev_three1')).toEqual([]);
  });

  it('P6 a reader sees only what they may read, and counts of the unreadable nodes next to it', () => {
    const readable = new Set(['sec_token', 'cfg_alpha', 'agt_one']);
    const g = buildReferenceGraph(rows, (_kind, id) => readable.has(id));
    expect(ids(g)).toEqual(['sec_token', 'cfg_alpha', 'agt_one']);
    // cfg_beta binds the readable token; sec_model is agt_one's harnessAuth; rev_one1 is agt_one's
    // revision; rev_two1 (of the unreadable agt_two) delivers the token.
    expect(g.hidden).toEqual({ secret: 1, configuration: 1, agent: 0, revision: 2 });
    expect(g.edges.map((e) => `${e.from}>${e.to}`).sort()).toEqual(['cfg_alpha>agt_one', 'sec_token>cfg_alpha']);
    const hiddenAgent = buildReferenceGraph(rows, (_kind, id) => id === 'cfg_beta');
    expect(hiddenAgent.hidden).toEqual({ secret: 1, configuration: 0, agent: 1, revision: 0 });
  });

  it('agent statuses read as health words', () => {
    expect(['running', 'failed', 'degraded', 'deploying', 'stopped', 'created', 'deleting'].map(agentHealth)).toEqual(['ok', 'failing', 'failing', 'pending', 'idle', 'idle', 'idle']);
  });

  it('a page holds the nodes after its cursor and the edges that leave them', () => {
    const g = buildReferenceGraph(rows, everything);
    const first = referenceGraphPage(g, 5, null);
    expect(ids(first)).toEqual(ids(g).slice(0, 5));
    expect(first.totalCount).toBe(14);
    expect(first.hasNextPage).toBe(true);
    expect(first.edges.every((e) => ids(first).includes(e.from))).toBe(true);
    const last = first.nodes.at(-1)!;
    const second = referenceGraphPage(g, 100, last);
    expect(ids(second)).toEqual(ids(g).slice(5));
    expect(second.hasNextPage).toBe(false);
    // A cursor whose node is gone still names a place.
    expect(ids(referenceGraphPage(g, 2, { kind: 'secret', name: 'p', id: 'sec_gone' }))).toEqual(['sec_token', 'sec_unused']);
    expect(referenceGraphPage(g, 14, null).hasNextPage).toBe(false);
  });
});

// Generated namespaces: any rows, any reader. The class of fault this hunts: a node or an id the
// reader may not read reaching the answer, an edge to a node the answer lacks, and paging that
// loses or repeats a node or an edge.
const name = fc.constantFrom('a', 'b', 'c', 'a-b');
const arbitraryRows: fc.Arbitrary<ReferenceRows> = fc
  .record({ secrets: fc.integer({ min: 0, max: 5 }), configurations: fc.integer({ min: 0, max: 4 }), agents: fc.integer({ min: 0, max: 5 }) })
  .chain(({ secrets, configurations, agents }) => {
    const secretIds = Array.from({ length: secrets }, (_, i) => `sec_${i}`);
    const configurationIds = Array.from({ length: configurations }, (_, i) => `cfg_${i}`);
    const agentIds = Array.from({ length: agents }, (_, i) => `agt_${i}`);
    const some = <T,>(xs: T[]) => (xs.length === 0 ? fc.constant(null) : fc.option(fc.constantFrom(...xs), { nil: null }));
    return fc.record({
      secrets: fc.tuple(...secretIds.map((id) => fc.record({ id: fc.constant(id), name, version: fc.integer({ min: 1, max: 3 }) }))),
      configurations: fc.tuple(...configurationIds.map((id) => fc.record({ id: fc.constant(id), name, generation: fc.integer({ min: 1, max: 3 }) }))),
      bindings:
        secrets && configurations
          ? fc.array(fc.record({ configurationId: fc.constantFrom(...configurationIds), secretId: fc.constantFrom(...secretIds), envName: fc.constantFrom('A', 'B') }), { maxLength: 8 })
          : fc.constant([]),
      agents: fc.tuple(...agentIds.map((id) => fc.record({ id: fc.constant(id), name, status: fc.constantFrom('running', 'failed', 'deploying', 'stopped'), configurationId: some(configurationIds), harnessSecretId: some(secretIds) }))),
      revisions: agents
        ? fc.array(
            fc.record({
              n: fc.integer({ min: 1, max: 3 }),
              agentId: fc.constantFrom(...agentIds),
              state: fc.constantFrom<RevisionState>(...LIVE_REVISION_STATES),
              secretId: some(secretIds),
              version: fc.integer({ min: 1, max: 3 }),
              envName: fc.constantFrom('A', 'B'),
            }),
            { maxLength: 8 },
          ).map((rs) => rs.map((r) => ({ id: `rev_${r.agentId}_${r.n}`, agentId: r.agentId, number: r.n, state: r.state, gatewayName: `gw-${r.agentId}`, secretId: r.secretId, version: r.secretId ? r.version : null, envName: r.secretId ? r.envName : null })))
        : fc.constant([] as ReferenceRows['revisions']),
    }) as fc.Arbitrary<ReferenceRows>;
  })
  // One revision id has one state.
  .map((r: ReferenceRows): ReferenceRows => {
    const state = new Map(r.revisions.map((x) => [x.id, x.state]));
    return { ...r, revisions: r.revisions.map((x) => ({ ...x, state: state.get(x.id)! })) };
  });

describe('reference graph, generated', () => {
  it('P6 never names an unreadable id, and every edge joins two nodes of the answer', () => {
    fc.assert(
      fc.property(arbitraryRows, fc.func(fc.boolean()), (r, coin) => {
        const readable = (_kind: string, id: string) => coin(id);
        const g = buildReferenceGraph(r, readable);
        const held = new Set(ids(g));
        const allIds = [...r.secrets, ...r.configurations, ...r.agents].map((x) => x.id).concat(r.revisions.map((x) => x.id));
        const text = JSON.stringify(g);
        for (const id of allIds) {
          if (!readable('', id)) expect(text.includes(`"${id}"`), id).toBe(false);
        }
        for (const e of g.edges) {
          expect(held.has(e.from) && held.has(e.to), JSON.stringify(e)).toBe(true);
        }
        expect(new Set(ids(g)).size).toBe(g.nodes.length);
        // A gateway only behind an active readable revision of a readable agent.
        for (const n of g.nodes.filter((x) => x.kind === 'gateway')) expect(g.edges.some((e) => e.to === n.id && e.kind === 'runs')).toBe(true);
      }),
    );
  });

  it('W7 a secret is stale exactly when an active revision holds an older version', () => {
    fc.assert(
      fc.property(arbitraryRows, (r) => {
        const g = buildReferenceGraph(r, everything);
        for (const s of r.secrets) {
          const stale = r.revisions.some((x) => x.state === 'active' && x.secretId === s.id && x.version! < s.version);
          expect(g.nodes.find((n) => n.id === s.id)!.health).toBe(stale ? 'stale' : 'ok');
          expect(g.edges.some((e) => e.from === s.id && e.stale)).toBe(stale);
        }
      }),
    );
  });

  it('paging at any size yields every node and every edge exactly once', () => {
    fc.assert(
      fc.property(arbitraryRows, fc.integer({ min: 1, max: 7 }), (r, size) => {
        const g = buildReferenceGraph(r, everything);
        const nodes: string[] = [];
        const edges: string[] = [];
        let after: ReferenceCursor | null = null;
        for (let pages = 0; ; pages++) {
          expect(pages).toBeLessThanOrEqual(g.nodes.length);
          const page = referenceGraphPage(g, size, after);
          nodes.push(...ids(page));
          edges.push(...page.edges.map((e) => JSON.stringify(e)));
          if (!page.hasNextPage) break;
          after = page.nodes.at(-1)!;
        }
        expect(nodes).toEqual(ids(g));
        expect(edges.sort()).toEqual(g.edges.map((e) => JSON.stringify(e)).sort());
      }),
    );
  });

  it('live states are the pending ones and active', () => {
    expect(REVISION_STATES.filter((s) => LIVE_REVISION_STATES.includes(s))).toEqual(['queued', 'preparing', 'prepared', 'activating', 'active']);
  });
});
