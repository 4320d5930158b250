import type { ResourceKind } from '@occ/domain/access';
import type { Db, Tx } from '../db/client.ts';

/** Where an existing resource lives. A namespace lives in itself (its bindings check it that way). */
export interface ResourceLocation {
  kind: ResourceKind;
  id: string;
  namespaceId: string | null;
}

type Lookup = (db: Db | Tx, id: string) => Promise<{ namespaceId: string | null } | null>;

// One lookup per kind that a single-resource binding may target. Kinds without one cannot be the
// target of a resource-scope binding yet; configuration and agent plug in here with their tables.
const LOOKUPS: Partial<Record<ResourceKind, Lookup>> = {
  secret: (db, id) => db.secret.findUnique({ where: { id }, select: { namespaceId: true } }),
  namespace: async (db, id) => {
    const row = await db.namespace.findUnique({ where: { id }, select: { id: true } });
    return row ? { namespaceId: row.id } : null;
  },
};

/**
 * The resource if it exists, null if it does not, 'unsupported' for a kind with no lookup (the
 * caller answers that as a validation error rather than guessing).
 */
export async function resourceExists(db: Db | Tx, kind: ResourceKind, id: string): Promise<ResourceLocation | null | 'unsupported'> {
  const lookup = LOOKUPS[kind];
  if (!lookup) return 'unsupported';
  const found = await lookup(db, id);
  return found ? { kind, id, namespaceId: found.namespaceId } : null;
}
