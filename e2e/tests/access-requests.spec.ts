import type { Page } from '@playwright/test';
import { createReadyNamespace, signIn } from '../support/console';
import { expect, test } from '../support/fixtures';
import { gqlInPage } from '../support/graphql';

/** The GraphQL requests the Access page sends until it has settled, by operation name. */
async function accessPageRequests(page: Page, namespaceId: string): Promise<string[]> {
  // From a blank page: a request the page before sends as it is left (a poll, a refetch) is not the
  // Access page's. (Seen: the namespaces list's poll counted once in the first view, not the second.)
  await page.goto('about:blank');
  const operations: string[] = [];
  const listener = (request: { url(): string; method(): string; postData(): string | null }) => {
    if (request.url().endsWith('/graphql') && request.method() === 'POST') {
      operations.push(/(?:query|mutation)\s+(\w+)/.exec(request.postData() ?? '')?.[1] ?? 'anonymous');
    }
  };
  page.on('request', listener);
  await page.goto(`/access?namespace=${namespaceId}`);
  await expect(page.getByRole('heading', { name: 'Grants on single secrets' })).toBeVisible();
  await page.waitForLoadState('networkidle');
  page.off('request', listener);
  return operations.sort();
}

// With 100 secrets the Access tab once sent 107 requests, one per secret. The grants on every
// secret of the namespace now come in one query, so the count does not grow with the secrets.
// Each view is also one try per request: a request refused for the principal's budget (P7) is
// retried by the console and counted twice, as two views of this page a few seconds apart were
// when every page was charged as if full.
test('A2 the Access page sends the same requests for 1 secret as for 12: the grants on secrets come in one query', async ({ page, stack }) => {
  test.setTimeout(300_000);
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-req-${Date.now().toString(36)}`);
  const create = (name: string) =>
    gqlInPage(page, 'mutation($input: CreateSecretInput!) { createSecret(input: $input) { __typename } }', { input: { namespaceId, name, value: 'v' } });
  await create('req-0');
  const withOne = await accessPageRequests(page, namespaceId);
  for (let i = 1; i < 12; i += 1) await create(`req-${i}`);
  const withTwelve = await accessPageRequests(page, namespaceId);
  expect(withTwelve).toEqual(withOne);
  expect(withTwelve.filter((op) => op === 'ResourceAccessBindingsInNamespace')).toHaveLength(1);
  expect(withTwelve.filter((op) => op === 'AccessBindingsForResource')).toHaveLength(1); // the namespace's own
});
