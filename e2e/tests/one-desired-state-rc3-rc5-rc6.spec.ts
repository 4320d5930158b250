import { expect as rawExpect, type Page } from '@playwright/test';
import { accessibleEverywhere, axe } from '../support/a11y';
import { confirmByTyping, createReadyNamespace, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { deployToActive, gqlInPage, gqlWithKey } from '../support/graphql';
import { deleteKubernetesNamespace, kubernetesNamespaceStatus, openClawInstance } from '../support/kube';

// Issue "One desired state", as an administrator sees it in the console.
//
// RC6: an agent's status is derived on every read, and its page shows what the instance reconciler
// last observed of the gateway (Ready, the reason, which revision and instance generation the ready
// Pods run), checked against the OpenClawInstance in the embedded cluster.
// RC3: the agent changes its own config through SelfConfig (as its own service principal, SC5);
// the administrator then sets the same key in the configuration. Before the click the deploy panel
// lists the takeover in the API's words; the deploy takes it (the instance holds the
// configuration's value), the revision records it, and the SelfConfig request says "overridden by
// revision 2" with the item.
// RC5: a Kubernetes namespace deleted outside the product shows LOST with its message, and its
// running agent degraded (RC6) with the reason in words; re-provision is offered only to a viewer
// who may administer the namespace, says before the click that the stored secret values are not
// restored, and brings the namespace back to READY.

const REQUEST_SELF_CONFIG = `mutation($input: RequestSelfConfigInput!) {
  requestSelfConfig(input: $input) {
    __typename
    ... on RequestSelfConfigSuccess { request { id name phase } }
    ... on Error { code message }
  }
}`;

/** The config key the agent sets itself and the configuration then sets too. */
const KEY = 'tools.exec.timeoutSec';

type Override = { revisionId: string; number: number; items: string[]; at: string };

async function selfConfigRequest(page: Page, agentId: string, id: string): Promise<{ phase: string; message: string | null; overriddenBy: Override[] } | undefined> {
  const data = await gqlInPage<{ selfConfigRequests: { edges: { node: { id: string; phase: string; message: string | null; overriddenBy: Override[] } }[] } }>(
    page,
    'query($agentId: ID) { selfConfigRequests(agentId: $agentId, first: 50) { edges { node { id phase message overriddenBy { revisionId number items at } } } } }',
    { agentId },
  );
  return data.selfConfigRequests.edges.map((e) => e.node).find((n) => n.id === id);
}

/** What the matrix row of an item reads, cell by cell (the dash is aria-hidden; "not owned" is its words). */
async function matrixRow(page: Page, item: string): Promise<string[]> {
  const matrix = page.getByRole('table', { name: /^Field ownership of .*: items by field manager$/ });
  await expect(matrix.locator(`tr[data-item="${item}"]`)).toBeVisible();
  return matrix.locator(`tr[data-item="${item}"] > td`).evaluateAll((tds) =>
    tds.map((td) => {
      const copy = td.cloneNode(true) as HTMLElement;
      copy.querySelectorAll('[aria-hidden="true"]').forEach((e) => e.remove());
      return (copy.textContent ?? '').trim();
    }),
  );
}

test('RC6 RC3 RC1 SC10 D6 one desired state: a running agent\'s runtime, what it set itself listed before the deploy that takes it, recorded on revision 2 and as "overridden by revision 2" on its SelfConfig request; axe passes', async ({
  page,
  request,
  stack,
  snap,
}) => {
  test.setTimeout(480_000);
  const stamp = Date.now().toString(36);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-rc-${stamp}`);

  let configurationId = '';
  let agentId = '';
  let servicePrincipalId = '';
  await test.step('a configuration that sets config.tools.profile, and an agent that may change its own config', async () => {
    const cfg = await gqlInPage<{ createConfiguration: { __typename: string; configuration?: { id: string } } }>(
      page,
      'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { __typename ... on CreateConfigurationSuccess { configuration { id } } ... on Error { code message } } }',
      { input: { namespaceId, name: 'one-state', values: { tools: { profile: 'coding' } } } },
    );
    rawExpect(cfg.createConfiguration.__typename, JSON.stringify(cfg.createConfiguration)).toBe('CreateConfigurationSuccess');
    configurationId = cfg.createConfiguration.configuration!.id;
    const created = await gqlInPage<{ createAgent: { __typename: string; agent?: { id: string; servicePrincipalId: string } } }>(
      page,
      'mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename ... on CreateAgentSuccess { agent { id servicePrincipalId } } ... on Error { code message } } }',
      { input: { namespaceId, name: 'tuner', configurationId, selfConfigure: { enabled: true, allowedActions: ['config'] } } },
    );
    rawExpect(created.createAgent.__typename, JSON.stringify(created.createAgent)).toBe('CreateAgentSuccess');
    agentId = created.createAgent.agent!.id;
    servicePrincipalId = created.createAgent.agent!.servicePrincipalId;
  });

  const runtime = page.getByTestId('agent-runtime');
  const status = runtime.getByTestId('agent-status');
  const deploy = page.getByTestId('deploy');
  const deployButton = deploy.getByRole('button', { name: /^Deploy( again)?$/ });
  const revision = (n: number) => page.getByTestId('revision').filter({ has: page.getByRole('heading', { name: new RegExp(`^Revision ${n}\\b`) }) });
  const where = { k8sNamespace: '', instanceName: '' };

  await test.step('RC6 before any deploy: status created, nothing observed yet, nothing for a deploy to take', async () => {
    await page.goto(`/agents?namespace=${namespaceId}&id=${agentId}`);
    await expect(page.getByRole('heading', { name: 'Agent tuner', level: 1 })).toBeVisible();
    await expect(status).toHaveAttribute('data-status', 'created');
    await expect(runtime).toContainText('Not observed yet');
    await expect(deploy.getByTestId('deploy-verdict')).toContainText('Every check passes');
    await expect(deploy.getByTestId('deploy-takeovers')).toHaveCount(0);
    await expect(deploy.getByTestId('deploy-takeovers-unknown')).toHaveCount(0);
  });

  let generation = 0;
  await test.step('RC6 W5 deploy from the agent page: running; Ready, GatewayReady, and the ready Pods run revision 1 at the instance generation Kubernetes reports', async () => {
    await deployButton.click();
    const progress = deploy.getByTestId('deploy-progress');
    await expect(progress).toHaveAttribute('data-state', 'ACTIVE', { timeout: 90_000 });
    await expect(progress).toContainText('Revision 1 active.');
    await expect(status).toHaveAttribute('data-status', 'running', { timeout: 60_000 });
    await expect(runtime.getByTestId('agent-status-meaning')).toContainText('Its gateway runs the active revision and is ready.');

    const ownership = await gqlInPage<{ agent: { fieldOwnership: { instanceName: string; k8sNamespace: string } | null } }>(
      page,
      'query($id: ID!) { agent(id: $id) { fieldOwnership { instanceName k8sNamespace } } }',
      { id: agentId },
    );
    rawExpect(ownership.agent.fieldOwnership).not.toBeNull();
    Object.assign(where, ownership.agent.fieldOwnership);
    const instance = await openClawInstance(stack, where.k8sNamespace, where.instanceName);
    generation = instance.metadata.generation;
    // What the cluster says the ready Pods carry, and what the page says.
    rawExpect(instance.status?.running).toMatchObject({ generation, revision: { number: 1 } });
    await expect(runtime.getByTestId('runtime-ready')).toHaveText('Ready');
    await expect(runtime.getByTestId('runtime-phase')).toHaveText('Running');
    await expect(runtime.getByTestId('runtime-reason')).toContainText('GatewayReady');
    await expect(runtime.getByTestId('runtime-running')).toHaveText(`revision 1, instance generation ${generation}`);
    await expect(runtime.locator('time')).toHaveAttribute('title', / UTC$/);
    await expect(revision(1).getByTestId('revision-instance-generation')).toHaveText(String(generation));
    await expect(page.getByTestId('ownership-matrix')).toBeVisible();
    // The agent's column is there before it owns anything: empty.
    rawExpect(await matrixRow(page, 'config.tools.profile')).toEqual(['Apply', 'not owned', 'no']);
    await snap('runtime-running');
    await accessibleEverywhere(page, 'agent-runtime-running');
  });

  let requestId = '';
  let requestName = '';
  await test.step(`SC10 RC1 the agent sets config.${KEY} itself: its gateway rolls to the instance's new generation, which the runtime shows`, async () => {
    const issued = await gqlInPage<{ createApiKey: { __typename: string; apiKey?: string } }>(
      page,
      'mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { __typename ... on CreateApiKeySuccess { apiKey } } }',
      { input: { principalId: servicePrincipalId } },
    );
    rawExpect(issued.createApiKey.__typename).toBe('CreateApiKeySuccess');
    const asked = await gqlWithKey<{ requestSelfConfig: { __typename: string; request?: { id: string; name: string } } }>(
      request,
      issued.createApiKey.apiKey!,
      REQUEST_SELF_CONFIG,
      { input: { agentId, configPatch: { tools: { exec: { timeoutSec: 120 } } } } },
    );
    rawExpect(asked.requestSelfConfig.__typename, JSON.stringify(asked.requestSelfConfig)).toBe('RequestSelfConfigSuccess');
    requestId = asked.requestSelfConfig.request!.id;
    requestName = asked.requestSelfConfig.request!.name;
    await expect
      .poll(
        async () => {
          const found = await selfConfigRequest(page, agentId, requestId);
          // A terminal phase other than Applied fails with the controller's message.
          return found && /^(Failed|Denied|RolledBack)$/.test(found.phase) ? `${found.phase}: ${found.message}` : found?.phase;
        },
        { timeout: 60_000, intervals: [500, 1000, 2000] },
      )
      .toBe('Applied');

    const instance = await openClawInstance(stack, where.k8sNamespace, where.instanceName);
    rawExpect(instance.metadata.generation).toBeGreaterThan(generation);
    rawExpect(instance.spec.config?.raw).toEqual({ tools: { profile: 'coding', exec: { timeoutSec: 120 } } });
    generation = instance.metadata.generation;
    // Polled, not reloaded: the page follows the rollout by itself.
    await expect(runtime.getByTestId('runtime-running')).toHaveText(`revision 1, instance generation ${generation}`, { timeout: 60_000 });
    await expect(status).toHaveAttribute('data-status', 'running', { timeout: 60_000 });

    // Config keys one by one in the ownership matrix: the agent holds its own key alone.
    await page.reload();
    await expect(page.getByTestId('ownership-matrix').getByRole('rowheader', { name: `config.${KEY}` })).toBeVisible();
    rawExpect(await matrixRow(page, `config.${KEY}`)).toEqual(['not owned', 'Apply', 'yes']);
    rawExpect(await matrixRow(page, 'config.tools.profile')).toEqual(['Apply', 'not owned', 'no']);
    await expect(page.getByTestId('ownership-matrix').locator('tr[data-item="config.raw"]')).toHaveCount(0);
  });

  let description = '';
  await test.step('RC3 D6 the configuration now sets the same key: before the click, the deploy panel lists the takeover in the API\'s words', async () => {
    const updated = await gqlInPage<{ updateConfiguration: { __typename: string; configuration?: { generation: number } } }>(
      page,
      'mutation($input: UpdateConfigurationInput!) { updateConfiguration(input: $input) { __typename ... on UpdateConfigurationSuccess { configuration { generation } } ... on Error { code message } } }',
      { input: { id: configurationId, expectedGeneration: 1, values: { tools: { profile: 'coding', exec: { timeoutSec: 30 } } } } },
    );
    rawExpect(updated.updateConfiguration.__typename, JSON.stringify(updated.updateConfiguration)).toBe('UpdateConfigurationSuccess');

    const explained = await gqlInPage<{ explainDeploy: { takeovers: { kind: string; name: string; action: string; description: string }[] | null } }>(
      page,
      'query($agentId: ID!) { explainDeploy(agentId: $agentId) { ... on DeployExplanation { takeovers { kind name action description } } } }',
      { agentId },
    );
    rawExpect(explained.explainDeploy.takeovers).toHaveLength(1);
    const [takeover] = explained.explainDeploy.takeovers!;
    rawExpect(takeover).toMatchObject({ kind: 'config', name: KEY, action: 'replace' });
    description = takeover!.description;
    rawExpect(description).toMatch(new RegExp(`^config\\.${KEY.replace(/\./g, '\\.')}, set by the agent on .+, will be replaced$`));

    await page.reload();
    const takeovers = deploy.getByTestId('deploy-takeovers');
    await expect(takeovers).toContainText('This deploy will replace what the agent set itself:');
    await expect(takeovers.getByRole('listitem')).toHaveCount(1);
    await expect(takeovers.locator(`[data-takeover="config:${KEY}"]`)).toHaveText(description);
    await expect(deployButton).toBeEnabled();
    // Before the click, to a screen reader too: the button's description names what it will take.
    await expect(deployButton).toHaveAccessibleDescription(/This deploy will replace what the agent set itself/);
    await takeovers.scrollIntoViewIfNeeded();
    await snap('deploy-takeovers');
    await accessibleEverywhere(page, 'deploy-takeovers');
  });

  await test.step('RC3 deploy: the instance holds the configuration\'s value, revision 2 lists what it took from the agent, nothing is left to take', async () => {
    await deployButton.click();
    const progress = deploy.getByTestId('deploy-progress');
    await expect(progress).toContainText('Revision 2', { timeout: 30_000 });
    await expect(progress).toHaveAttribute('data-state', 'ACTIVE', { timeout: 90_000 });

    const instance = await openClawInstance(stack, where.k8sNamespace, where.instanceName);
    rawExpect(instance.spec.config?.raw).toEqual({ tools: { profile: 'coding', exec: { timeoutSec: 30 } } });
    generation = instance.metadata.generation;

    const took = revision(2).getByTestId('revision-takeovers');
    await expect(took).toContainText('Took from the agent:');
    const item = took.locator(`[data-takeover="config:${KEY}"]`);
    await expect(item).toContainText(`config.${KEY}, set by the agent`);
    await expect(item).toContainText('replaced');
    await expect(item.getByRole('link', { name: 'its SelfConfig request' })).toHaveAttribute('href', new RegExp(`agent=${agentId}`));
    await expect(revision(1).getByTestId('revision-takeovers')).toHaveCount(0);
    await expect(revision(2).getByTestId('revision-instance-generation')).toHaveText(String(generation));

    await expect(status).toHaveAttribute('data-status', 'running', { timeout: 60_000 });
    await expect(runtime.getByTestId('runtime-running')).toHaveText(`revision 2, instance generation ${generation}`, { timeout: 60_000 });
    await expect(deploy.getByTestId('deploy-takeovers')).toHaveCount(0);

    await page.reload();
    rawExpect(await matrixRow(page, `config.${KEY}`)).toEqual(['Apply', 'not owned', 'no']);
    await revision(2).scrollIntoViewIfNeeded();
    await snap('revision-took');
    await accessibleEverywhere(page, 'revision-takeovers');
  });

  await test.step('RC3 the SelfConfig request that set the key says "Overridden by revision 2", with the item taken', async () => {
    const recorded = await selfConfigRequest(page, agentId, requestId);
    rawExpect(recorded?.overriddenBy).toHaveLength(1);
    const override = recorded!.overriddenBy[0]!;
    rawExpect(override.number).toBe(2);

    await page.goto(`/selfconfig?namespace=${namespaceId}&agent=${agentId}`);
    const row = page.getByRole('table', { name: 'SelfConfig requests' }).locator(`tr[data-request="${requestName}"]`);
    await expect(row.getByTestId('phase')).toHaveText('Applied');
    await expect(row).toContainText(`set config: config.${KEY}`);
    const shown = row.getByTestId('overridden-by');
    await expect(shown).toHaveCount(1);
    await expect(shown).toHaveAttribute('data-revision', '2');
    await expect(shown).toContainText('Overridden by revision 2');
    await expect(shown.getByRole('listitem')).toHaveText(override.items);
    rawExpect(override.items.join('\n')).toContain(`config.${KEY}`);
    await expect(shown.getByRole('link', { name: 'revision 2' })).toHaveAttribute('href', new RegExp(`id=${agentId}`));
    await snap('request-overridden');
    await accessibleEverywhere(page, 'selfconfig-overridden');
  });
});

test('RC5 RC6 a Kubernetes namespace deleted outside the product shows LOST with its message, its running agent degraded with the reason; "Re-provision" is offered to who may administer it, says the stored values are not restored, and makes it READY again; axe passes', async ({
  page,
  browser,
  stack,
  snap,
}) => {
  test.setTimeout(360_000);
  const stamp = Date.now().toString(36);
  const name = `e2e-lost-${stamp}`;
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, name);
  // K1: the Kubernetes namespace is named from the Namespace's id.
  const k8sNamespace = `occ-${namespaceId.replace(/^ns_/, '')}`;
  rawExpect((await kubernetesNamespaceStatus(stack, k8sNamespace)).status).toBe(200);

  let agentId = '';
  await test.step('an agent running in it', async () => {
    const cfg = await gqlInPage<{ createConfiguration: { __typename: string; configuration?: { id: string } } }>(
      page,
      'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { __typename ... on CreateConfigurationSuccess { configuration { id } } ... on Error { code message } } }',
      { input: { namespaceId, name: 'plain', values: {} } },
    );
    rawExpect(cfg.createConfiguration.__typename, JSON.stringify(cfg.createConfiguration)).toBe('CreateConfigurationSuccess');
    const created = await gqlInPage<{ createAgent: { __typename: string; agent?: { id: string } } }>(
      page,
      'mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename ... on CreateAgentSuccess { agent { id } } ... on Error { code message } } }',
      { input: { namespaceId, name: 'stranded', configurationId: cfg.createConfiguration.configuration!.id } },
    );
    rawExpect(created.createAgent.__typename, JSON.stringify(created.createAgent)).toBe('CreateAgentSuccess');
    agentId = created.createAgent.agent!.id;
    await deployToActive(page, agentId);
  });

  let viewerKey = '';
  await test.step('a user who may only read the namespace (namespace-viewer)', async () => {
    const user = await gqlInPage<{ createUser: { __typename: string; apiKey?: string; principal?: { id: string } } }>(
      page,
      'mutation($input: CreateUserInput!) { createUser(input: $input) { __typename ... on CreateUserSuccess { apiKey principal { id } } } }',
      { input: { name: `viewer-${stamp}` } },
    );
    rawExpect(user.createUser.__typename).toBe('CreateUserSuccess');
    viewerKey = user.createUser.apiKey!;
    const granted = await gqlInPage<{ grantAccess: { __typename: string } }>(
      page,
      'mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename ... on Error { code message } } }',
      { input: { subjectId: user.createUser.principal!.id, roleId: 'rol_namespace-viewer', scope: { kind: 'NAMESPACE', namespaceId } } },
    );
    rawExpect(granted.grantAccess.__typename, JSON.stringify(granted.grantAccess)).toBe('GrantAccessSuccess');
  });

  let statusMessage = '';
  await test.step('RC5 its Kubernetes namespace is deleted out of band: the list shows LOST with the API\'s message', async () => {
    await deleteKubernetesNamespace(stack, k8sNamespace);
    await expect
      .poll(
        async () =>
          (await gqlInPage<{ namespace: { status: string } | null }>(page, 'query($id: ID!) { namespace(id: $id) { status } }', { id: namespaceId })).namespace
            ?.status,
        { timeout: 60_000, intervals: [500, 1000, 2000] },
      )
      .toBe('LOST');
    statusMessage =
      (await gqlInPage<{ namespace: { statusMessage: string | null } }>(page, 'query($id: ID!) { namespace(id: $id) { statusMessage } }', { id: namespaceId }))
        .namespace.statusMessage ?? '';
    rawExpect(statusMessage).toContain(k8sNamespace);

    await page.goto('/namespaces');
    await page.getByLabel('Search namespaces by name').fill(name);
    const row = page.getByRole('row', { name: new RegExp(name) });
    await expect(row.getByTestId('namespace-status')).toHaveText('LOST');
    await expect(row.getByTestId('namespace-status')).toHaveClass(/badge-lost/);
    await expect(row.getByTestId('namespace-status-message')).toHaveText(statusMessage);
    await expect(row.getByRole('button', { name: `Re-provision ${name}` })).toBeVisible();
    await snap('namespace-lost');
    await accessibleEverywhere(page, 'namespace-lost');

    // Every page of the namespace says so under its tabs; its agent is degraded (not failed), and says why.
    await page.goto(`/agents?namespace=${namespaceId}&id=${agentId}`);
    await expect(page.getByTestId('namespace-lost')).toContainText('Kubernetes namespace lost.');
    await expect(page.getByRole('heading', { level: 1 }).getByTestId('namespace-status')).toHaveText('LOST');
    const runtime = page.getByTestId('agent-runtime');
    await expect(runtime.getByTestId('agent-status')).toHaveAttribute('data-status', 'degraded');
    await expect(runtime.getByTestId('agent-status')).toHaveClass(/badge-degraded/);
    await expect(runtime.getByTestId('agent-status-meaning')).toContainText('its gateway is not ready, is gone, or runs something else');
    await expect(runtime.getByTestId('runtime-ready')).toHaveText('Not ready');
    await expect(runtime.getByTestId('runtime-phase')).toHaveText('Missing');
    await expect(runtime.getByTestId('runtime-reason')).toContainText('The Kubernetes namespace was deleted outside the product');
    await expect(runtime.getByTestId('runtime-reason')).toContainText('NamespaceLost');
    await expect(runtime.getByTestId('runtime-message')).toContainText(k8sNamespace);
    await expect(runtime.getByTestId('runtime-running')).toHaveText('no ready Pod');
    await expect(runtime.getByTestId('runtime-generation')).toHaveText('none observed (the active revision 1 applied generation 1)');
    await runtime.scrollIntoViewIfNeeded();
    await snap('agent-degraded');
    await accessibleEverywhere(page, 'agent-degraded-namespace-lost');
  });

  await test.step('RC5 a viewer who may not administer the namespace sees LOST but no "Re-provision"; the API refuses it the same', async () => {
    const viewer = await browser.newPage({ baseURL: stack.consoleUrl });
    try {
      await signIn(viewer, viewerKey);
      const row = viewer.getByRole('row', { name: new RegExp(name) });
      await expect(row.getByTestId('namespace-status')).toHaveText('LOST');
      await expect(row.getByTestId('namespace-status-message')).toHaveText(statusMessage);
      await expect(row.getByRole('button', { name: /^Re-provision/ })).toHaveCount(0);
      const refused = await gqlInPage<{ reprovisionNamespace: { __typename: string } }>(
        viewer,
        'mutation($input: ReprovisionNamespaceInput!) { reprovisionNamespace(input: $input) { __typename } }',
        { input: { id: namespaceId } },
      );
      rawExpect(refused.reprovisionNamespace.__typename).toBe('ForbiddenError');
    } finally {
      await viewer.close();
    }
  });

  await test.step('RC5 "Re-provision": the confirmation says plainly that the stored secret values are not restored; typed, it answers the API\'s note and the namespace is READY again', async () => {
    await page.goto('/namespaces');
    await page.getByLabel('Search namespaces by name').fill(name);
    const row = page.getByRole('row', { name: new RegExp(name) });
    await row.getByRole('button', { name: `Re-provision ${name}` }).click();
    const dialog = page.getByRole('alertdialog');
    await expect(dialog).toContainText(`Re-provision namespace ${name}?`);
    await expect(dialog).toContainText('The secret values stored in the lost Kubernetes namespace are not restored.');
    await snap('reprovision-dialog');
    await axe(page, 'reprovision dialog');

    const answered = page.waitForResponse((r) => r.url().endsWith('/graphql') && (r.request().postData() ?? '').includes('mutation ReprovisionNamespace'));
    await confirmByTyping(page, name, `Re-provision namespace ${name}`);
    const body = (await (await answered).json()) as { data: { reprovisionNamespace: { __typename: string; note?: string } } };
    rawExpect(body.data.reprovisionNamespace.__typename, JSON.stringify(body.data)).toBe('ReprovisionNamespaceSuccess');
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('toasts')).toContainText(body.data.reprovisionNamespace.note!);
    await expect(row.getByTestId('namespace-status')).toHaveText('READY', { timeout: 60_000 });
    await expect(row.getByRole('button', { name: /^Re-provision/ })).toHaveCount(0);
    rawExpect((await kubernetesNamespaceStatus(stack, k8sNamespace)).status).toBe(200);
    await snap('namespace-reprovisioned');
  });
});
