import type { CoreV1Api, AppsV1Api } from '@kubernetes/client-node';
import pg from 'pg';

// Searches for a planted secret value in every place it must never reach. A value can hide as
// plain text or base64 (at any of three byte alignments), so every form is searched.

export function canaryForms(canary: string): string[] {
  const forms = new Set<string>([canary]);
  const bytes = Buffer.from(canary, 'utf8');
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset, 0x20), bytes]);
    const b64 = padded.toString('base64');
    // Drop the characters that depend on the bytes before and after the canary.
    const start = Math.ceil((offset * 4) / 3) + (offset ? 1 : 0);
    const end = Math.floor(((offset + bytes.length) * 4) / 3) - 1;
    if (end - start >= 8) forms.add(b64.slice(start, end));
  }
  forms.add(bytes.toString('hex'));
  return [...forms];
}

export function findCanary(texts: Iterable<string>, canary: string): string[] {
  const forms = canaryForms(canary);
  const hits: string[] = [];
  for (const text of texts) if (forms.some((f) => text.includes(f))) hits.push(text.slice(0, 200));
  return hits;
}

/** Every row of every table in the public schema, as text. */
export async function dumpDatabase(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    const rows: string[] = [];
    for (const { table_name } of tables.rows) {
      const result = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${table_name}" t`);
      rows.push(...result.rows.map((r) => `${table_name}: ${r.row}`));
    }
    return rows;
  } finally {
    await client.end();
  }
}

/** Every object of the kinds the product writes, keyed by kind/namespace/name. */
export async function dumpKubernetes(core: CoreV1Api, apps: AppsV1Api): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const add = (kind: string, items: Array<{ metadata?: { namespace?: string; name?: string } }>) => {
    for (const item of items) out.set(`${kind}/${item.metadata?.namespace ?? ''}/${item.metadata?.name}`, JSON.stringify(item));
  };
  add('Secret', (await core.listSecretForAllNamespaces()).items);
  add('ConfigMap', (await core.listConfigMapForAllNamespaces()).items);
  add('Event', (await core.listEventForAllNamespaces()).items);
  add('Namespace', (await core.listNamespace()).items);
  add('Deployment', (await apps.listDeploymentForAllNamespaces()).items);
  return out;
}
