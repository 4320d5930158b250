import type { SecretBinding } from '@occ/domain/configuration';
import type { Db, Tx } from '../db/client.ts';
import type { PageOf, PageRequest } from './pagination.ts';

// The history of a Configuration (C5): one row per accepted generation, written by the create or
// update that made it, in its transaction, so a refused, failed or stale (CONFLICT) update leaves
// none. A generation holds what the Configuration held then: the values (references only, as
// validated for the Configuration) and the bindings as references. Reading it needs what reading
// the Configuration needs: the lists below are reached only through a Configuration the caller
// could read (Configuration.generations), and each binding's secret through the request's loader,
// null when the caller may not read it, as on Configuration.secretBindings.

export interface ConfigurationGenerationView {
  configurationId: string;
  namespaceId: string;
  generation: number;
  values: Record<string, unknown>;
  secretBindings: SecretBinding[];
  createdById: string;
  createdAt: Date;
}

/** The snapshot of one generation: the configuration's row and bindings as just written. */
export async function recordGeneration(
  tx: Tx,
  row: { id: string; generation: number; values: unknown; bindings: ReadonlyArray<{ envName: string; secretId: string; deliveryType: string }> },
  createdById: string,
): Promise<void> {
  const bindings = [...row.bindings]
    .sort((a, b) => (a.envName < b.envName ? -1 : a.envName > b.envName ? 1 : 0))
    .map((b) => ({ envName: b.envName, secretId: b.secretId, deliveryType: b.deliveryType }));
  await tx.configurationGeneration.create({
    data: { configurationId: row.id, generation: row.generation, values: row.values as object, secretBindings: bindings, createdById },
  });
}

type Row = { configurationId: string; generation: number; values: unknown; secretBindings: unknown; createdById: string; createdAt: Date };

function toView(namespaceId: string, row: Row): ConfigurationGenerationView {
  const stored = row.secretBindings as Array<{ envName: string; secretId: string; deliveryType: string }>;
  return {
    configurationId: row.configurationId,
    namespaceId,
    generation: row.generation,
    values: row.values as Record<string, unknown>,
    secretBindings: stored.map((b) => ({
      envName: b.envName,
      source: { kind: 'secret', namespaceId, id: b.secretId },
      delivery: { type: b.deliveryType as 'env' },
    })),
    createdById: row.createdById,
    createdAt: row.createdAt,
  };
}

/**
 * One page of a configuration's generations, newest first, keyed by the generation number
 * (unique within the configuration, on the primary key's index): `after` a generation means older
 * than it, `before` newer. One statement; one more row than the page says whether more follow.
 */
export async function listGenerations(db: Db, configuration: { id: string; namespaceId: string }, page: PageRequest<number>): Promise<PageOf<ConfigurationGenerationView, number>> {
  const bounds: { lt?: number; gt?: number } = {};
  if (page.after !== null) bounds.lt = page.after;
  if (page.before !== null) bounds.gt = page.before;
  const where = { configurationId: configuration.id, ...(page.after !== null || page.before !== null ? { generation: bounds } : {}) };
  const rows = await db.configurationGeneration.findMany({ where, orderBy: { generation: page.direction === 'forward' ? 'desc' : 'asc' }, take: page.size + 1 });
  const more = rows.length > page.size;
  const kept = rows.slice(0, page.size);
  if (page.direction === 'backward') kept.reverse();
  let counted: Promise<number> | null = null;
  return {
    edges: kept.map((row) => ({ key: row.generation, node: toView(configuration.namespaceId, row) })),
    hasNextPage: page.direction === 'forward' ? more : page.before !== null,
    hasPreviousPage: page.direction === 'backward' ? more : page.after !== null,
    totalCount: () => (counted ??= db.configurationGeneration.count({ where: { configurationId: configuration.id } })),
  };
}

export interface FirstGenerationPageRequest {
  configurationId: string;
  namespaceId: string;
  /** The configuration's generation as the request read it: the newest its history holds. */
  generation: number;
  size: number;
}

/**
 * The first page (no cursor) of many configurations' generations at once, for a list of
 * configurations each asking for its latest generations, in one statement. A configuration's
 * generations are consecutive from its first recorded one to its current one, so its newest
 * `size + 1` lie in (current - size - 1, current]: that range of the primary key is all a page reads,
 * however long the history (a generation written since the configuration was read is in the range
 * too, and the newest rows are kept). totalCount, when asked, is one grouped count for all. A page
 * with a cursor goes through listGenerations.
 */
export async function firstGenerationPages(db: Db, requests: readonly FirstGenerationPageRequest[]): Promise<Array<PageOf<ConfigurationGenerationView, number>>> {
  const floors = new Map<string, number>();
  for (const r of requests) floors.set(r.configurationId, Math.min(floors.get(r.configurationId) ?? Infinity, r.generation - r.size - 1));
  const ids = [...floors.keys()];
  const rows = await db.$queryRaw<Row[]>`
    SELECT g."configurationId", g.generation, g."values", g."secretBindings", g."createdById", g."createdAt"
    FROM unnest(${ids}::text[], ${[...floors.values()]}::int[]) AS c(id, floor)
    CROSS JOIN LATERAL (SELECT * FROM "public"."ConfigurationGeneration" WHERE "configurationId" = c.id AND generation > c.floor) g`;
  const byConfiguration = new Map<string, Row[]>();
  for (const row of rows) byConfiguration.set(row.configurationId, [...(byConfiguration.get(row.configurationId) ?? []), row]);
  for (const list of byConfiguration.values()) list.sort((a, b) => b.generation - a.generation);
  let counts: Promise<Map<string, number>> | null = null;
  const countOf = async (id: string) => {
    counts ??= db.configurationGeneration
      .groupBy({ by: ['configurationId'], where: { configurationId: { in: ids } }, _count: { _all: true } })
      .then((groups) => new Map(groups.map((g) => [g.configurationId, g._count._all])));
    return (await counts).get(id) ?? 0;
  };
  return requests.map((r) => {
    const all = (byConfiguration.get(r.configurationId) ?? []).filter((row) => row.generation > r.generation - r.size - 1);
    const kept = all.slice(0, r.size);
    return {
      edges: kept.map((row) => ({ key: row.generation, node: toView(r.namespaceId, row) })),
      hasNextPage: all.length > r.size,
      hasPreviousPage: false,
      totalCount: () => countOf(r.configurationId),
    };
  });
}
