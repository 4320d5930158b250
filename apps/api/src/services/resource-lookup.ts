import type { ResourceKind } from '@occ/domain/access';
import type { Db, Tx } from '../db/client.ts';

/** Where an existing resource lives. A namespace lives in itself (its bindings check it that way). */
export interface ResourceLocation {
  kind: ResourceKind;
  id: string;
  namespaceId: string | null;
}

type Lookup = (db: Db | Tx, id: string) => Promise<{ namespaceId: string | null } | null>;

// One lookup per kind that a single-resource binding may target (and explainAccess answers for).
// Principals, roles, bindings and audit events are administered at installation or namespace
// scope only, so a grant cannot target one of them alone.
// Each takes FOR KEY SHARE on the row: inside a transaction (a grant) that keeps the resource from
// being deleted until the commit, so a binding never outlives its target (deleteSecret locks the
// row FOR UPDATE and deletes the bindings on it), while ordinary updates of the row go on.
const LOOKUPS: Partial<Record<ResourceKind, Lookup>> = {
  secret: async (db, id) => {
    const rows = await db.$queryRaw<Array<{ namespaceId: string }>>`SELECT "namespaceId" FROM "Secret" WHERE id = ${id} FOR KEY SHARE`;
    return rows[0] ?? null;
  },
  namespace: async (db, id) => {
    const rows = await db.$queryRaw<Array<{ id: string }>>`SELECT id FROM "Namespace" WHERE id = ${id} FOR KEY SHARE`;
    return rows[0] ? { namespaceId: rows[0].id } : null;
  },
  configuration: async (db, id) => {
    const rows = await db.$queryRaw<Array<{ namespaceId: string }>>`SELECT "namespaceId" FROM "Configuration" WHERE id = ${id} FOR KEY SHARE`;
    return rows[0] ?? null;
  },
  agent: async (db, id) => {
    const rows = await db.$queryRaw<Array<{ namespaceId: string }>>`SELECT "namespaceId" FROM "Agent" WHERE id = ${id} FOR KEY SHARE`;
    return rows[0] ?? null;
  },
  // Revisions are immutable and never deleted: no lock needed to keep them.
  agentRevision: async (db, id) => {
    const rows = await db.$queryRaw<Array<{ namespaceId: string }>>`SELECT "namespaceId" FROM "AgentRevision" WHERE id = ${id}`;
    return rows[0] ?? null;
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
