// What the console's browser benches share: how Chromium is started here, GraphQL with the
// bootstrap key, a READY namespace to fill, and how the numbers are printed.

export const LAUNCH = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
};

export type Data = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function gql(url: string, key: string, query: string, variables: Record<string, unknown>): Promise<Data> {
  const response = await fetch(new URL('/graphql', url), { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query, variables }) });
  const body = (await response.json()) as { data?: Data; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data!;
}

/** A new namespace named `prefix-…`, once its provisioning is READY (a minute at most). */
export async function readyNamespace(url: string, key: string, prefix: string): Promise<string> {
  const created = await gql(url, key, 'mutation($input: CreateNamespaceInput!) { createNamespace(input: $input) { ... on CreateNamespaceSuccess { namespace { id } } } }', { input: { name: `${prefix}-${Date.now().toString(36)}` } });
  const namespaceId = created.createNamespace.namespace.id as string;
  for (let i = 0; i < 600; i++) {
    const ns = await gql(url, key, 'query($id: ID!) { namespace(id: $id) { status } }', { id: namespaceId });
    if (ns.namespace.status === 'READY') return namespaceId;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`namespace ${namespaceId} was not READY within a minute`);
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const ms = (x: number) => `${x.toFixed(0)} ms`;

/** The bench's verdict: a non-zero exit when a ratio is over its budget. */
export function endWith(over: boolean): void {
  if (!over) return;
  console.log('\nover budget');
  process.exitCode = 1;
}
