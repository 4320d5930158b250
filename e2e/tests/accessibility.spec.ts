import type { Page, Route } from '@playwright/test';
import { axe, noSidewaysScroll, tablesFit } from '../support/a11y';
import { chooseRowAction, createConfiguration, createReadyNamespace, createSecret, openCreate, rowActions, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { createUserInPage, deployToActive, gqlInPage, grantSecretOperator } from '../support/graphql';

// axe on every screen and state (loaded, loading, error, empty, dialogs open), in both colour
// schemes, every table whole at the desktop width (1280 px), and every screen at 390 px wide
// without sideways scrolling. Serious and critical
// violations fail; the rest are printed.

/** axe in light and dark, then the 390 px check, each with a screenshot. */
async function everyWay(page: Page, where: string, snap: (name: string) => Promise<void>, ready: () => Promise<void>): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await ready();
  await axe(page, `${where} (light)`);
  await tablesFit(page, where);
  await page.emulateMedia({ colorScheme: 'dark' });
  await axe(page, `${where} (dark)`);
  await snap(`${where}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  await ready();
  await noSidewaysScroll(page, where);
  await axe(page, `${where} (390 px)`);
  await snap(`${where}-390`);
  await page.setViewportSize(size);
}

/** An agent on the configuration, granted what it needs and deployed to an active revision. */
async function deployedAgent(page: Page, namespaceId: string, configurationId: string, secretId: string): Promise<string> {
  const created = await gqlInPage<{ createAgent: { servicePrincipalId: string; agent: { id: string } } }>(
    page,
    'mutation($input: CreateAgentInput!) { createAgent(input: $input) { ... on CreateAgentSuccess { servicePrincipalId agent { id } } } }',
    { input: { namespaceId, name: 'a11y-deployed', configurationId } },
  );
  const agentId = created.createAgent.agent.id;
  await grantSecretOperator(page, created.createAgent.servicePrincipalId, namespaceId, secretId);
  await deployToActive(page, agentId, 60_000);
  return agentId;
}

test('every screen, loaded, in light and dark and at 390 px: no serious or critical axe violation, no sideways scroll', async ({ page, stack, snap }) => {
  test.setTimeout(1_500_000); // ~40 axe runs and 30 full-page screenshots; under 11 minutes was not enough on the shared machine
  const stamp = Date.now().toString(36);
  const namespaceName = `e2e-a11y-${stamp}`;

  await page.goto('/sign-in');
  await everyWay(page, 'sign-in', snap, () => expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible());

  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, namespaceName);
  const secretId = await createSecret(page, namespaceId, 'a11y-token');
  const configurationId = await createConfiguration(page, namespaceId, 'a11y-gateway', { envName: 'A11Y_TOKEN', secretName: 'a11y-token' });
  const agent = await gqlInPage<{ createAgent: { agent: { id: string } } }>(
    page,
    'mutation($input: CreateAgentInput!) { createAgent(input: $input) { ... on CreateAgentSuccess { agent { id } } } }',
    { input: { namespaceId, name: 'a11y-agent', configurationId } },
  );
  await createUserInPage(page, `a11y-user-${stamp}`);
  const viewer = await gqlInPage<{ viewer: { id: string } }>(page, '{ viewer { id } }');
  // A second agent, granted and deployed, then the secret rotated: the deploy and revisions
  // sections with an active revision, and a stale secret with "Redeploy consumers".
  const deployedAgentId = await deployedAgent(page, namespaceId, configurationId, secretId);
  await gqlInPage(page, 'mutation($input: UpdateSecretInput!) { updateSecret(input: $input) { __typename } }', {
    input: { id: secretId, value: `a11y-rotated-${stamp}` },
  });

  const screens: [string, string, () => Promise<void>][] = [
    ['namespaces', '/namespaces', async () => {
      await page.getByLabel('Search namespaces by name').fill(namespaceName);
      await expect(page.getByRole('row', { name: new RegExp(namespaceName) })).toBeVisible();
    }],
    ['secrets', `/secrets?namespace=${namespaceId}`, () => expect(rowActions(page, 'a11y-token')).toBeVisible()],
    ['references', `/secrets?namespace=${namespaceId}&id=${secretId}`, () => expect(page.getByRole('list', { name: 'References of a11y-token' })).toBeVisible()],
    ['configurations', `/configurations?namespace=${namespaceId}`, () => expect(page.getByRole('link', { name: 'Open configuration a11y-gateway' })).toBeVisible()],
    ['configuration', `/configurations?namespace=${namespaceId}&id=${configurationId}`, () => expect(page.getByTestId('generation')).toHaveText('1')],
    ['agents', `/agents?namespace=${namespaceId}`, () => expect(page.getByRole('link', { name: 'Open agent a11y-agent' })).toBeVisible()],
    ['agent', `/agents?namespace=${namespaceId}&id=${agent.createAgent.agent.id}`, () => expect(page.getByTestId('missing-grants')).toBeVisible()],
    ['agent-deployed', `/agents?namespace=${namespaceId}&id=${deployedAgentId}`, () => expect(page.getByTestId('active-marker')).toBeVisible()],
    ['access', `/access?namespace=${namespaceId}&subject=${viewer.viewer.id}`, () => expect(page.getByRole('heading', { name: 'Grants of one principal' })).toBeVisible()],
    ['users', '/users', () => expect(page.getByRole('heading', { name: 'Bootstrap service principal' })).toBeVisible()],
    ['api-keys', `/users?id=${viewer.viewer.id}`, () => expect(page.getByRole('table', { name: 'API keys' })).toBeVisible()],
    ['audit', '/audit', () => expect(page.getByRole('table', { name: 'Audit events' })).toBeVisible()],
    ['selfconfig', `/selfconfig?namespace=${namespaceId}`, () => expect(page.getByText(/^No SelfConfig requests in this namespace yet\./)).toBeVisible()],
    [
      'selfconfig-agent',
      `/selfconfig?namespace=${namespaceId}&agent=${agent.createAgent.agent.id}`,
      async () => {
        await expect(page.getByText(/^No instance yet: deploying the agent/)).toBeVisible();
        await expect(page.getByText('No requests from this agent yet.')).toBeVisible();
      },
    ],
  ];
  for (const [name, url, ready] of screens) {
    await test.step(name, async () => {
      await page.goto(url);
      await everyWay(page, name, snap, ready);
    });
  }

  await test.step('dialogs, menus and panels open: create panel, a row’s actions, delete confirmation, rotate panel, subject listbox', async () => {
    await page.goto(`/secrets?namespace=${namespaceId}`);
    await openCreate(page, 'New secret');
    await chooseRowAction(page, 'a11y-token', 'Rotate…');
    await everyWay(page, 'secrets-panels', snap, () => expect(page.getByLabel('New value for a11y-token')).toBeVisible());
    await chooseRowAction(page, 'a11y-token', 'Delete…');
    await everyWay(page, 'delete-dialog', snap, () => expect(page.getByRole('alertdialog')).toBeVisible());
    await page.keyboard.press('Escape');
    await expect(page.getByRole('alertdialog')).toHaveCount(0);
    // Escape cancels and hands focus back to the row's Actions button, whose menu opened the dialog.
    await expect(rowActions(page, 'a11y-token')).toBeFocused();

    await page.goto(`/access?namespace=${namespaceId}`);
    const subject = page.getByRole('combobox', { name: 'Subject ID' });
    await subject.fill('a11y');
    await subject.press('ArrowDown');
    await everyWay(page, 'subject-listbox', snap, () => expect(page.getByRole('listbox', { name: 'Subject ID suggestions' })).toBeVisible());
  });

  await test.step('deploy: a revision\'s native document open, the stop dialog, the stale secret\'s redeploy panel, a deploy\'s progress', async () => {
    await page.goto(`/agents?namespace=${namespaceId}&id=${deployedAgentId}`);
    await page.getByText('Native document of revision 1, as frozen').click();
    await everyWay(page, 'revision-document', snap, () => expect(page.getByTestId('native-document')).toBeVisible());
    await page.getByRole('button', { name: 'Stop a11y-deployed' }).click();
    await everyWay(page, 'stop-dialog', snap, () => expect(page.getByRole('alertdialog')).toBeVisible());
    await page.keyboard.press('Escape');
    await expect(page.getByRole('button', { name: 'Stop a11y-deployed' })).toBeFocused();

    await page.goto(`/secrets?namespace=${namespaceId}`);
    await expect(page.getByTestId('stale-badge')).toBeVisible();
    await chooseRowAction(page, 'a11y-token', 'Redeploy consumers…');
    await everyWay(page, 'redeploy-panel', snap, () => expect(page.getByTestId('stale-consumer')).toBeVisible());

    await page.goto(`/agents?namespace=${namespaceId}&id=${deployedAgentId}`);
    await page.getByRole('button', { name: 'Deploy again' }).click();
    await expect(page.getByTestId('deploy-progress')).toHaveAttribute('data-state', 'ACTIVE', { timeout: 60_000 });
    await everyWay(page, 'deploy-progress', snap, () => expect(page.getByTestId('deploy-progress')).toBeVisible());
  });

  await test.step('empty states: an empty namespace, a search that matches nothing', async () => {
    const emptyId = await (async () => {
      await page.goto('/namespaces');
      return createReadyNamespace(page, `e2e-a11y-empty-${stamp}`);
    })();
    await page.goto(`/secrets?namespace=${emptyId}`);
    await everyWay(page, 'secrets-empty', snap, () => expect(page.getByText('No secrets in this namespace yet.')).toBeVisible());
    await page.goto(`/secrets?namespace=${namespaceId}`);
    await page.getByLabel('Search secrets by name').fill('zzz-nothing');
    await everyWay(page, 'secrets-no-match', snap, () => expect(page.getByText('No secrets whose name starts with “zzz-nothing”.')).toBeVisible());
    expect(secretId).toMatch(/^sec_/);
  });
});

test('loading and error states keep the frame and its heading; an error offers a retry that works', async ({ page, stack, snap }) => {
  test.setTimeout(300_000);
  await signIn(page, stack.bootstrapApiKey);

  await test.step('loading: the heading stays, skeleton rows stand in for the list', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/graphql', async (route: Route) => {
      if ((route.request().postData() ?? '').includes('query Namespaces')) await released;
      await route.continue().catch(() => undefined);
    });
    await page.goto('/namespaces');
    await expect(page.getByRole('heading', { name: 'Namespaces', level: 1 })).toBeVisible();
    await expect(page.getByTestId('skeleton')).toBeVisible();
    await everyWay(page, 'namespaces-loading', snap, () => expect(page.getByTestId('skeleton')).toBeVisible());
    release();
    await expect(page.getByTestId('skeleton')).toHaveCount(0);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });

  await test.step('error: a plain explanation instead of "Failed to fetch", and "Try again" loads the list', async () => {
    let failing = true;
    await page.route('**/graphql', async (route: Route) => {
      if (failing && (route.request().postData() ?? '').includes('query Namespaces')) return route.abort('connectionrefused');
      return route.continue();
    });
    await page.goto('/namespaces');
    const error = page.getByTestId('query-error');
    await expect(error).toBeVisible({ timeout: 30_000 });
    await expect(error).not.toContainText('Failed to fetch');
    await expect(error).toContainText('The server did not answer');
    await expect(page.getByRole('heading', { name: 'Namespaces', level: 1 })).toBeVisible();
    await everyWay(page, 'namespaces-error', snap, () => expect(error).toBeVisible());
    failing = false;
    await error.getByRole('button', { name: 'Try again' }).click();
    await expect(page.getByRole('table', { name: 'Namespaces' })).toBeVisible();
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });
});

test('D6 the deploy and revisions sections: skeletons inside the frame while loading, an error with "Try again" that works', async ({ page, stack, snap }) => {
  test.setTimeout(300_000);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-a11y-deploy-${Date.now().toString(36)}`);
  const created = await gqlInPage<{ createAgent: { agent: { id: string } } }>(
    page,
    'mutation($input: CreateAgentInput!) { createAgent(input: $input) { ... on CreateAgentSuccess { agent { id } } } }',
    { input: { namespaceId, name: 'a11y-loading' } },
  );
  const url = `/agents?namespace=${namespaceId}&id=${created.createAgent.agent.id}`;
  const heading = page.getByRole('heading', { name: 'Agent a11y-loading', level: 1 });
  const deploy = page.getByTestId('deploy');
  const revisions = page.getByTestId('revisions');
  const isDeployRead = (route: Route) => /query (ExplainDeploy|AgentRevisions)\b/.test(route.request().postData() ?? '');

  await test.step('loading: the heading and the rest of the page stay, skeletons stand in for the checks and the revisions', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/graphql', async (route: Route) => {
      if (isDeployRead(route)) await released;
      await route.continue().catch(() => undefined);
    });
    await page.goto(url);
    await expect(heading).toBeVisible();
    await everyWay(page, 'deploy-loading', snap, async () => {
      await expect(deploy.getByTestId('skeleton')).toBeVisible();
      await expect(revisions.getByTestId('skeleton')).toBeVisible();
    });
    release();
    await expect(deploy.getByTestId('deploy-checks')).toBeVisible();
    await expect(revisions).toContainText('Not deployed yet');
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });

  await test.step('error: what could not be loaded, in plain words, and "Try again" loads it', async () => {
    let failing = true;
    await page.route('**/graphql', async (route: Route) => {
      if (failing && isDeployRead(route)) return route.abort('connectionrefused');
      return route.continue();
    });
    await page.goto(url);
    const deployError = deploy.getByTestId('query-error');
    const revisionsError = revisions.getByTestId('query-error');
    await expect(deployError).toContainText('Could not load the deploy checks', { timeout: 30_000 });
    await expect(revisionsError).toContainText("Could not load the agent's revisions", { timeout: 30_000 });
    await expect(deployError).toContainText('The server did not answer');
    await expect(heading).toBeVisible();
    await everyWay(page, 'deploy-error', snap, () => expect(deployError).toBeVisible());
    failing = false;
    await deployError.getByRole('button', { name: 'Try again' }).click();
    await expect(deploy.getByTestId('deploy-checks')).toBeVisible();
    await revisionsError.getByRole('button', { name: 'Try again' }).click();
    await expect(revisions).toContainText('Not deployed yet');
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });
});

test('a viewer without grants gets empty states that fit: no create offer, and why nothing is listed', async ({ page, stack, snap }) => {
  test.setTimeout(300_000);
  await signIn(page, stack.bootstrapApiKey);
  const name = `a11y-viewer-${Date.now().toString(36)}`;
  const key = await page.evaluate(async (n) => {
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation($input: CreateUserInput!) { createUser(input: $input) { ... on CreateUserSuccess { apiKey } } }', variables: { input: { name: n } } }),
    });
    return ((await response.json()) as { data: { createUser: { apiKey: string } } }).data.createUser.apiKey;
  }, name);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(page, key);
  await expect(page.getByText('No namespaces yet that you may see.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'New namespace' })).toHaveCount(0);
  await everyWay(page, 'viewer-empty', snap, () => expect(page.getByText('No namespaces yet that you may see.')).toBeVisible());
  await page.goto('/audit');
  await expect(page.getByText('No events you may read.')).toBeVisible();
  await everyWay(page, 'viewer-audit-empty', snap, () => expect(page.getByText('No events you may read.')).toBeVisible());
});

test('a deep link survives signing in', async ({ page, stack }) => {
  await page.goto('/users?id=prn_00000000-0000-0000-0000-000000000000');
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await page.getByLabel('API key').fill(stack.bootstrapApiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/users\?id=prn_00000000-0000-0000-0000-000000000000$/);
  await expect(page.getByRole('heading', { name: /^API keys of / })).toBeVisible();
  // Never to another origin: a protocol-relative "next" lands on the default page.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.goto('/sign-in?next=//evil.example/x');
  await page.getByLabel('API key').fill(stack.bootstrapApiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/namespaces$/);
});
