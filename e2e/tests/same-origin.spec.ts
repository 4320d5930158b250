import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page, Response } from '@playwright/test';
import { signIn } from '../support/console';
import { expect, test } from '../support/fixtures';

// P2 in a real browser. Another port of 127.0.0.1 is another origin but the same site, so Chromium
// sends the admin's SameSite=Strict cookie along: only the server's same-origin check stands between
// such a page and the admin's session. The attack (a credentialed JSON fetch), a form post
// and a no-cors text/plain post must all fail, and the console itself must run under its CSP.

const NAMESPACES = '{ namespaces(first: 100) { edges { node { name } } } }';

/** The attacker's page: three ways to send createNamespace to the API with the admin's cookie. */
function attackPage(graphqlUrl: string, name: string): string {
  const body = JSON.stringify({ query: `mutation { createNamespace(input: { name: "${name}" }) { __typename } }` });
  // A text/plain form sends `name=value`: the name carries the JSON, the value closes a dummy key.
  const formName = body.slice(0, -1) + ',"x":"';
  return `<!doctype html><html><body>
<form id="form" method="POST" action="${graphqlUrl}" enctype="text/plain"><input type="hidden" name='${formName}' value='"}'></form>
<script>
window.results = {};
const body = ${JSON.stringify(body)};
window.attack = async () => {
  try {
    const r = await fetch(${JSON.stringify(graphqlUrl)}, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body });
    window.results.cors = 'status ' + r.status + ' ' + (await r.text());
  } catch (e) { window.results.cors = 'blocked: ' + e.name; }
  try {
    const r = await fetch(${JSON.stringify(graphqlUrl)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body });
    window.results.noCors = 'opaque ' + r.type;
  } catch (e) { window.results.noCors = 'blocked: ' + e.name; }
};
</script></body></html>`;
}

async function startAttackerServer(html: string): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

async function namespaceNames(consoleUrl: string, apiKey: string): Promise<string[]> {
  const res = await fetch(new URL('/graphql', consoleUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ query: NAMESPACES }),
  });
  const json = (await res.json()) as { data: { namespaces: { edges: Array<{ node: { name: string } }> } } };
  return json.data.namespaces.edges.map((e) => e.node.name);
}

/** Records CSP violations and CSP console errors on every document the page loads. */
async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction('__reportCspViolation', (v: string) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      void (window as unknown as { __reportCspViolation(v: string): void }).__reportCspViolation(
        `${e.violatedDirective} blocked ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`,
      );
    });
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) violations.push(`console: ${msg.text()}`);
  });
  return violations;
}

test('P2: the console runs under its Content-Security-Policy, with no violation', async ({ page, stack, snap }) => {
  const violations = await watchCsp(page);
  const document = await page.goto('/sign-in');
  expect(document?.headers()['content-security-policy']).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+;/);
  await page.waitForLoadState('networkidle');
  expect(violations).toEqual([]);
  await signIn(page, stack.bootstrapApiKey);
  await page.goto('/namespaces');
  await expect(page.getByRole('button', { name: 'New namespace' })).toBeVisible();
  await page.waitForLoadState('networkidle');
  await page.goto('/users');
  await page.waitForLoadState('networkidle');
  await snap('console-under-csp');
  expect(violations).toEqual([]);
});

test('P2: a page on another port of 127.0.0.1 cannot act with the signed-in admin session', async ({ page, context, stack, snap }) => {
  await signIn(page, stack.bootstrapApiKey);
  const graphqlUrl = new URL('/graphql', stack.consoleUrl).toString();
  const name = `e2e-p2-attack-${Date.now().toString(36)}`;
  const attacker = await startAttackerServer(attackPage(graphqlUrl, name));
  try {
    // The answers to the attacker's requests, as the browser saw them (the page may not read them).
    const answers: Response[] = [];
    const attackerPage = await context.newPage();
    attackerPage.on('response', (r) => {
      if (r.url() === graphqlUrl) answers.push(r);
    });
    await attackerPage.goto(attacker.url);
    await attackerPage.evaluate(() => (window as unknown as { attack(): Promise<void> }).attack());
    const results = await attackerPage.evaluate(() => (window as unknown as { results: Record<string, string> }).results);
    // The credentialed JSON fetch needs a preflight, which gets no CORS answer: the browser blocks it.
    expect(results.cors).toBe('blocked: TypeError');
    // The no-cors post is sent; its answer carries Cross-Origin-Resource-Policy: same-origin, so
    // the browser does not even hand the page an opaque response.
    expect(results.noCors).toBe('blocked: TypeError');
    // The form post is a top-level navigation: its answer is the server's refusal.
    const [formAnswer] = await Promise.all([
      attackerPage.waitForResponse((r) => r.url() === graphqlUrl && r.request().method() === 'POST'),
      attackerPage.evaluate(() => (document.getElementById('form') as HTMLFormElement).submit()),
    ]);
    expect(formAnswer.status()).toBe(403);
    expect(await formAnswer.text()).toContain('CROSS_ORIGIN_REFUSED');
    await snap('form-post-refused');

    // Every answer to the attacker's requests that the browser let through was a refusal (the
    // preflight and the CORP-blocked answer are not all reported to Playwright).
    expect(answers.length).toBeGreaterThanOrEqual(1);
    for (const answer of answers) expect(`${answer.request().method()} ${answer.status()}`).toMatch(/ 403$/);
    for (const answer of answers) expect(answer.headers()['access-control-allow-origin']).toBeUndefined();

    expect(await namespaceNames(stack.consoleUrl, stack.bootstrapApiKey)).not.toContain(name);
    // The admin's own session still works from the console's origin.
    await page.goto('/namespaces');
    await expect(page.getByRole('button', { name: 'New namespace' })).toBeVisible();
  } finally {
    attacker.server.closeAllConnections();
    await new Promise<void>((resolve) => attacker.server.close(() => resolve()));
  }
});
