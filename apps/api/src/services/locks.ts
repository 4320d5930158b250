import type { Tx } from '../db/client.ts';

/**
 * The namespace lock (S1, S6, S7): a row lock held until the transaction ends, so it serializes
 * across processes and replicas, not only within this one.
 */
export async function lockNamespace(tx: Tx, namespaceId: string): Promise<{ id: string; status: string; k8sName: string } | null> {
  const rows = await tx.$queryRaw<Array<{ id: string; status: string; k8sName: string }>>`
    SELECT id, status::text AS status, "k8sName" FROM "Namespace" WHERE id = ${namespaceId} FOR UPDATE`;
  return rows[0] ?? null;
}

export async function lockSecret(tx: Tx, secretId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM "Secret" WHERE id = ${secretId} FOR UPDATE`;
  return rows.length === 1;
}
