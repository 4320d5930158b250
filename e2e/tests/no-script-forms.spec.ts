import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '../support/fixtures';

// P1: a form whose script did not run (blocked, slow, failed to load) is submitted by the browser
// itself. With the default GET, the API key or a secret value would land in the URL, the history
// and any proxy's log. Every console form posts, and the server refuses a post to a page.

const components = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../apps/console/components');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.tsx') ? [path.join(dir, e.name)] : []));
}

test('P1 every console form declares method="post", so a scriptless submit never puts a value in the URL', () => {
  // A form written as <form …>, or as <BusyForm …> (components/ui/Busy.tsx), which renders one.
  const forms = sources(components).flatMap((file) => (readFileSync(file, 'utf8').match(/<(?:form|BusyForm)\b[^>]*>/g) ?? []).map((tag) => ({ file, tag })));
  expect(forms.length).toBeGreaterThan(5);
  for (const { file, tag } of forms) expect(tag, path.relative(components, file)).toMatch(/\bmethod="post"/);
});

test('P1 signing in with scripts disabled leaves the API key out of the URL and signs nobody in', async ({ browser, stack }) => {
  const context = await browser.newContext({ javaScriptEnabled: false, baseURL: stack.consoleUrl });
  try {
    const page = await context.newPage();
    await page.goto('/sign-in');
    await page.getByLabel('API key').fill(stack.bootstrapApiKey);
    // The submit is a navigation, by whatever method the form declares; a late response to the
    // page's own resources (seen once in CI: a GET) is not it.
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().isNavigationRequest()), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(response.request().method()).toBe('POST');
    expect(response.status()).toBe(405);
    expect(page.url()).not.toContain(stack.bootstrapApiKey.slice(4, 20));
    expect((await context.cookies()).map((c) => c.name)).not.toContain('occ_session');
  } finally {
    await context.close();
  }
});
