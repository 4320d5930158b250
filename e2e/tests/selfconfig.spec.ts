import type { Page } from '@playwright/test';
import { accessibleEverywhere as accessible } from '../support/a11y';
import { createReadyNamespace, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { deployToActive, gqlInPage, gqlWithKey } from '../support/graphql';

// Journey (d): a deployed agent with self-configure enabled changes its own instance;
// one of its requests asks to remove a skill the control plane (occ-controller) owns, so that
// removal is skipped (SC7). The administrator then reads, in the console, the requests with their
// phases, the skipped removal with its owning manager, the request's events with
// SelfConfigSkippedRemoval marked, and the instance's item × manager ownership matrix.
//
// The agent speaks as its own service principal (SC5) with an API key an administrator issued to
// that principal (createApiKey), as a script running for the agent would; the webhook path (a
// ServiceAccount token creating OpenClawSelfConfig objects) is covered by the API's own tests.

type RequestNode = {
  id: string;
  name: string;
  phase: string;
  message: string | null;
  skippedRemovals: { kind: string; name: string; why: string; managers: { manager: string; operation: string }[] }[];
  events: { type: string; reason: string; message: string; on: string }[];
};

const REQUEST_SELF_CONFIG = `mutation($input: RequestSelfConfigInput!) {
  requestSelfConfig(input: $input) {
    __typename
    ... on RequestSelfConfigSuccess { request { id name phase } }
    ... on Error { code message }
  }
}`;

/** Waits, as the administrator, until the request reaches a terminal phase (SC2), and returns it. */
async function terminal(page: Page, agentId: string, id: string): Promise<RequestNode> {
  let found: RequestNode | undefined;
  await expect
    .poll(
      async () => {
        const data = await gqlInPage<{ selfConfigRequests: { edges: { node: RequestNode }[] } }>(
          page,
          `query($agentId: ID) { selfConfigRequests(agentId: $agentId, first: 50) { edges { node {
            id name phase message skippedRemovals { kind name why managers { manager operation } } events { type reason message on }
          } } } }`,
          { agentId },
        );
        found = data.selfConfigRequests.edges.map((e) => e.node).find((n) => n.id === id);
        return found?.phase;
      },
      { timeout: 60_000, intervals: [500, 1000, 2000] },
    )
    .toMatch(/^(Applied|Failed|Denied)$/);
  return found!;
}

test('SC7 SC2 SC5 journey (d): SelfConfig requests with phases, a skipped removal naming its owning manager, its SelfConfigSkippedRemoval event, and the ownership matrix', async ({
  page,
  request,
  stack,
  snap,
}, testInfo) => {
  test.setTimeout(360_000);
  const stamp = Date.now().toString(36);
  const namespaceName = `e2e-sc-${stamp}`;
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, namespaceName);

  let agentId = '';
  let servicePrincipalId = '';
  await test.step('an agent with self-configure enabled, whose configuration brings the skill web-search, deployed to active', async () => {
    const cfg = await gqlInPage<{ createConfiguration: { __typename: string; configuration?: { id: string } } }>(
      page,
      'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { __typename ... on CreateConfigurationSuccess { configuration { id } } } }',
      { input: { namespaceId, name: 'sc-gateway', values: { skills: ['web-search'], workspaceFiles: { 'AGENTS.md': '# agents' } } } },
    );
    expect(cfg.createConfiguration.__typename).toBe('CreateConfigurationSuccess');
    const created = await gqlInPage<{ createAgent: { __typename: string; agent?: { id: string; servicePrincipalId: string } } }>(
      page,
      'mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename ... on CreateAgentSuccess { agent { id servicePrincipalId } } } }',
      {
        input: {
          namespaceId,
          name: 'self-tuner',
          configurationId: cfg.createConfiguration.configuration!.id,
          selfConfigure: { enabled: true, allowedActions: ['skills', 'envVars', 'workspaceFiles', 'config'] },
        },
      },
    );
    expect(created.createAgent.__typename).toBe('CreateAgentSuccess');
    agentId = created.createAgent.agent!.id;
    servicePrincipalId = created.createAgent.agent!.servicePrincipalId;
    await deployToActive(page, agentId);
  });

  const names: Record<'added' | 'skipped' | 'failed', string> = { added: '', skipped: '', failed: '' };
  let ask: (input: Record<string, unknown>) => Promise<{ id: string; name: string }> = () => Promise.reject(new Error('no key yet'));
  await test.step('SC5 the administrator may not ask for the agent; the agent, with a key issued to its own service principal, may', async () => {
    const refused = await gqlInPage<{ requestSelfConfig: { __typename: string; code?: string } }>(page, REQUEST_SELF_CONFIG, {
      input: { agentId, addSkills: ['not-mine'] },
    });
    expect(refused.requestSelfConfig.__typename).toBe('ForbiddenError');

    const issued = await gqlInPage<{ createApiKey: { __typename: string; apiKey?: string } }>(
      page,
      'mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { __typename ... on CreateApiKeySuccess { apiKey } } }',
      { input: { principalId: servicePrincipalId } },
    );
    expect(issued.createApiKey.__typename).toBe('CreateApiKeySuccess');
    const agentKey = issued.createApiKey.apiKey!;
    ask = async (input: Record<string, unknown>) => {
      const data = await gqlWithKey<{ requestSelfConfig: { __typename: string; request?: { id: string; name: string } } }>(request, agentKey, REQUEST_SELF_CONFIG, {
        input: { agentId, ...input },
      });
      expect(data.requestSelfConfig.__typename, JSON.stringify(data.requestSelfConfig)).toBe('RequestSelfConfigSuccess');
      return data.requestSelfConfig.request!;
    };

    // One after the other: each request applies on top of the instance the previous one left.
    const added = await ask({ addSkills: ['mcp-server-fetch'], addEnvVars: [{ name: 'MY_CUSTOM_VAR', value: 'hello' }] });
    const addedDone = await terminal(page, agentId, added.id);
    expect(addedDone.phase).toBe('Applied');
    names.added = added.name;

    // SC7: web-search came with the configuration, so occ-controller owns it; the agent's removal is skipped.
    const skipped = await ask({ removeSkills: ['web-search'], addSkills: ['calendar'] });
    const skippedDone = await terminal(page, agentId, skipped.id);
    expect(skippedDone.phase).toBe('Applied');
    expect(skippedDone.skippedRemovals).toEqual([
      { kind: 'skill', name: 'web-search', why: 'not-owned', managers: [{ manager: 'occ-controller', operation: 'Apply' }] },
    ]);
    expect(skippedDone.events.map((e) => e.reason)).toContain('SelfConfigSkippedRemoval');
    names.skipped = skipped.name;

    // SC4: a protected env name fails the request, naming it.
    const failed = await ask({ addEnvVars: [{ name: 'HOME', value: '/tmp' }] });
    const failedDone = await terminal(page, agentId, failed.id);
    expect(failedDone.phase).toBe('Failed');
    names.failed = failed.name;
  });

  await test.step('SC7 the SelfConfig tab lists the requests with their phases, and the skipped removal with the manager that owns it', async () => {
    await page.goto(`/agents?namespace=${namespaceId}`);
    await page.getByRole('navigation', { name: `Sections of ${namespaceName}` }).getByRole('link', { name: 'SelfConfig' }).click();
    await expect(page).toHaveURL(new RegExp(`/selfconfig\\?namespace=${namespaceId}$`));
    await expect(page.getByRole('heading', { name: `SelfConfig in ${namespaceName}`, level: 1 })).toBeVisible();
    const table = page.getByRole('table', { name: 'SelfConfig requests' });
    await expect(table.locator('tbody > tr[data-request]')).toHaveCount(3);
    const row = (name: string) => table.locator(`tr[data-request="${name}"]`);
    await expect(row(names.added).getByTestId('phase')).toHaveText('Applied');
    await expect(row(names.skipped).getByTestId('phase')).toHaveText('Applied');
    await expect(row(names.failed).getByTestId('phase')).toHaveText('Failed');
    await expect(row(names.failed)).toContainText('HOME');
    await expect(row(names.added)).toContainText('add skills: mcp-server-fetch');
    await expect(row(names.added)).toContainText('add env: MY_CUSTOM_VAR');
    await expect(row(names.added)).not.toContainText('hello'); // history keeps names, never values
    await expect(row(names.added)).toContainText('self-tuner');
    const skippedItem = row(names.skipped).locator('[data-skipped="skills/web-search"]');
    await expect(skippedItem).toHaveText('skills/web-search not removed: owned by occ-controller (Apply)');
    await expect(row(names.skipped)).toContainText('Skipped removal');
    await expect(row(names.added).locator('[data-skipped]')).toHaveCount(0);
    await expect(row(names.skipped).locator('time').first()).toHaveAttribute('title', / UTC$/);
    await snap('requests');
  });

  await test.step('SC7 the request’s events: SelfConfigSkippedRemoval is marked in words, naming occ-controller', async () => {
    const table = page.getByRole('table', { name: 'SelfConfig requests' });
    const toggle = table.getByRole('button', { name: new RegExp(`^Events \\(\\d+\\) of ${names.skipped}$`) });
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const events = page.getByRole('table', { name: `Events of ${names.skipped}` });
    const skippedEvent = events.locator('tr[data-reason="SelfConfigSkippedRemoval"]');
    await expect(skippedEvent).toHaveCount(1);
    await expect(skippedEvent).toContainText('Skipped removal');
    await expect(skippedEvent).toContainText('Warning');
    await expect(skippedEvent).toContainText('occ-controller');
    await expect(skippedEvent).toContainText('web-search');
    // Only that event carries the mark.
    await expect(events.getByText('Skipped removal', { exact: true })).toHaveCount(1);
    await snap('events');
    await accessible(page, 'selfconfig-events-open');
  });

  await test.step('the phase filter is kept in the address and narrows the list', async () => {
    await page.getByLabel('Phase').selectOption('Failed');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect(page).toHaveURL(/phase=Failed/);
    const table = page.getByRole('table', { name: 'SelfConfig requests' });
    await expect(table.locator('tbody > tr[data-request]')).toHaveCount(1);
    await expect(table.locator(`tr[data-request="${names.failed}"]`)).toBeVisible();
    await page.getByLabel('Phase').selectOption('Denied');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect(page.getByText('No requests match this filter.')).toBeVisible();
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect(table.locator('tbody > tr[data-request]')).toHaveCount(3);
  });

  const expectMatrix = async () => {
    const matrix = page.getByRole('table', { name: /^Field ownership of agent-.*: items by field manager$/ });
    await expect(matrix).toBeVisible();
    const headers = await matrix.locator('thead th').allInnerTexts();
    expect(headers.slice(0, 3).map((h) => h.toLowerCase())).toEqual(['item', 'occ-controller', 'openclaw-selfconfig']);
    expect(headers.at(-1)?.toLowerCase()).toBe('agent may remove');
    // Row header, then one cell per manager in the header's order, then whether the agent may remove it.
    // What a screen reader reads in each cell (the dash is aria-hidden; "not owned" is its words).
    const cells = async (item: string) =>
      matrix.locator(`tr[data-item="${item}"] > td`).evaluateAll((tds) =>
        tds.map((td) => {
          const copy = td.cloneNode(true) as HTMLElement;
          copy.querySelectorAll('[aria-hidden="true"]').forEach((e) => e.remove());
          return (copy.textContent ?? '').trim();
        }),
      );
    const cols = headers.length - 2; // managers
    const expectRow = async (item: string, occ: string, self: string, removable: string) => {
      const texts = await cells(item);
      expect(texts.length, item).toBe(cols + 1);
      expect([texts[0], texts[1], texts.at(-1)], item).toEqual([occ, self, removable]);
    };
    await expectRow('skills/web-search', 'Apply', 'not owned', 'no');
    await expectRow('skills/mcp-server-fetch', 'not owned', 'Apply', 'yes');
    await expectRow('skills/calendar', 'not owned', 'Apply', 'yes');
    await expectRow('env/MY_CUSTOM_VAR', 'not owned', 'Apply', 'yes');
    await expectRow('files/AGENTS.md', 'Apply', 'not owned', 'no');
    await expect(matrix.locator('tr[data-item="env/HOME"]')).toHaveCount(0); // the failed request changed nothing
    // Row and column headers, so a screen reader announces "skills/web-search, occ-controller: Apply".
    await expect(matrix.getByRole('rowheader', { name: 'skills/web-search' })).toBeVisible();
    await expect(matrix.getByRole('columnheader', { name: 'occ-controller' })).toBeVisible();
    return matrix;
  };

  await test.step('the SelfConfig screen filtered to the agent shows its ownership matrix', async () => {
    await page.getByLabel('Agent', { exact: true }).selectOption({ label: 'self-tuner' });
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect(page).toHaveURL(new RegExp(`agent=${agentId}`));
    await expectMatrix();
    await snap('filtered-to-agent');
    await accessible(page, 'selfconfig-filtered-to-agent');
  });

  await test.step("the agent's page shows who owns what on its instance, and links to its requests", async () => {
    await page.goto(`/agents?namespace=${namespaceId}&id=${agentId}`);
    await expect(page.getByRole('heading', { name: 'Agent self-tuner', level: 1 })).toBeVisible();
    const matrix = await expectMatrix();
    await snap('agent-matrix');
    // For docs/screenshots/ownership-matrix.png: the matrix section with a margin of the page around it.
    await page.emulateMedia({ colorScheme: 'light' });
    const box = (await page.getByTestId('ownership-matrix').boundingBox())!;
    await page.screenshot({ path: testInfo.outputPath('ownership-matrix.png'), fullPage: true, clip: { x: box.x - 16, y: box.y - 12, width: box.width + 32, height: box.height + 20 } });
    await accessible(page, 'agent-ownership-matrix');
    await matrix.scrollIntoViewIfNeeded();
    await page.getByRole('link', { name: 'SelfConfig requests of this agent' }).click();
    await expect(page).toHaveURL(new RegExp(`/selfconfig\\?namespace=${namespaceId}&agent=${agentId}$`));
    await expect(page.getByRole('table', { name: 'SelfConfig requests' }).locator('tbody > tr[data-request]')).toHaveCount(3);
  });

  await test.step('a failed load keeps the frame, says what failed and offers "Try again", which loads', async () => {
    let failing = true;
    await page.route('**/graphql', async (route) => {
      const body = route.request().postData() ?? '';
      if (failing && (body.includes('query SelfConfigRequests') || body.includes('query AgentFieldOwnership'))) return route.abort('connectionrefused');
      return route.continue();
    });
    await page.goto(`/selfconfig?namespace=${namespaceId}&agent=${agentId}`);
    await expect(page.getByRole('heading', { name: 'SelfConfig', level: 1 })).toBeVisible();
    await expect(page.getByRole('navigation', { name: /^Sections of / }).getByRole('link', { name: 'SelfConfig' })).toHaveAttribute('aria-current', 'page');
    const alert = page.getByTestId('query-error').filter({ hasText: "Could not load this namespace's SelfConfig requests" });
    await expect(alert).toBeVisible();
    await expect(alert).not.toContainText('Failed to fetch');
    await snap('error');
    failing = false;
    await alert.getByRole('button', { name: 'Try again' }).click();
    await expect(page.getByRole('table', { name: 'SelfConfig requests' }).locator('tbody > tr[data-request]')).toHaveCount(3);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });

  await test.step('the list pages by cursor, twenty requests a page, newest first', async () => {
    // Twenty more, each refused by SC4 (nothing is applied, so they finish quickly and change no ownership).
    // Four at a time: the agent's principal may have at most 8 requests in execution (P7); twenty
    // sent at once were refused CONCURRENCY_LIMITED, as a script that ignores the cap would be.
    const more: Array<{ id: string; name: string }> = [];
    for (let i = 0; i < 20; i += 4) {
      more.push(...(await Promise.all([i, i + 1, i + 2, i + 3].map((n) => ask({ addEnvVars: [{ name: 'PATH', value: `/opt/${n}` }] })))));
    }
    await page.goto(`/selfconfig?namespace=${namespaceId}`);
    const table = page.getByRole('table', { name: 'SelfConfig requests' });
    const pages = page.getByRole('navigation', { name: 'Pages of requests' });
    await expect(pages.getByTestId('pager-range')).toHaveText('1–20 of 23 requests');
    await expect(table.locator('tbody > tr[data-request]')).toHaveCount(20);
    // The three first requests are the oldest: none of them on the first page.
    for (const name of Object.values(names)) await expect(table.locator(`tr[data-request="${name}"]`)).toHaveCount(0);
    await pages.getByRole('button', { name: 'Next' }).click();
    await expect(pages.getByTestId('pager-range')).toHaveText('21–23 of 23 requests');
    await expect(table.locator('tbody > tr[data-request]')).toHaveCount(3);
    for (const name of Object.values(names)) await expect(table.locator(`tr[data-request="${name}"]`)).toHaveCount(1);
    await expect(pages.getByRole('button', { name: 'Next' })).toBeDisabled();
    await pages.getByRole('button', { name: 'Previous' }).click();
    await expect(pages.getByTestId('pager-range')).toHaveText('1–20 of 23 requests');
    expect(new Set(more.map((r) => r.name)).size).toBe(20);
    await snap('paged');
  });
});
