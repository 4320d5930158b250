// Console bench, run by `npm run bench` (the e2e workspace's `bench`): the console as a browser
// loads it, in Debian's Chromium, from the product started as `npm start` does (e2e/global-setup.ts,
// a fresh data folder; PostgreSQL when DATABASE_URL is set).
//
// Budgets (the only reasons this file exits non-zero besides a failure):
// - fast link: each list's first row at most 1.5× the later of its page's GraphQL answer and its
//   page's scripts, all counted from the navigation's start (the row can come no sooner than its
//   data and the code that draws it; what is beyond is the console's own rendering); medians of
//   OCC_BENCH_CONSOLE_RUNS (7) loads per route, alternating. Since the page starts its GraphQL
//   requests from its HTML, the answer often arrives before the scripts, so the row against the
//   answer alone (printed too, "row/answer") measures the scripts' load, not the rendering;
// - slow profile (400 ms latency, 400 kbit/s, CPU ×4, Chromium's own emulation): the first paint of
//   every route holds the navigation and the page's skeleton or rows, and the page's GraphQL
//   request starts before its scripts have loaded (from the HTML: apps/console/lib/first-requests.ts).
// It also prints, as measured, each list's first row against its GraphQL request's own duration
// (the "first row 6–46× the page's GraphQL answer"), when the GraphQL request started
// against when the page's scripts had loaded, and the first paint's time.
//
// Alone: cd e2e && ../scripts/node-env node --import tsx ../bench/console/console.bench.ts

import { chromium, type Browser, type BrowserContext, type Page, type Request } from '@playwright/test';
import globalSetup from '../../e2e/global-setup.ts';
import { readStackInfo } from '../../e2e/support/stack.ts';
import { endWith, gql, LAUNCH, median, ms, readyNamespace } from './support.ts';

const RUNS = Number(process.env.OCC_BENCH_CONSOLE_RUNS ?? 7);
const ROW_BUDGET = 1.5;
const SECRETS = 30;
interface Route {
  name: string;
  path: string;
  /** The GraphQL operation that fills the page's list. */
  operation: string;
}

/** Recorded in the page from its first byte: the first paint, what it held, and the first row's time. */
const PROBE = `(() => {
  const probe = (window.__probe = { firstRow: null, paint: null, navAtPaint: null, shapeAtPaint: null });
  const shape = () => Boolean(document.querySelector('[data-testid="skeleton"], main table tbody tr'));
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.name !== 'first-contentful-paint' || probe.paint !== null) continue;
      probe.paint = entry.startTime;
      probe.navAtPaint = Boolean(document.querySelector('nav[aria-label="Main"]'));
      probe.shapeAtPaint = shape();
    }
  }).observe({ type: 'paint', buffered: true });
  const seen = () => {
    if (probe.firstRow === null && document.querySelector('main table tbody tr')) probe.firstRow = performance.now();
  };
  new MutationObserver(seen).observe(document, { childList: true, subtree: true });
})();`;

interface Load {
  firstRow: number;
  graphqlEnd: number;
  graphqlStart: number;
  graphqlDuration: number;
  scriptsLoaded: number;
  paint: number;
  navAtPaint: boolean;
  shapeAtPaint: boolean;
}

async function load(page: Page, route: Route): Promise<Load> {
  let request: { start: number; end: number } | null = null;
  const onFinished = (r: Request) => {
    if (!r.url().endsWith('/graphql') || request) return;
    if (!String(r.postData() ?? '').includes(`query ${route.operation}`)) return;
    const t = r.timing();
    request = { start: t.startTime, end: t.startTime + t.responseEnd };
  };
  page.on('requestfinished', onFinished);
  await page.goto(route.path, { waitUntil: 'commit' });
  await page.waitForFunction(() => (window as unknown as { __probe: { firstRow: number | null } }).__probe.firstRow !== null, null, { timeout: 120_000 });
  await page.waitForLoadState('load');
  for (let i = 0; i < 200 && !request; i++) await page.waitForTimeout(10);
  page.off('requestfinished', onFinished);
  if (!request) throw new Error(`no ${route.operation} request on ${route.path}`);
  const measured = await page.evaluate(() => {
    const probe = (window as unknown as { __probe: { firstRow: number; paint: number; navAtPaint: boolean; shapeAtPaint: boolean } }).__probe;
    const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    return { ...probe, origin: performance.timeOrigin, scriptsLoaded: navigation.loadEventStart };
  });
  const { start, end } = request as { start: number; end: number };
  return {
    firstRow: measured.firstRow,
    graphqlStart: start - measured.origin,
    graphqlEnd: end - measured.origin,
    graphqlDuration: end - start,
    scriptsLoaded: measured.scriptsLoaded,
    paint: measured.paint,
    navAtPaint: measured.navAtPaint,
    shapeAtPaint: measured.shapeAtPaint,
  };
}


async function seed(url: string, key: string): Promise<string> {
  const namespaceId = await readyNamespace(url, key, 'bench');
  for (let i = 0; i < SECRETS; i++) {
    await gql(url, key, 'mutation($input: CreateSecretInput!) { createSecret(input: $input) { __typename } }', { input: { namespaceId, name: `secret-${String(i).padStart(2, '0')}`, value: `value-${i}` } });
    if (i % 3 === 0) await gql(url, key, 'mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename } }', { input: { namespaceId, name: `agent-${String(i).padStart(2, '0')}` } });
  }
  return namespaceId;
}

async function signedInContext(browser: Browser, url: string, key: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
  await context.addInitScript(PROBE);
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/namespaces$/);
  await page.close();
  return context;
}

async function main(): Promise<void> {
  const teardown = await globalSetup();
  const browser = await chromium.launch(LAUNCH);
  let over = false;
  try {
    const stack = readStackInfo();
    const namespaceId = await seed(stack.consoleUrl, stack.bootstrapApiKey);
    const routes: Route[] = [
      { name: 'namespaces', path: '/namespaces', operation: 'Namespaces' },
      { name: 'secrets', path: `/secrets?namespace=${namespaceId}`, operation: 'NamespaceSecrets' },
      { name: 'agents', path: `/agents?namespace=${namespaceId}`, operation: 'NamespaceAgents' },
      { name: 'audit', path: '/audit', operation: 'AuditEvents' },
    ];

    // Fast link: the machine's loopback, no throttling; one warm-up load of each route first.
    const fast = await signedInContext(browser, stack.consoleUrl, stack.bootstrapApiKey);
    const page = await fast.newPage();
    const loads = new Map<string, Load[]>(routes.map((r) => [r.name, []]));
    for (let run = -1; run < RUNS; run++) {
      for (const route of routes) {
        const measured = await load(page, route);
        if (run >= 0) loads.get(route.name)!.push(measured);
      }
    }
    console.log(`\nFast link: medians of ${RUNS} loads per route, from the navigation's start (budget: first row ≤ ${ROW_BUDGET}× the later of the GraphQL answer's end and the scripts' load)`);
    console.log('route        GraphQL start  scripts loaded  GraphQL end  first row  row/ready  row/answer  row/request');
    for (const route of routes) {
      const l = loads.get(route.name)!;
      const rowOverReady = median(l.map((x) => x.firstRow / Math.max(x.graphqlEnd, x.scriptsLoaded)));
      const rowOverEnd = median(l.map((x) => x.firstRow / x.graphqlEnd));
      const rowOverRequest = median(l.map((x) => x.firstRow / x.graphqlDuration));
      if (rowOverReady > ROW_BUDGET) over = true;
      console.log(
        `${route.name.padEnd(12)} ${ms(median(l.map((x) => x.graphqlStart))).padStart(13)} ${ms(median(l.map((x) => x.scriptsLoaded))).padStart(15)} ${ms(median(l.map((x) => x.graphqlEnd))).padStart(12)} ${ms(median(l.map((x) => x.firstRow))).padStart(10)} ${rowOverReady.toFixed(2).padStart(9)}${rowOverReady > ROW_BUDGET ? ' OVER' : '     '} ${rowOverEnd.toFixed(2).padStart(10)} ${rowOverRequest.toFixed(1).padStart(11)}`,
      );
    }
    await fast.close();

    // Slow profile: Chromium's network and CPU emulation on a fresh context (nothing cached).
    console.log('\nSlow profile (400 ms latency, 400 kbit/s, CPU ×4), one cold load per route (budget: the navigation and the page\'s shape at first paint; GraphQL started before the scripts have loaded)');
    console.log('route        first paint  navigation  skeleton/rows  GraphQL start  scripts loaded  first row');
    for (const route of routes) {
      const slow = await signedInContext(browser, stack.consoleUrl, stack.bootstrapApiKey);
      const slowPage = await slow.newPage();
      const cdp = await slow.newCDPSession(slowPage);
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 400, downloadThroughput: 50_000, uploadThroughput: 50_000 });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      const l = await load(slowPage, route);
      const early = l.graphqlStart < l.scriptsLoaded;
      if (!l.navAtPaint || !l.shapeAtPaint || !early) over = true;
      console.log(
        `${route.name.padEnd(12)} ${ms(l.paint).padStart(11)} ${String(l.navAtPaint).padStart(11)} ${String(l.shapeAtPaint).padStart(14)}${!l.navAtPaint || !l.shapeAtPaint ? ' OVER' : '     '} ${ms(l.graphqlStart).padStart(13)}${early ? '     ' : ' OVER'} ${ms(l.scriptsLoaded).padStart(15)} ${ms(l.firstRow).padStart(10)}`,
      );
      await slow.close();
    }
  } finally {
    await browser.close();
    await teardown();
  }
  endWith(over);
}

await main();
