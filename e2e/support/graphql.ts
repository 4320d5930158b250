import { expect, type Page } from '@playwright/test';

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
