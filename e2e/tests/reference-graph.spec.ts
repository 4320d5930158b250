import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { axe, noSidewaysScroll } from '../support/a11y';
import { createReadyNamespace, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { deployToActive, gqlInPage, grantSecretOperator } from '../support/graphql';

// Journey (c): an auditor (a user granted read only) opens a secret's reference graph
// and follows it to a gateway. Set up through GraphQL: a secret bound by a configuration used by
// an agent, deployed to active on the embedded stack, then the secret rotated so the running
// revision's delivery is stale.

const here = path.dirname(fileURLToPath(import.meta.url));
const docsScreenshot = path.resolve(here, '../../docs/screenshots/reference-graph.png');
const screensDir = path.resolve(here, '../test-results/screens');

const CREATE_SECRET = `mutation($input: CreateSecretInput!) { createSecret(input: $input) { __typename ... on CreateSecretSuccess { secret { id } } ... on Error { code message } } }`;
const CREATE_CONFIGURATION = `mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { __typename ... on CreateConfigurationSuccess { configuration { id } } ... on Error { code message } } }`;
const CREATE_AGENT = `mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename ... on CreateAgentSuccess { agent { id servicePrincipalId } } ... on Error { code message } } }`;
const AGENT = `query($id: ID!) { agent(id: $id) { status activeRevision { id state gateway { k8sNamespace name } } } }`;
const GRANT = `mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename ... on Error { code message } } }`;
const UPDATE_SECRET = `mutation($input: UpdateSecretInput!) { updateSecret(input: $input) { __typename ... on UpdateSecretSuccess { delivery { staleRevisionIds } } ... on Error { code message } } }`;
const CREATE_USER = `mutation($input: CreateUserInput!) { createUser(input: $input) { __typename ... on CreateUserSuccess { apiKey principal { id } } } }`;

type Agent = { status: string; activeRevision: { id: string; state: string; gateway: { k8sNamespace: string; name: string } | null } | null };

test('W7 journey (c): an auditor with read only opens a secret’s reference graph, sees the stale delivery, and follows it to the agent’s gateway', async ({ page, stack, snap }) => {
  test.setTimeout(300_000);
  const stamp = Date.now().toString(36);
  const namespaceName = `e2e-refs-${stamp}`;
  const secretName = 'channel-token';
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, namespaceName);

  let secretId = '';
  let agentId = '';
  let revisionId = '';
  let gateway = { k8sNamespace: '', name: '' };
  let auditorKey = '';
  await test.step('set up: a secret bound by a configuration, an agent using it, deployed to active, then the secret rotated', async () => {
    const s = await gqlInPage<{ createSecret: { __typename: string; secret: { id: string } } }>(page, CREATE_SECRET, {
      input: { namespaceId, name: secretName, value: `e2e-${randomUUID()}` },
    });
    expect(s.createSecret.__typename).toBe('CreateSecretSuccess');
    secretId = s.createSecret.secret.id;
    const c = await gqlInPage<{ createConfiguration: { __typename: string; configuration: { id: string } } }>(page, CREATE_CONFIGURATION, {
      input: { namespaceId, name: 'channel-gateway', values: {}, secretBindings: [{ envName: 'CHANNEL_TOKEN', source: { id: secretId } }] },
    });
    expect(c.createConfiguration.__typename).toBe('CreateConfigurationSuccess');
    const a = await gqlInPage<{ createAgent: { __typename: string; agent: { id: string; servicePrincipalId: string } } }>(page, CREATE_AGENT, {
      input: { namespaceId, name: 'traced-agent', configurationId: c.createConfiguration.configuration.id },
    });
    expect(a.createAgent.__typename).toBe('CreateAgentSuccess');
    agentId = a.createAgent.agent.id;
    await grantSecretOperator(page, a.createAgent.agent.servicePrincipalId, namespaceId, secretId);
    revisionId = await deployToActive(page, agentId);
    const running = (await gqlInPage<{ agent: Agent }>(page, AGENT, { id: agentId })).agent;
    expect(running.status).toBe('running');
    expect(running.activeRevision!.id).toBe(revisionId);
    gateway = running.activeRevision!.gateway!;
    expect(gateway.name).toMatch(/^gateway-/);
    const u = await gqlInPage<{ updateSecret: { __typename: string; delivery: { staleRevisionIds: string[] } } }>(page, UPDATE_SECRET, {
      input: { id: secretId, value: `e2e-rotated-${randomUUID()}` },
    });
    expect(u.updateSecret.delivery.staleRevisionIds).toEqual([revisionId]);
    // The auditor: read on everything in this namespace, nothing else.
    const user = await gqlInPage<{ createUser: { apiKey: string; principal: { id: string } } }>(page, CREATE_USER, { input: { name: `auditor-${stamp}` } });
    auditorKey = user.createUser.apiKey;
    const viewer = await gqlInPage<{ grantAccess: { __typename: string } }>(page, GRANT, {
      input: { subjectId: user.createUser.principal.id, roleId: 'rol_namespace-viewer', scope: { kind: 'NAMESPACE', namespaceId } },
    });
    expect(viewer.grantAccess.__typename).toBe('GrantAccessSuccess');
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  await test.step('the auditor opens the secret’s references from its row', async () => {
    await signIn(page, auditorKey);
    await page.goto(`/secrets?namespace=${namespaceId}`);
    await page.getByRole('link', { name: `References of ${secretName}` }).click();
    await expect(page).toHaveURL(new RegExp(`/secrets\\?namespace=${namespaceId}&id=${secretId}$`));
    await expect(page.getByRole('heading', { name: `References of ${secretName}`, level: 1 })).toBeVisible();
    const tree = page.getByRole('list', { name: `References of ${secretName}` });
    await expect(tree).toBeVisible();
    await expect(tree.getByRole('link', { name: 'channel-gateway' })).toBeVisible();
    await expect(tree).toContainText('CHANNEL_TOKEN');
    await expect(tree.getByRole('link', { name: 'traced-agent' })).toBeVisible();
    await expect(page.getByTestId('reference-summary')).toHaveText('1 configuration, 1 agent, 1 running revision, 1 of them stale.');
  });

  await test.step('the running revision is marked stale in words, and names its gateway Deployment', async () => {
    const revision = page.getByTestId('reference-revision');
    await expect(revision).toHaveCount(1);
    await expect(revision).toContainText('Revision 1');
    await expect(revision).toContainText('holds version 1');
    await expect(revision.getByText('Stale: older than the current version')).toBeVisible();
    await expect(revision.getByRole('link', { name: `${gateway.k8sNamespace}/${gateway.name}` })).toBeVisible();
    await snap('reference-graph');
    mkdirSync(path.dirname(docsScreenshot), { recursive: true });
    const saved = readdirSync(screensDir).filter((f) => f.endsWith('-reference-graph.png')).sort().at(-1);
    expect(saved).toBeTruthy();
    copyFileSync(path.join(screensDir, saved!), docsScreenshot);
  });

  await test.step('the graph with its stale mark and gateway: axe-clean in light and dark, no sideways scroll at 390 px, links in reading order', async () => {
    await axe(page, 'reference graph (light)');
    await page.emulateMedia({ colorScheme: 'dark' });
    await axe(page, 'reference graph (dark)');
    await snap('reference-graph-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    const size = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByTestId('reference-revision')).toBeVisible();
    await noSidewaysScroll(page, 'reference graph (390 px)');
    await axe(page, 'reference graph (390 px)');
    await snap('reference-graph-390');
    await page.setViewportSize(size);
    // Keyboard: from the tree's first link, Tab walks configuration → agent → revision → gateway.
    const tree = page.getByRole('list', { name: `References of ${secretName}` });
    await tree.getByRole('link', { name: 'channel-gateway' }).focus();
    for (const next of ['traced-agent', 'Revision 1', `${gateway.k8sNamespace}/${gateway.name}`]) {
      await page.keyboard.press('Tab');
      await expect(tree.getByRole('link', { name: next })).toBeFocused();
    }
  });

  await test.step('W7 the namespace’s graph, focused on the secret: its blast radius lit, the stale delivery red, keyboard-navigable, a list beside it, exported as SVG', async () => {
    await page.getByRole('link', { name: 'See it in the namespace’s reference graph' }).click();
    await expect(page).toHaveURL(new RegExp(`/references\\?namespace=${namespaceId}&focus=${secretId}$`));
    await expect(page.getByRole('heading', { name: `References in ${namespaceName}`, level: 1 })).toBeVisible();
    const graph = page.getByTestId('reference-graph');
    const node = (id: string) => graph.locator(`[data-node="${id}"]`);
    await expect(node(secretId)).toBeVisible();
    // Laid out in its worker (its script's CSP lets it load its chunks), not on the page's thread.
    expect(await page.evaluate(() => performance.getEntriesByName('occ-graph-layout').length)).toBe(1);
    // The secret is selected: it and what it reaches are lit, with the reach in words.
    await expect(node(secretId)).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByTestId('graph-selection')).toContainText(`${secretName} reaches 4 nodes (1 configuration, 1 agent, 1 revision, 1 gateway) and is fed by 0 nodes.`);
    for (const id of [secretId, agentId, revisionId, `gateway:${gateway.name}`]) await expect(node(id)).toHaveAttribute('data-lit', 'true');
    await expect(node(secretId)).toHaveAttribute('data-health', 'STALE');
    await expect(node(revisionId)).toHaveAttribute('data-health', 'STALE');
    await expect(graph.locator(`[data-edge="${secretId}>${revisionId}"]`)).toHaveAttribute('stroke', '#b3261e');
    // The keyboard: the selected node holds the tab stop; right goes to what it feeds.
    await node(secretId).focus();
    await page.keyboard.press('ArrowRight');
    await expect(graph.getByRole('button', { name: 'channel-gateway ok · generation 1, configuration' })).toBeFocused();
    await page.keyboard.press('ArrowRight');
    await expect(node(agentId)).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('graph-selection')).toContainText('traced-agent reaches 2 nodes (1 revision, 1 gateway) and is fed by 2 nodes.');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('graph-selection')).toHaveCount(0);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await expect(node(secretId)).toBeFocused();
    // The list beside it names the same nodes, with their links.
    const list = page.getByRole('region', { name: 'The graph as a list' });
    await expect(list.getByRole('link', { name: secretName })).toHaveAttribute('href', `/secrets?namespace=${namespaceId}&id=${secretId}`);
    await expect(list.locator(`[data-list-node="${revisionId}"]`)).toContainText('stale');
    await axe(page, 'namespace reference graph');
    // Dark mode: the boxes take the dark surface and their words the theme's colours, each at 4.5:1
    // or more on its box (axe does not measure text inside SVG, so this does, per node).
    await page.emulateMedia({ colorScheme: 'dark' });
    await axe(page, 'namespace reference graph (dark)');
    const darkContrasts = await graphTextContrasts(page);
    expect(darkContrasts.length).toBeGreaterThanOrEqual(10);
    for (const c of darkContrasts) expect(c.ratio, `${c.node} ${c.part}: ${c.fg} on ${c.bg}`).toBeGreaterThanOrEqual(4.5);
    expect(darkContrasts.every((c) => c.bg !== 'rgb(255, 255, 255)')).toBe(true);
    await snap('namespace-graph-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    for (const c of await graphTextContrasts(page)) expect(c.ratio, `light ${c.node} ${c.part}: ${c.fg} on ${c.bg}`).toBeGreaterThanOrEqual(4.5);
    const size = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(node(secretId)).toBeAttached();
    await noSidewaysScroll(page, 'namespace reference graph (390 px)');
    await page.setViewportSize(size);
    await page.getByRole('button', { name: 'Fit' }).click();
    await snap('namespace-graph');
    copyFileSync(path.join(screensDir, readdirSync(screensDir).filter((f) => f.endsWith('-namespace-graph.png')).sort().at(-1)!), path.resolve(here, '../../docs/screenshots/namespace-graph.png'));
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export SVG' }).click()]);
    expect(download.suggestedFilename()).toBe(`references-${namespaceName}.svg`);
    const svg = readFileSync((await download.path())!, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    for (const text of [secretName, 'channel-gateway', 'traced-agent', gateway.name]) expect(svg).toContain(text);
    await page.goBack();
  });

  await test.step('following the links: the configuration, then the agent, whose page shows the gateway', async () => {
    const tree = page.getByRole('list', { name: `References of ${secretName}` });
    await tree.getByRole('link', { name: 'channel-gateway' }).click();
    await expect(page.getByRole('heading', { name: 'Configuration channel-gateway', level: 1 })).toBeVisible();
    await page.goBack();
    await tree.getByRole('link', { name: 'traced-agent' }).click();
    await expect(page).toHaveURL(new RegExp(`/agents\\?namespace=${namespaceId}&id=${agentId}$`));
    await expect(page.getByRole('heading', { name: 'Agent traced-agent', level: 1 })).toBeVisible();
    const section = page.getByTestId('agent-gateway');
    await expect(section).toContainText(gateway.name);
    await expect(section).toContainText(gateway.k8sNamespace);
    await expect(section).toContainText('revision 1 (active)');
    await page.goBack();
    await page.getByRole('link', { name: `${gateway.k8sNamespace}/${gateway.name}` }).click();
    await expect(page).toHaveURL(new RegExp(`&id=${agentId}#gateway$`));
    await expect(page.getByRole('heading', { name: 'Gateway', level: 2 })).toBeVisible();
    await snap('agent-gateway');
  });
});

/** Each drawn node's name and health words against its box's fill, as computed (CSS over attributes). */
async function graphTextContrasts(page: Page): Promise<{ node: string; part: string; fg: string; bg: string; ratio: number }[]> {
  return page.evaluate(() => {
    const rgb = (c: string) => (c.match(/\d+(\.\d+)?/g) ?? ['0', '0', '0']).slice(0, 3).map(Number);
    const lum = (c: string) => {
      const [r, g, b] = rgb(c).map((v) => {
        const x = v / 255;
        return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const ratio = (a: string, b: string) => {
      const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
      return (hi! + 0.05) / (lo! + 0.05);
    };
    return Array.from(document.querySelectorAll('[data-testid="reference-graph"] [data-node]')).flatMap((node) => {
      const bg = getComputedStyle(node.querySelector('.graph-box')!).fill;
      return (['graph-name', 'graph-health'] as const).map((part) => {
        const fg = getComputedStyle(node.querySelector(`.${part}`)!).fill;
        return { node: node.getAttribute('data-node') ?? '', part, fg, bg, ratio: ratio(fg, bg) };
      });
    });
  });
}
