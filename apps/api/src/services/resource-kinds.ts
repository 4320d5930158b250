import { covers, type ReadableSet, type ResourceKind } from '@occ/domain/access';
import { ID_PREFIXES, isId, type IdKind } from '@occ/domain/ids';
import type { Db, Tx } from '../db/client.ts';
import { raw, sql, sqlRows } from '../db/sql.ts';
import { check, requireVisible } from './access.ts';
import { remembered } from './auth-cache.ts';
import type { Actor, Deps } from './deps.ts';
import { agentRowsByIds, toAgentView } from './agents.ts';
import { configurationsById } from './configurations.ts';
import type { NamespaceView } from './namespaces.ts';
import { toRevisionView, withRevisionSecrets } from './revisions.ts';
import { readRollouts } from './secret-rollouts.ts';
import { toSecretView, type SecretRow } from './secrets.ts';

// One registry of the kinds a caller reads one by one: by id (get, and NOT_FOUND for what they may
// not read), through the request's batched loader, through node(id:), and as the target of a
// single-resource grant. Each entry says where the kind's rows are, how its views are read in one
// statement, and which access decision covers one; everything else is derived here. Adding a kind
// is one entry below plus its own service (what it reads and writes), and a `builder.node` if
// node(id:) should answer it.
//
// The entries reach into their services only inside functions, called per request: the services
// import this module too, and nothing here may run while the modules are still being loaded.

export interface KindSpec<View extends { id: string }> {
  /** The prefix of its ids (packages/domain/src/ids.ts). */
  idKind: IdKind;
  /** The GraphQL object type node(id:) answers for its ids. */
  typename: string;
  /** Its table and the column that holds its namespace ("id": a namespace lives in itself). */
  table: string;
  namespaceColumn: 'namespaceId' | 'id';
  /** Rows never deleted (revisions): a grant's lookup need not lock them to keep them. */
  neverDeleted?: boolean;
  /** Views by id, in one statement however many. */
  byIds(db: Db | Tx, ids: readonly string[]): Promise<View[]>;
  /** One view, where the kind has a better way than byIds (a cache). */
  byId?(db: Db | Tx, id: string): Promise<View | null>;
  /** The kind whose read permission reads one (a rollout is read with its secret). */
  readKind: ResourceKind;
  /** The namespace and resource a binding must cover for a caller to read one. */
  readTarget(view: View): { namespaceId: string; resourceId: string };
  /** Whether a grant may target one alone (a single-resource binding; explainAccess answers for it). */
  grantable: boolean;
}

const spec = <View extends { id: string }>(s: KindSpec<View>) => s;

function namespacesByIds(db: Db | Tx, ids: readonly string[]): Promise<NamespaceView[]> {
  return sqlRows<NamespaceView>(db, sql`SELECT * FROM "public"."Namespace" WHERE "id" = ANY(${[...ids]}::text[])`);
}

export const RESOURCE_KINDS = {
  namespace: spec<NamespaceView>({
    idKind: 'namespace',
    typename: 'Namespace',
    table: 'Namespace',
    namespaceColumn: 'id',
    byIds: namespacesByIds,
    // The authorization cache keeps namespace rows (invalidated by notifications): one read by id
    // costs no statement when warm. The kept row is frozen; the caller gets a copy (node(id:)
    // brands what it returns with its type, which a frozen object refuses).
    byId: async (db, id) => {
      const row = await remembered(db, 'namespace', id, async () => (await namespacesByIds(db, [id]))[0] ?? null);
      return row && { ...row };
    },
    readKind: 'namespace',
    readTarget: (n) => ({ namespaceId: n.id, resourceId: n.id }),
    grantable: true,
  }),
  secret: spec({
    idKind: 'secret',
    typename: 'Secret',
    table: 'Secret',
    namespaceColumn: 'namespaceId',
    byIds: async (db, ids) => (await sqlRows<SecretRow>(db, sql`SELECT * FROM "public"."Secret" WHERE "id" = ANY(${[...ids]}::text[])`)).map(toSecretView),
    readKind: 'secret',
    readTarget: (s) => ({ namespaceId: s.namespaceId, resourceId: s.id }),
    grantable: true,
  }),
  configuration: spec({
    idKind: 'configuration',
    typename: 'Configuration',
    table: 'Configuration',
    namespaceColumn: 'namespaceId',
    byIds: (db, ids) => configurationsById(db, ids),
    readKind: 'configuration',
    readTarget: (c) => ({ namespaceId: c.namespaceId, resourceId: c.id }),
    grantable: true,
  }),
  agent: spec({
    idKind: 'agent',
    typename: 'Agent',
    table: 'Agent',
    namespaceColumn: 'namespaceId',
    byIds: async (db, ids) => (await agentRowsByIds(db, ids)).map(toAgentView),
    readKind: 'agent',
    readTarget: (a) => ({ namespaceId: a.namespaceId, resourceId: a.id }),
    grantable: true,
  }),
  agentRevision: spec({
    idKind: 'revision',
    typename: 'AgentRevision',
    table: 'AgentRevision',
    namespaceColumn: 'namespaceId',
    neverDeleted: true,
    byIds: async (db, ids) => (await db.agentRevision.findMany({ where: { id: { in: [...ids] } }, include: withRevisionSecrets })).map(toRevisionView),
    readKind: 'agentRevision',
    readTarget: (r) => ({ namespaceId: r.namespaceId, resourceId: r.id }),
    grantable: true,
  }),
  // V4: a rollout is read with its secret (read on the secret); no grant names a rollout alone.
  secretRollout: spec({
    idKind: 'secretRollout',
    typename: 'SecretRollout',
    table: 'SecretRollout',
    namespaceColumn: 'namespaceId',
    byIds: (db, ids) => readRollouts(db, ids),
    readKind: 'secret',
    readTarget: (r) => ({ namespaceId: r.namespaceId, resourceId: r.secretId }),
    grantable: false,
  }),
};

export type Registry = Record<string, KindSpec<{ id: string }>>;
export type RegisteredKind = keyof typeof RESOURCE_KINDS;
export type ViewOf<K extends RegisteredKind> = Awaited<ReturnType<(typeof RESOURCE_KINDS)[K]['byIds']>>[number];

/** What the registry derives for each of its kinds. */
export interface ResourceKinds<R extends Registry> {
  /** The one the caller may read, or null: absent, malformed and unreadable alike. */
  get<K extends keyof R & string>(deps: Pick<Deps, 'db'>, actor: Actor, kind: K, id: string): Promise<ViewOfSpec<R[K]> | null>;
  /** The one the caller may read, or NOT_FOUND (an existing one the caller may not read is audited as a hidden denial, P6). */
  require<K extends keyof R & string>(deps: Pick<Deps, 'db'>, actor: Actor, kind: K, id: string): Promise<ViewOfSpec<R[K]>>;
  /** Where an existing one lives, or null (FOR KEY SHARE unless `neverDeleted`: inside a grant's transaction it stays until the commit). */
  locate(db: Db | Tx, kind: keyof R & string, id: string, options?: { keep?: boolean }): Promise<{ namespaceId: string } | null>;
  /** A batch by id for a request's loader: each one the caller may read (by `readable`, the caller's sets), else null. */
  readableByIds<K extends keyof R & string>(db: Db | Tx, kind: K, ids: readonly string[], readable: (kind: ResourceKind) => Promise<ReadableSet | null>): Promise<Array<ViewOfSpec<R[K]> | null>>;
  /** The kind a node id names by its prefix, or null. */
  kindOfId(id: string): (keyof R & string) | null;
  /** The kinds a single-resource binding may target. */
  grantable(kind: string): kind is keyof R & string;
}

type ViewOfSpec<S> = S extends KindSpec<infer V> ? V : never;

export function resourceKinds<R extends Registry>(registry: R): ResourceKinds<R> {
  const entry = (kind: string): KindSpec<{ id: string }> => {
    if (!Object.hasOwn(registry, kind)) throw new Error(`no resource kind ${kind} in the registry`);
    return registry[kind]!;
  };
  const one = async (db: Db | Tx, s: KindSpec<{ id: string }>, id: string) => (s.byId ? s.byId(db, id) : ((await s.byIds(db, [id]))[0] ?? null));
  const byPrefix = new Map<string, string>(Object.entries(registry).map(([kind, s]) => [ID_PREFIXES[s.idKind], kind]));
  const kinds: ResourceKinds<R> = {
    async get(deps, actor, kind, id) {
      const s = entry(kind);
      if (!isId(s.idKind, id)) return null;
      const view = await one(deps.db, s, id);
      if (!view) return null;
      const decision = await check(deps.db, actor, { action: 'read', resourceKind: s.readKind, ...s.readTarget(view) });
      return decision.allowed ? (view as ViewOfSpec<R[typeof kind]>) : null;
    },
    async require(deps, actor, kind, id) {
      const s = entry(kind);
      const view = await kinds.get(deps, actor, kind, id);
      return requireVisible(deps, actor, { kind: s.readKind, id }, view, () => kinds.locate(deps.db, kind, id, { keep: false }));
    },
    async locate(db, kind, id, options = {}) {
      const s = entry(kind);
      if (!isId(s.idKind, id)) return null;
      const lock = options.keep !== false && !s.neverDeleted ? raw(' FOR KEY SHARE') : raw('');
      const rows = await sqlRows<{ namespaceId: string }>(db, sql`SELECT ${raw(`"${s.namespaceColumn}"`)} AS "namespaceId" FROM ${raw(`"public"."${s.table}"`)} WHERE "id" = ${id}${lock}`);
      return rows[0] ?? null;
    },
    async readableByIds(db, kind, ids, readable) {
      const s = entry(kind);
      const views = new Map((await s.byIds(db, ids)).map((v) => [v.id, v]));
      const set = await readable(s.readKind);
      return ids.map((id) => {
        const view = views.get(id);
        if (!view || !set) return null;
        const target = s.readTarget(view);
        return covers(set, { id: target.resourceId, namespaceId: target.namespaceId }) ? (view as ViewOfSpec<R[typeof kind]>) : null;
      });
    },
    kindOfId(id) {
      const underscore = id.indexOf('_');
      return underscore > 0 ? ((byPrefix.get(id.slice(0, underscore + 1)) as (keyof R & string) | undefined) ?? null) : null;
    },
    grantable(kind): kind is keyof R & string {
      return Object.hasOwn(registry, kind) && registry[kind]!.grantable;
    },
  };
  return kinds;
}

/** The product's kinds. */
export const kinds = resourceKinds(RESOURCE_KINDS);

/**
 * Whether `kind` can be the target of a single-resource binding and the resource exists: its
 * location, null if it does not exist, 'unsupported' for a kind a grant cannot target alone
 * (principals, roles, bindings and audit events are administered at installation or namespace
 * scope only). Takes FOR KEY SHARE on the row: inside a transaction (a grant) that keeps the
 * resource from being deleted until the commit, so a binding never outlives its target
 * (deleteSecret locks the row FOR UPDATE and deletes the bindings on it), while ordinary updates
 * of the row go on.
 */
export async function resourceExists(db: Db | Tx, kind: ResourceKind, id: string): Promise<{ kind: ResourceKind; id: string; namespaceId: string | null } | null | 'unsupported'> {
  if (!kinds.grantable(kind)) return 'unsupported';
  const found = await kinds.locate(db, kind, id);
  return found ? { kind, id, namespaceId: found.namespaceId } : null;
}
