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

/**
 * Rule P1's catalogue of broken requests that carry a canary, for every mutation that takes a
 * value: written inline and given as a variable, as parse, validation and coercion errors. The
 * canary is a valid GraphQL name as well, so it can stand where a client's key would.
 */
export interface BrokenRequest {
  label: string;
  body: string;
  contentType?: string;
}

export function brokenRequestsCarrying(canary: string, ids: { namespaceId: string; secretId: string }): BrokenRequest[] {
  const json = (label: string, query: string, variables: Record<string, unknown> = {}): BrokenRequest => ({ label, body: JSON.stringify({ query, variables }) });
  const out: BrokenRequest[] = [];
  const digits = canary.replace(/\D/g, '').slice(0, 15) || '739182736451';
  const wrongValues: Array<[string, unknown]> = [
    ['list', [canary]],
    ['object', { [canary]: canary }],
    ['nested', { a: [{ b: canary }] }],
    ['separator', [`x; ${canary}; y`]],
    ['number', Number(digits)],
    ['boolean', true],
  ];
  const mutations = [
    { name: 'createSecret', type: 'CreateSecretInput', fields: (value: string) => `namespaceId: "${ids.namespaceId}", name: "canary-x", value: ${value}`, base: { namespaceId: ids.namespaceId, name: 'canary-x' } },
    { name: 'updateSecret', type: 'UpdateSecretInput', fields: (value: string) => `id: "${ids.secretId}", value: ${value}`, base: { id: ids.secretId } },
  ];
  for (const m of mutations) {
    const withVariable = `mutation M($i: ${m.type}!) { ${m.name}(input: $i) { __typename } }`;
    // Parse errors: the canary where the lexer stops, and beside a broken document.
    out.push(json(`${m.name} parse: inline string`, `mutation { ${m.name}(input: { ${m.fields(`"${canary}"`).replace('value:', 'value')} }) { __typename } }`));
    out.push(json(`${m.name} parse: inline name`, `mutation { ${m.name}(input: { ${m.fields(canary)} } { __typename } }`));
    out.push(json(`${m.name} parse: unterminated`, `mutation { ${m.name}(input: { ${m.fields(`"${canary}`)} }) { __typename } }`));
    out.push(json(`${m.name} parse: variable`, `mutation M($i: ${m.type}!) { ${m.name}(input: $i) { __typename }`, { i: { ...m.base, value: canary } }));
    // Validation errors: inline literals of the wrong shape, an unknown field named like the canary.
    out.push(json(`${m.name} validation: list`, `mutation { ${m.name}(input: { ${m.fields(`["${canary}"]`)} }) { __typename } }`));
    out.push(json(`${m.name} validation: object`, `mutation { ${m.name}(input: { ${m.fields(`{ a: "${canary}" }`)} }) { __typename } }`));
    out.push(json(`${m.name} validation: number`, `mutation { ${m.name}(input: { ${m.fields(digits)} }) { __typename } }`));
    out.push(json(`${m.name} validation: enum-like name`, `mutation { ${m.name}(input: { ${m.fields(canary)} }) { __typename } }`));
    out.push(json(`${m.name} validation: unknown field`, `mutation { ${m.name}(input: { ${m.fields('"x"')}, ${canary}: "${canary}" }) { __typename } }`));
    out.push(json(`${m.name} validation: default value`, `mutation M($i: ${m.type}! = { ${m.fields(`["${canary}"]`)} }) { ${m.name}(input: $i) { __typename } }`));
    // Coercion errors: variables of the wrong type, an unknown key named like the canary.
    for (const [label, value] of wrongValues) out.push(json(`${m.name} coercion: ${label}`, withVariable, { i: { ...m.base, value } }));
    out.push(json(`${m.name} coercion: unknown key`, withVariable, { i: { ...m.base, value: 'x', [canary]: canary } }));
    out.push(json(`${m.name} coercion: whole input wrong`, withVariable, { i: [canary] }));
  }
  // Not JSON at all: JSON.parse's own message quotes the text it failed on.
  out.push({ label: 'body: invalid JSON', body: `{"query": "mutation { createSecret }", "variables": ${canary}}` });
  out.push({ label: 'body: unexpected parameter', body: JSON.stringify({ query: '{ viewer { id } }', [canary]: canary }) });
  return out;
}
