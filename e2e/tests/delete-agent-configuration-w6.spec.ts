import { randomUUID } from 'node:crypto';
import { axe } from '../support/a11y';
import { confirmByTyping, createReadyNamespace, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { deployToActive, gqlInPage, grantSecretOperator } from '../support/graphql';

// Deletes for agents and configurations, through the one confirmation pattern: a
// configuration an agent selects is refused naming the agent; a running agent is refused until it is
// stopped; a stopped one goes, then its configuration can go.

const CREATE_SECRET = `mutation($input: CreateSecretInput!) { createSecret(input: $input) { __typename ... on CreateSecretSuccess { secret { id } } ... on Error { code message } } }`;
const CREATE_CONFIGURATION = `mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { __typename ... on CreateConfigurationSuccess { configuration { id } } ... on Error { code message } } }`;
const CREATE_AGENT = `mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename ... on CreateAgentSuccess { agent { id servicePrincipalId } } ... on Error { code message } } }`;
const AGENT = `query($id: ID!) { agent(id: $id) { id desiredState activeRevision { state } } }`;
const AGENTS_IN = `query($ns: ID!) { namespace(id: $ns) { agents(first: 10) { totalCount } } }`;

test('W6 C1 an agent and its configuration are deleted from their pages: in-use and running refusals first, each named, then the deletes with a toast', async ({ page, stack, snap }) => {
  test.setTimeout(300_000);
  const stamp = Date.now().toString(36);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-del-${stamp}`);
  const s = await gqlInPage<{ createSecret: { secret: { id: string } } }>(page, CREATE_SECRET, { input: { namespaceId, name: 'del-token', value: `e2e-${randomUUID()}` } });
  const secretId = s.createSecret.secret.id;
  const c = await gqlInPage<{ createConfiguration: { configuration: { id: string } } }>(page, CREATE_CONFIGURATION, {
    input: { namespaceId, name: 'del-config', values: {}, secretBindings: [{ envName: 'DEL_TOKEN', source: { id: secretId } }] },
  });
  const configurationId = c.createConfiguration.configuration.id;
  const a = await gqlInPage<{ createAgent: { agent: { id: string; servicePrincipalId: string } } }>(page, CREATE_AGENT, { input: { namespaceId, name: 'del-agent', configurationId } });
  const agentId = a.createAgent.agent.id;
  await grantSecretOperator(page, a.createAgent.agent.servicePrincipalId, namespaceId, secretId);
  await deployToActive(page, agentId);

  await test.step('C1: the configuration an agent selects is refused, naming the agent, and stays', async () => {
    await page.goto(`/configurations?namespace=${namespaceId}&id=${configurationId}`);
    await expect(page.getByRole('heading', { name: 'Configuration del-config', level: 1 })).toBeVisible();
    await page.getByRole('button', { name: 'Delete del-config' }).click();
    await confirmByTyping(page, 'del-config', /^Delete configuration del-config$/);
    const refusal = page.getByRole('alertdialog').getByRole('alert');
    await expect(refusal).toContainText('Configuration in use');
    await expect(refusal.getByRole('list', { name: 'Consumers' })).toContainText('del-agent');
    await snap('delete-configuration-refused');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('alertdialog')).toBeHidden();
    await expect(page.getByTestId('generation')).toBeVisible();
  });

  await test.step('W6: a running agent is refused until stopped; then it goes', async () => {
    await page.goto(`/agents?namespace=${namespaceId}&id=${agentId}`);
    await expect(page.getByRole('heading', { name: /del-agent/, level: 1 })).toBeVisible();
    await page.getByRole('button', { name: 'Delete del-agent' }).click();
    await expect(page.getByRole('alertdialog')).toContainText('The agent is not stopped');
    await confirmByTyping(page, 'del-agent', /^Delete agent del-agent$/);
    const refusal = page.getByRole('alertdialog').getByRole('alert');
    await expect(refusal).toHaveAttribute('data-error-code', 'AGENT_NOT_STOPPED');
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Stop del-agent' }).click();
    await confirmByTyping(page, 'del-agent', 'Stop agent del-agent');
    await expect
      .poll(async () => (await gqlInPage<{ agent: { desiredState: string } }>(page, AGENT, { id: agentId })).agent.desiredState)
      .toBe('stopped');
    await page.reload();
    await page.getByRole('button', { name: 'Delete del-agent' }).click();
    await expect(page.getByRole('alertdialog')).not.toContainText('The agent is not stopped');
    await axe(page, 'the agent delete dialog');
    await confirmByTyping(page, 'del-agent', /^Delete agent del-agent$/);
    await expect(page.getByRole('status').filter({ hasText: 'Agent del-agent deleted.' })).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/agents\\?namespace=${namespaceId}$`));
    expect((await gqlInPage<{ agent: unknown }>(page, AGENT, { id: agentId })).agent).toBeNull();
    expect((await gqlInPage<{ namespace: { agents: { totalCount: number } } }>(page, AGENTS_IN, { ns: namespaceId })).namespace.agents.totalCount).toBe(0);
  });

  await test.step('C1: with no agent selecting it, the configuration goes', async () => {
    await page.goto(`/configurations?namespace=${namespaceId}&id=${configurationId}`);
    await page.getByRole('button', { name: 'Delete del-config' }).click();
    await confirmByTyping(page, 'del-config', /^Delete configuration del-config$/);
    await expect(page.getByRole('status').filter({ hasText: 'Configuration del-config deleted.' })).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/configurations\\?namespace=${namespaceId}$`));
    await expect(page.getByRole('row', { name: /del-config/ })).toHaveCount(0);
    await snap('deleted-configuration');
  });
});
