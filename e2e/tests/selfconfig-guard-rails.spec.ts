import type { APIRequestContext, Page } from '@playwright/test';
import { accessibleEverywhere as accessible } from '../support/a11y';
import { createReadyNamespace, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { deployToActive, gqlInPage, gqlWithKey } from '../support/graphql';

// SelfConfig's guard rails in the console: an agent whose policy holds skills for an administrator
// (SG3) files a skill it wants, which waits in the approval inbox with its preview (SG2); it also
// patches its config with the kubelet simulator's crash hook (README, "SG1 health gate"), which
// applies, crashes the gateway, and is rolled back (SG1). The administrator approves the first in
// the inbox and reads both outcomes in the SelfConfig tab: Applied, and RolledBack with the
// kubelet's reason and the gateway's last words.

const REQUEST_SELF_CONFIG = `mutation($input: RequestSelfConfigInput!) {
  requestSelfConfig(input: $input) { __typename ... on RequestSelfConfigSuccess { request { id name } } ... on Error { code message } }
}`;
const CRASH = 'Invalid config at /etc/openclaw/openclaw.json: agents.e2e: unknown key';

async function phaseOf(page: Page, agentId: string, id: string): Promise<string | undefined> {
  const data = await gqlInPage<{ selfConfigRequests: { edges: { node: { id: string; phase: string } }[] } }>(
    page,
    'query($agentId: ID) { selfConfigRequests(agentId: $agentId, first: 50) { edges { node { id phase } } } }',
    { agentId },
  );
  return data.selfConfigRequests.edges.map((e) => e.node).find((n) => n.id === id)?.phase;
}

async function untilPhase(page: Page, agentId: string, id: string, phases: RegExp): Promise<void> {
  await expect.poll(() => phaseOf(page, agentId, id), { timeout: 150_000, intervals: [500, 1000, 2000] }).toMatch(phases);
}

test('SG1 SG2 SG3 SG4 an administrator approves a request in the inbox, seeing its preview, and sees another roll back with the kubelet’s reason, then the agent’s budget', async ({
  page,
  request,
  stack,
  snap,
}) => {
  test.setTimeout(420_000);
  const stamp = Date.now().toString(36);
  const namespaceName = `e2e-gr-${stamp}`;
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, namespaceName);

  let agentId = '';
  let agentKey = '';
  await test.step('an agent whose skills need approval, deployed to active, with a key of its own', async () => {
    const cfg = await gqlInPage<{ createConfiguration: { __typename: string; configuration?: { id: string } } }>(
      page,
      'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { __typename ... on CreateConfigurationSuccess { configuration { id } } } }',
      { input: { namespaceId, name: 'guarded', values: { model: 'openai/gpt-6-astra' } } },
    );
    expect(cfg.createConfiguration.__typename).toBe('CreateConfigurationSuccess');
    const created = await gqlInPage<{ createAgent: { __typename: string; agent?: { id: string; servicePrincipalId: string } } }>(
      page,
      'mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename ... on CreateAgentSuccess { agent { id servicePrincipalId } } } }',
      {
        input: {
          namespaceId,
          name: 'guarded',
          configurationId: cfg.createConfiguration.configuration!.id,
          selfConfigure: { enabled: true, allowedActions: ['skills', 'config'], approval: { default: 'none', skills: 'required' } },
        },
      },
    );
    expect(created.createAgent.__typename).toBe('CreateAgentSuccess');
    agentId = created.createAgent.agent!.id;
    await deployToActive(page, agentId);
    const issued = await gqlInPage<{ createApiKey: { __typename: string; apiKey?: string } }>(
      page,
      'mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { __typename ... on CreateApiKeySuccess { apiKey } } }',
      { input: { principalId: created.createAgent.agent!.servicePrincipalId } },
    );
    agentKey = issued.createApiKey.apiKey!;
  });

  const ask = async (req: APIRequestContext, input: Record<string, unknown>) => {
    const data = await gqlWithKey<{ requestSelfConfig: { __typename: string; request?: { id: string; name: string } } }>(req, agentKey, REQUEST_SELF_CONFIG, { input: { agentId, ...input } });
    expect(data.requestSelfConfig.__typename, JSON.stringify(data.requestSelfConfig)).toBe('RequestSelfConfigSuccess');
    return data.requestSelfConfig.request!;
  };

  let waiting = { id: '', name: '' };
  let crashing = { id: '', name: '' };
  await test.step('SG1 the agent files a skill (held for approval) and a config change that crashes its gateway (rolled back)', async () => {
    waiting = await ask(request, { addSkills: ['web-search'] });
    await untilPhase(page, agentId, waiting.id, /^AwaitingApproval$/);
    crashing = await ask(request, { configPatch: { 'x-kubelet-simulator': { exit: { code: 3, message: CRASH } } } });
    await untilPhase(page, agentId, crashing.id, /^(RolledBack|Applied|Failed|Denied)$/);
    expect(await phaseOf(page, agentId, crashing.id)).toBe('RolledBack');
  });

  await test.step('SG2 SG3 the inbox shows the waiting request with its preview; the administrator approves it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click();
    await expect(page).toHaveURL(/\/selfconfig\/approvals$/);
    await expect(page.getByRole('heading', { name: 'SelfConfig approvals', level: 1 })).toBeVisible();
    const card = page.locator(`li[data-request="${waiting.name}"]`);
    await expect(card).toBeVisible();
    await expect(card).toContainText('guarded');
    await expect(card.getByTestId('changes')).toHaveText('+ skill "web-search"');
    await expect(card).toContainText('add skills: web-search');
    await snap('approval-inbox');
    await accessible(page, 'selfconfig-approvals');
    await card.getByRole('button', { name: `Approve ${waiting.name}` }).click();
    await expect(page.getByTestId('toasts')).toContainText(`Approved ${waiting.name}`);
    await expect(page.locator(`li[data-request="${waiting.name}"]`)).toHaveCount(0);
    await untilPhase(page, agentId, waiting.id, /^(Applied|Failed|Denied|RolledBack)$/);
    expect(await phaseOf(page, agentId, waiting.id)).toBe('Applied');
  });

  await test.step('SG1 the SelfConfig tab shows the approved request Applied and the other RolledBack, with the reason and the gateway’s last words', async () => {
    await page.goto(`/selfconfig?namespace=${namespaceId}&agent=${agentId}`);
    const table = page.getByRole('table', { name: 'SelfConfig requests' });
    const row = (name: string) => table.locator(`tr[data-request="${name}"]`);
    await expect(row(waiting.name).getByTestId('phase')).toHaveText('Applied');
    await expect(row(waiting.name)).toContainText('approved by');
    await expect(row(waiting.name).getByTestId('changes')).toHaveText('+ skill "web-search"');
    await expect(row(crashing.name).getByTestId('phase')).toHaveText('RolledBack');
    await expect(row(crashing.name).getByTestId('reason')).toHaveText('CrashLoopBackOff');
    await expect(row(crashing.name)).toContainText(`last exited with code 3 (Error): ${CRASH}`);
    await expect(row(crashing.name)).toContainText('which is Ready');
    await row(crashing.name).getByRole('button', { name: new RegExp(`^Events \\(\\d+\\) of ${crashing.name}$`) }).click();
    const events = page.getByRole('table', { name: `Events of ${crashing.name}` });
    await expect(events.locator('tr[data-reason="SelfConfigRollingBack"]')).toHaveCount(1);
    await expect(events.locator('tr[data-reason="SelfConfigRolledBack"]')).toHaveCount(1);
    await snap('rolled-back');
    await accessible(page, 'selfconfig-rolled-back');
  });

  await test.step('SG4 the agent’s page shows its budget as the controller counts it: both requests, the one apply, the one rollback', async () => {
    await page.goto(`/agents?namespace=${namespaceId}&id=${agentId}`);
    const budget = page.getByTestId('selfconfig-budget');
    await expect(page.getByRole('heading', { name: 'Self-configure budget', level: 2 })).toBeVisible();
    await expect(budget).toContainText('Requests this hour2 of 30');
    await expect(budget).toContainText('Changes applied today1 of 50');
    await expect(budget).toContainText('Rollbacks before a pause1 of 3');
    await expect(budget).toContainText('the installation’s defaults');
    await expect(page.getByRole('button', { name: 'Resume self-configuration' })).toHaveCount(0);
    await accessible(page, 'agent-selfconfig-budget');
  });
});
