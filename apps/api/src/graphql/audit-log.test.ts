import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHumanPrincipal, grantBuiltInRole } from '../services/principals.ts';
import { createReadyNamespace, createSecretOk } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// The audit trail read back, newest first, by those who may read it at its scope.

let stack: TestStack;
let nsA: string;
let nsB: string;
let adminA: { principalId: string; apiKey: string };
let viewerA: { principalId: string; apiKey: string };

const EVENTS = `query($first: Int, $after: String, $filter: AuditEventFilter) {
  auditEvents(first: $first, after: $after, filter: $filter) { totalCount
    edges { node { id at action namespaceId outcome actorId actor { id } count } } pageInfo { hasNextPage endCursor } } }`;

type Event = { id: string; at: string; action: string; namespaceId: string | null; outcome: string; actorId: string | null; actor: { id: string } | null; count: number };

async function all(filter: Record<string, unknown>, key?: string, pageSize = 7): Promise<{ events: Event[]; totalCount: number }> {
  const events: Event[] = [];
  let after: string | null = null;
  let totalCount = -1;
  for (let i = 0; i < 1000; i++) {
    const res = await stack.gql(EVENTS, { first: pageSize, after, filter }, { key });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const conn = res.body.data!.auditEvents;
    totalCount = conn.totalCount;
    events.push(...conn.edges.map((e: { node: Event }) => e.node));
    if (!conn.pageInfo.hasNextPage) break;
    after = conn.pageInfo.endCursor;
  }
  return { events, totalCount };
}

beforeAll(async () => {
  stack = await startTestStack({ worker: true });
  nsA = await createReadyNamespace(stack, 'audit-a');
  nsB = await createReadyNamespace(stack, 'audit-b');
  await createSecretOk(stack, nsA, 'one', 'v1');
  await createSecretOk(stack, nsB, 'two', 'v2');
  const boot = stack.runtime.installation.bootstrapPrincipalId;
  adminA = await createHumanPrincipal(stack.runtime.db, 'admin-a', boot);
  await grantBuiltInRole(stack.runtime.db, adminA.principalId, 'namespace-admin', { kind: 'namespace', namespaceId: nsA }, boot);
  viewerA = await createHumanPrincipal(stack.runtime.db, 'viewer-a', boot);
  await grantBuiltInRole(stack.runtime.db, viewerA.principalId, 'namespace-viewer', { kind: 'namespace', namespaceId: nsA }, boot);
  // A denial in namespace A, audited as such.
  await stack.gql(`mutation { createSecret(input: {namespaceId: "${nsA}", name: "nope", value: "x"}) { __typename } }`, {}, { key: viewerA.apiKey });
}, 120_000);
afterAll(() => stack?.close());

describe('audit log', () => {
  it('an installation administrator pages through every event, newest first, exactly as the table holds them', async () => {
    const { events, totalCount } = await all({});
    const rows = await stack.runtime.db.auditEvent.findMany({ orderBy: [{ at: 'desc' }, { id: 'desc' }] });
    expect(events.map((e) => e.id)).toEqual(rows.map((r) => r.id));
    expect(totalCount).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(5);
  });

  it('A2 P6 a namespace administrator reads its namespace’s events only; a viewer reads none', async () => {
    const { events, totalCount } = await all({}, adminA.apiKey);
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events.map((e) => e.namespaceId))).toEqual(new Set([nsA]));
    expect(totalCount).toBe(await stack.runtime.db.auditEvent.count({ where: { namespaceId: nsA } }));
    expect((await all({ namespaceId: nsB }, adminA.apiKey)).events).toEqual([]);
    expect((await all({}, viewerA.apiKey)).totalCount).toBe(0);
  });

  it('filters by actor, action, outcome and time, each applied in the query', async () => {
    const denied = await all({ outcome: 'DENIED', actorId: viewerA.principalId });
    expect(denied.events.length).toBeGreaterThan(0);
    expect(denied.events.every((e) => e.outcome === 'DENIED' && e.actorId === viewerA.principalId && e.actor?.id === viewerA.principalId)).toBe(true);
    const created = await all({ action: 'secret.create', outcome: 'SUCCESS' });
    expect(created.events.map((e) => e.namespaceId).sort()).toEqual([nsA, nsB].sort());
    const newest = created.events[0]!;
    expect((await all({ action: 'secret.create', outcome: 'SUCCESS', from: newest.at })).events.map((e) => e.id)).toEqual([newest.id]);
    expect((await all({ action: 'secret.create', outcome: 'SUCCESS', to: newest.at })).events.map((e) => e.id)).not.toContain(newest.id);
  });

  it('the NDJSON export streams the same events as the query, page after page, beyond one page', async () => {
    // More rows than one export page (500), written directly: the export must stitch pages.
    await stack.runtime.db.auditEvent.createMany({
      data: Array.from({ length: 1_100 }, (_, i) => ({
        id: `aud_${randomUUID()}`,
        at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
        actorId: adminA.principalId,
        action: 'bulk.test',
        resourceKind: 'secret',
        namespaceId: nsA,
        outcome: 'SUCCESS' as const,
      })),
    });
    const res = await stack.request('/audit/events.ndjson?action=bulk.test', { headers: { authorization: `Bearer ${stack.bootstrapKey}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { id: string; at: string });
    expect(lines).toHaveLength(1_100);
    expect(new Set(lines.map((l) => l.id)).size).toBe(1_100);
    const times = lines.map((l) => Date.parse(l.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const viewer = await stack.request('/audit/events.ndjson?action=bulk.test', { headers: { authorization: `Bearer ${viewerA.apiKey}` } });
    expect(await viewer.text()).toBe('');
  });

  it.each([
    ['an unknown parameter', '?nope=1', 400, 'nope'],
    ['a bad outcome', '?outcome=MAYBE', 400, 'outcome'],
    ['a bad time', '?from=yesterday', 400, 'from'],
    ['a NUL in a filter', '?action=a%00b', 400, 'action'],
    ['a system actor spelt as stored, not as GraphQL spells it', '?systemActor=worker', 400, 'systemActor'],
    ['an unknown system actor', '?systemActor=CRON', 400, 'systemActor'],
  ])('P4 the export refuses %s with 400 naming the parameter', async (_what, query, status, parameter) => {
    const res = await stack.request(`/audit/events.ndjson${query}`, { headers: { authorization: `Bearer ${stack.bootstrapKey}` } });
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ code: 'BAD_REQUEST', parameter });
  });

  it('P2 the export needs credentials, and a signed-in browser request from another origin is refused', async () => {
    expect((await stack.request('/audit/events.ndjson')).status).toBe(401);
    const signIn = await stack.request('/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: stack.bootstrapKey }) });
    const cookie = String(signIn.headers.get('set-cookie')).split(';')[0]!;
    const cross = await stack.request('/audit/events.ndjson', { headers: { cookie, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect(cross.status).toBe(403);
    const same = await stack.request('/audit/events.ndjson?action=bulk.test', { headers: { cookie, 'sec-fetch-site': 'same-origin' } });
    expect(same.status).toBe(200);
  });

  // System actors: the parts of the control plane that act on their own name themselves.
  const SYSTEM = `query($filter: AuditEventFilter) { auditEvents(first: 100, filter: $filter) { totalCount edges { node { id action actorId systemActor namespaceId } } } }`;
  type SystemEvent = { id: string; action: string; actorId: string | null; systemActor: string | null; namespaceId: string | null };
  async function systemEvents(filter: Record<string, unknown>, key?: string): Promise<SystemEvent[]> {
    const res = await stack.gql(SYSTEM, { filter }, { key });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data!.auditEvents.edges.map((e: { node: SystemEvent }) => e.node);
  }

  it('every event no principal caused names the part of the control plane that wrote it: the installer its bootstrap, the worker the provisioning', async () => {
    const rows = await stack.runtime.db.auditEvent.findMany({ where: { actorId: null } });
    expect(rows.filter((r) => r.action !== 'anonymousRefusals' && r.systemActor === null).map((r) => r.action)).toEqual([]);
    const events = await systemEvents({});
    expect(events.find((e) => e.action === 'installation.bootstrap')).toMatchObject({ actorId: null, systemActor: 'INSTALLER' });
    const provisioned = events.filter((e) => e.action === 'namespace.provision');
    expect(provisioned.map((e) => e.namespaceId).sort()).toEqual([nsA, nsB].sort());
    for (const e of provisioned) expect(e).toMatchObject({ actorId: null, systemActor: 'WORKER' });
    // An event a principal caused names no system actor.
    const created = events.find((e) => e.action === 'secret.create');
    expect(created?.actorId).toBeTruthy();
    expect(created?.systemActor).toBeNull();
  });

  it.each(['WORKER', 'INSTALLER', 'RECONCILER'])('the filter systemActor: %s holds exactly the rows that part wrote, for the installation administrator and (in its namespace) a namespace administrator', async (system) => {
    const stored = (await stack.runtime.db.auditEvent.findMany({ where: { systemActor: system.toLowerCase() }, select: { id: true, namespaceId: true } }));
    const asAdmin = await systemEvents({ systemActor: system });
    expect(asAdmin.map((e) => e.id).sort()).toEqual(stored.map((r) => r.id).sort());
    for (const e of asAdmin) expect(e.systemActor).toBe(system);
    const asNamespaceAdmin = await systemEvents({ systemActor: system }, adminA.apiKey);
    expect(asNamespaceAdmin.map((e) => e.id).sort()).toEqual(stored.filter((r) => r.namespaceId === nsA).map((r) => r.id).sort());
    const exported = await stack.request(`/audit/events.ndjson?systemActor=${system}`, { headers: { authorization: `Bearer ${stack.bootstrapKey}` } });
    const lines = (await exported.text()).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as SystemEvent);
    expect(lines.map((l) => l.id).sort()).toEqual(stored.map((r) => r.id).sort());
    for (const l of lines) expect(l.systemActor).toBe(system);
  });

  it.each([
    ['no actor at all', { actorId: null, systemActor: null, action: 'test.nobody' }],
    ['a principal and a system actor both', { actorId: 'usr_x', systemActor: 'worker', action: 'test.both' }],
    ['a system actor the product does not have', { actorId: null, systemActor: 'cron', action: 'test.cron' }],
  ])('the database refuses an event with %s', async (_what, who) => {
    const write = stack.runtime.db.auditEvent.create({ data: { id: `aud_${randomUUID()}`, ...who, resourceKind: 'secret', outcome: 'SUCCESS' as const } });
    await expect(write).rejects.toThrow(/AuditEvent_(one_actor|systemActor_known)/);
  });
});
