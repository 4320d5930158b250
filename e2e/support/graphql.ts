import { randomUUID } from 'node:crypto';
import { expect, type APIRequestContext, type Page } from '@playwright/test';

/** A GraphQL call with the page's session cookie (same origin), for setting up what a test is not about. */
export async function gqlInPage<T = Record<string, unknown>>(page: Page, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const body = await page.evaluate(
    async ([q, v]) => {
      const response = await fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: q, variables: v }) });
      return (await response.json()) as { data?: unknown; errors?: unknown };
    },
    [query, variables] as const,
  );
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data as T;
}

/** A GraphQL call with a bearer API key, outside the browser: how an agent's own code would call. */
export async function gqlWithKey<T>(request: APIRequestContext, apiKey: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const response = await request.post('/graphql', {
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    data: { query, variables },
  });
  const body = (await response.json()) as { data?: T; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data as T;
}

/** Creates a user (the grant's subject) and returns its id. */
export async function createUserInPage(page: Page, name: string): Promise<string> {
  const data = await gqlInPage<{ createUser: { __typename: string; principal?: { id: string } } }>(
    page,
    'mutation($input: CreateUserInput!) { createUser(input: $input) { __typename ... on CreateUserSuccess { principal { id } } } }',
    { input: { name } },
  );
  expect(data.createUser.__typename).toBe('CreateUserSuccess');
  return data.createUser.principal!.id;
}

/** Creates a user holding `roleId` on one namespace (namespace-admin, namespace-viewer …) and answers its API key. */
export async function createUserWithNamespaceRole(page: Page, name: string, roleId: string, namespaceId: string): Promise<string> {
  const user = await gqlInPage<{ createUser: { __typename: string; apiKey?: string; principal?: { id: string } } }>(
    page,
    'mutation($input: CreateUserInput!) { createUser(input: $input) { __typename ... on CreateUserSuccess { apiKey principal { id } } } }',
    { input: { name } },
  );
  expect(user.createUser.__typename).toBe('CreateUserSuccess');
  const granted = await gqlInPage<{ grantAccess: { __typename: string } }>(
    page,
    'mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename ... on Error { code message } } }',
    { input: { subjectId: user.createUser.principal!.id, roleId, scope: { kind: 'NAMESPACE', namespaceId } } },
  );
  expect(granted.grantAccess.__typename, JSON.stringify(granted.grantAccess)).toBe('GrantAccessSuccess');
  return user.createUser.apiKey!;
}

/** Grants the Agent's service principal `secret-operator` on exactly one secret (what D2 needs to deploy). */
export async function grantSecretOperator(page: Page, subjectId: string, namespaceId: string, secretId: string): Promise<void> {
  const data = await gqlInPage<{ grantAccess: { __typename: string } }>(
    page,
    'mutation($input: GrantAccessInput!) { grantAccess(input: $input) { __typename ... on Error { code message } } }',
    { input: { subjectId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', namespaceId, resourceKind: 'secret', resourceId: secretId } } },
  );
  expect(data.grantAccess.__typename, JSON.stringify(data.grantAccess)).toBe('GrantAccessSuccess');
}

/**
 * Deploys an agent and waits until its active revision is ACTIVE on the embedded stack (the worker
 * prepares and activates it, the kubelet simulator makes it ready); a failed revision shows its code
 * and message in the assertion. Answers the new revision's id.
 */
export async function deployToActive(page: Page, agentId: string, timeout = 120_000): Promise<string> {
  const deployed = await gqlInPage<{ deployAgent: { __typename: string; revision?: { id: string } } }>(
    page,
    'mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename ... on DeployAgentSuccess { revision { id } } ... on Error { code message } } }',
    { input: { agentId } },
  );
  expect(deployed.deployAgent.__typename, JSON.stringify(deployed.deployAgent)).toBe('DeployAgentSuccess');
  await expect
    .poll(
      async () => {
        const data = await gqlInPage<{ agent: { activeRevision: { state: string; failure: { code: string; message: string } | null } | null } }>(
          page,
          'query($id: ID!) { agent(id: $id) { activeRevision { state failure { code message } } } }',
          { id: agentId },
        );
        const revision = data.agent.activeRevision;
        return revision?.failure ? `FAILED ${revision.failure.code}: ${revision.failure.message}` : revision?.state;
      },
      { timeout, intervals: [500, 1000] },
    )
    .toBe('ACTIVE');
  return deployed.deployAgent.revision!.id;
}

/** Creates secrets by name through GraphQL (random values) and returns their ids in the same order. */
export async function createSecretsInPage(page: Page, namespaceId: string, names: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const name of names) {
    const data = await gqlInPage<{ createSecret: { __typename: string; secret?: { id: string } } }>(
      page,
      'mutation($input: CreateSecretInput!) { createSecret(input: $input) { __typename ... on CreateSecretSuccess { secret { id } } ... on Error { code message } } }',
      { input: { namespaceId, name, value: `e2e-${randomUUID()}` } },
    );
    expect(data.createSecret.__typename, JSON.stringify(data.createSecret)).toBe('CreateSecretSuccess');
    ids.push(data.createSecret.secret!.id);
  }
  return ids;
}
