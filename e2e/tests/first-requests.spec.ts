import type { Page } from '@playwright/test';
import { signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { createUserWithNamespaceRole, gqlInPage } from '../support/graphql';

// A page's first GraphQL requests start from its HTML, before its scripts have loaded
// (apps/console/lib/first-requests.ts, lib/page-requests.ts), and the screens take those answers
// instead of asking again. A page's list of first requests describes what its screens will ask;
// were the two to drift (a screen's new variable, a new page, a reader who is shown another
// screen), the page would send a request nobody takes. Every page, with the addresses people open
// (filters, one object by id), as an administrator and as a namespace viewer: nothing left untaken.

type FirstRequests = { started: readonly string[]; untaken(): string[] };

const operation = (canonical: string) => /(?:query|mutation)\s+(\w+)/.exec((JSON.parse(canonical) as { query: string }).query)?.[1] ?? '?';

async function firstRequests(page: Page, path: string): Promise<{ started: string[]; untaken: string[] }> {
  await page.goto(path);
  await page.waitForLoadState('networkidle');
  const found = await page.evaluate(() => {
    const first = (window as unknown as { __occFirstRequests?: FirstRequests }).__occFirstRequests;
    return first ? { started: [...first.started], untaken: first.untaken() } : null;
  });
  // Absent would mean the inline script did not run (a Content-Security-Policy without its hash).
  expect(found, `${path}: the page's inline script ran`).not.toBeNull();
  return { started: found!.started.map(operation).sort(), untaken: found!.untaken.map(operation) };
}

test('every page starts its first requests from its HTML and its screens take each of them, for an administrator and a namespace viewer', async ({ page, stack }) => {
  await signIn(page, stack.bootstrapApiKey);
  const suffix = Date.now().toString(36);
  const created = await gqlInPage<{ createNamespace: { namespace: { id: string } } }>(
    page,
    'mutation($input: CreateNamespaceInput!) { createNamespace(input: $input) { ... on CreateNamespaceSuccess { namespace { id } } } }',
    { input: { name: `first-${suffix}` } },
  );
  const ns = created.createNamespace.namespace.id;
  await expect
    .poll(async () => (await gqlInPage<{ namespace: { status: string } }>(page, 'query($id: ID!) { namespace(id: $id) { status } }', { id: ns })).namespace.status, { timeout: 60_000 })
    .toBe('READY');
  const secret = (
    await gqlInPage<{ createSecret: { secret: { id: string } } }>(
      page,
      'mutation($input: CreateSecretInput!) { createSecret(input: $input) { ... on CreateSecretSuccess { secret { id } } } }',
      { input: { namespaceId: ns, name: 'first-secret', value: 'first-value' } },
    )
  ).createSecret.secret.id;
  const agent = (
    await gqlInPage<{ createAgent: { agent: { id: string } } }>(
      page,
      'mutation($input: CreateAgentInput!) { createAgent(input: $input) { ... on CreateAgentSuccess { agent { id } } } }',
      { input: { namespaceId: ns, name: 'first-agent' } },
    )
  ).createAgent.agent.id;
  const viewerKey = await createUserWithNamespaceRole(page, `first-viewer-${suffix}`, 'rol_namespace-viewer', ns);

  // path → the operations its HTML starts (Viewer on every page: the header asks who is signed in).
  const pages: [string, string[]][] = [
    ['/namespaces', ['NamespaceHealth', 'Namespaces', 'Viewer']],
    [`/secrets?namespace=${ns}`, ['NamespaceSecrets', 'Namespaces', 'Viewer']],
    [`/secrets?namespace=${ns}&stale=1`, ['NamespaceSecrets', 'Namespaces', 'Viewer']],
    [`/secrets?namespace=${ns}&id=${secret}`, ['Namespaces', 'Viewer']],
    [`/configurations?namespace=${ns}`, ['NamespaceConfigurations', 'Namespaces', 'Viewer']],
    [`/agents?namespace=${ns}`, ['NamespaceAgents', 'NamespaceConfigurations', 'Namespaces', 'Viewer']],
    [`/agents?namespace=${ns}&status=FAILED`, ['NamespaceAgents', 'NamespaceConfigurations', 'Namespaces', 'Viewer']],
    [`/agents?namespace=${ns}&id=${agent}`, ['Namespaces', 'Viewer']],
    [
      `/access?namespace=${ns}`,
      ['AccessBindingsForResource', 'BootstrapPrincipal', 'NamespaceAgents', 'NamespaceConfigurations', 'NamespaceSecrets', 'Namespaces', 'ResourceAccessBindingsInNamespace', 'Roles', 'Users', 'Viewer'],
    ],
    ['/audit', ['AuditEvents', 'BootstrapPrincipal', 'Users', 'Viewer']],
    [`/audit?namespaceId=${ns}&outcome=FAILURE`, ['AuditEvents', 'BootstrapPrincipal', 'Users', 'Viewer']],
    ['/selfconfig', ['Viewer']],
    [`/selfconfig?namespace=${ns}`, ['NamespaceAgents', 'Namespaces', 'SelfConfigRequests', 'Viewer']],
    [`/selfconfig?namespace=${ns}&agent=${agent}&phase=AwaitingApproval`, ['NamespaceAgents', 'Namespaces', 'SelfConfigRequests', 'Viewer']],
    ['/selfconfig/approvals', ['SelfConfigApprovals', 'Viewer']],
    ['/users', ['BootstrapPrincipal', 'Users', 'Viewer']],
  ];

  for (const reader of ['administrator', 'namespace viewer'] as const) {
    if (reader === 'namespace viewer') {
      await page.context().clearCookies();
      await signIn(page, viewerKey);
    }
    for (const [path, operations] of pages) {
      const { started, untaken } = await firstRequests(page, path);
      expect(started, `${reader} ${path}: started from the HTML`).toEqual([...operations].sort());
      expect(untaken, `${reader} ${path}: started and never taken by a screen`).toEqual([]);
    }
  }
});

test('on a slow link the page’s GraphQL requests start before its scripts have loaded, and the list fills from them', async ({ page, stack }) => {
  await signIn(page, stack.bootstrapApiKey);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  // Chromium's own emulation: every request, scripts and GraphQL alike, waits 300 ms more.
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 300, downloadThroughput: 200_000, uploadThroughput: 200_000 });
  const graphql: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/graphql')) graphql.push(operation(request.postData() ?? '{"query":""}'));
  });
  await page.goto('/namespaces');
  await expect(page.getByRole('table').getByRole('row').nth(1)).toBeVisible({ timeout: 60_000 });
  const timing = await page.evaluate(() => {
    const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
    const scripts = entries.filter((e) => e.initiatorType === 'script');
    const queries = entries.filter((e) => e.name.endsWith('/graphql'));
    const lastScriptEnd = Math.max(...scripts.map((e) => e.responseEnd));
    return { lastScriptEnd, scripts: scripts.length, queryStarts: queries.map((e) => Math.round(e.startTime)), beforeScripts: queries.filter((e) => e.startTime < lastScriptEnd).length };
  });
  expect(timing.scripts).toBeGreaterThan(0);
  // Each of the page's three first questions went out once (the screens took the answers) …
  for (const name of ['Viewer', 'Namespaces', 'NamespaceHealth']) expect(graphql.filter((n) => n === name), name).toHaveLength(1);
  // … and all three left before the last script had arrived.
  expect(timing.beforeScripts, JSON.stringify(timing)).toBeGreaterThanOrEqual(3);
});
