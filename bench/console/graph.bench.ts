// The namespace reference graph at size (apps/console/components/references/NamespaceGraph.tsx), in
// Debian's Chromium, from the product started as `npm start` does (e2e/global-setup.ts; PostgreSQL
// when DATABASE_URL is set). A namespace of OCC_BENCH_GRAPH_NODES (2,000) nodes is filled through
// GraphQL: 40% secrets, 20% configurations binding two secrets each, 40% agents each selecting a
// configuration, half of them with a secret as harnessAuth.
//
// Measured side by side in one run, as ratios (absolute times drift on this shared machine):
// - drawn / data: navigation → every node in the page, against navigation → the graph's last page
//   answered (what is beyond the data is layout and drawing); the worker's layout time is printed;
// - pan and zoom: the p95 interval between animation frames while dragging and wheeling the
//   drawing (and for 500 ms after the wheel), against the same page's p95 idle (budget ≤ 2×: at
//   worst every other frame dropped); zoom's longest frame, the redraw once the wheel rests;
// - select: a click on a secret until its blast radius is lit, printed in frames of the idle p95.
// Medians of OCC_BENCH_GRAPH_RUNS (3) loads.
//
// Alone: cd e2e && ../scripts/node-env node --import tsx ../bench/console/graph.bench.ts

import { chromium, type Page } from '@playwright/test';
import globalSetup from '../../e2e/global-setup.ts';
import { readStackInfo } from '../../e2e/support/stack.ts';
import { endWith, gql, LAUNCH, median, ms, readyNamespace } from './support.ts';

const NODES = Number(process.env.OCC_BENCH_GRAPH_NODES ?? 2000);
const RUNS = Number(process.env.OCC_BENCH_GRAPH_RUNS ?? 3);
const FRAME_BUDGET = 2;
/** Run `work` over `items`, `parallel` at a time, printing progress. */
async function each<T>(label: string, items: T[], parallel: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index]!, index);
        if (++done % 100 === 0) process.stderr.write(`  ${label}: ${done} of ${items.length}\n`);
      }
    }),
  );
}

async function seed(url: string, key: string): Promise<string> {
  const namespaceId = await readyNamespace(url, key, 'graph');
  const secrets = Math.round(NODES * 0.4);
  const configurations = Math.round(NODES * 0.2);
  const agents = NODES - secrets - configurations;
  const secretIds: string[] = [];
  await each('secrets', Array.from({ length: secrets }), 8, async (_, i) => {
    const s = await gql(url, key, 'mutation($input: CreateSecretInput!) { createSecret(input: $input) { ... on CreateSecretSuccess { secret { id } } } }', {
      input: { namespaceId, name: `secret-${String(i).padStart(4, '0')}`, value: `bench-value-${i}` },
    });
    secretIds[i] = s.createSecret.secret.id;
  });
  const configurationIds: string[] = [];
  await each('configurations', Array.from({ length: configurations }), 8, async (_, i) => {
    const c = await gql(url, key, 'mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) { ... on CreateConfigurationSuccess { configuration { id } } } }', {
      input: {
        namespaceId,
        name: `configuration-${String(i).padStart(4, '0')}`,
        values: {},
        secretBindings: [0, 1].map((k) => ({ envName: `TOKEN_${k}`, source: { id: secretIds[(2 * i + k) % secrets] } })),
      },
    });
    configurationIds[i] = c.createConfiguration.configuration.id;
  });
  await each('agents', Array.from({ length: agents }), 8, async (_, i) => {
    await gql(url, key, 'mutation($input: CreateAgentInput!) { createAgent(input: $input) { __typename } }', {
      input: {
        namespaceId,
        name: `agent-${String(i).padStart(4, '0')}`,
        configurationId: configurationIds[i % configurations],
        ...(i % 2 === 0 ? { harnessAuth: { provider: 'openai', source: { id: secretIds[(i * 7) % secrets] } } } : {}),
      },
    });
  });
  return namespaceId;
}

/** Intervals between animation frames while `during` runs (or for `ms` when idle). */
async function frames(page: Page, during: () => Promise<void>): Promise<number[]> {
  // A string, not a function: tsx would wrap a named function in a helper the page lacks.
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__stop = false;
    let last = performance.now();
    const tick = (now) => {
      window.__frames.push(now - last);
      last = now;
      if (!window.__stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })()`);
  await during();
  return page.evaluate(() => {
    const w = window as unknown as { __frames: number[]; __stop: boolean };
    w.__stop = true;
    return w.__frames.slice(1);
  });
}

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] ?? 0;

async function main(): Promise<void> {
  const teardown = await globalSetup();
  const browser = await chromium.launch(LAUNCH);
  let over = false;
  try {
    const stack = readStackInfo();
    const started = Date.now();
    const namespaceId = await seed(stack.consoleUrl, stack.bootstrapApiKey);
    console.log(`filled a namespace of ${NODES} nodes in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const context = await browser.newContext({ baseURL: stack.consoleUrl, viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
    const page = await context.newPage();
    page.on('pageerror', (error) => process.stderr.write(`  page error: ${error.message}\n`));
    page.on('console', (message) => message.type() === 'error' && process.stderr.write(`  console: ${message.text()}\n`));
    await page.goto('/sign-in');
    await page.getByLabel('API key').fill(stack.bootstrapApiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/namespaces$/);

    const rows: Array<{ data: number; drawn: number; layout: number; idle: number; pan: number; zoom: number; settle: number; select: number }> = [];
    for (let run = -1; run < RUNS; run++) {
      let lastAnswer = 0;
      const onFinished = (r: import('@playwright/test').Request) => {
        if (r.url().endsWith('/graphql') && String(r.postData() ?? '').includes('query NamespaceReferenceGraph')) lastAnswer = r.timing().startTime + r.timing().responseEnd;
      };
      page.on('requestfinished', onFinished);
      await page.goto(`/references?namespace=${namespaceId}`, { waitUntil: 'commit' });
      await page.waitForFunction((n) => document.querySelectorAll('[data-node]').length >= n, NODES, { timeout: 120_000, polling: 'raf' }).catch(async (error: Error) => {
        throw new Error(`${error.message}; the page shows: ${(await page.locator('main').innerText()).slice(0, 600)}`);
      });
      const drawnAt = await page.evaluate(() => performance.now() + performance.timeOrigin);
      page.off('requestfinished', onFinished);
      const origin = await page.evaluate(() => performance.timeOrigin);
      const layout = await page.evaluate(() => {
        const marks = performance.getEntriesByName('occ-graph-layout');
        return marks.length > 0 ? marks[marks.length - 1]!.duration : NaN;
      });

      const canvas = page.getByTestId('reference-graph');
      const box = (await canvas.boundingBox())!;
      const idle = await frames(page, () => page.waitForTimeout(1500));
      const pan = await frames(page, async () => {
        await page.mouse.move(box.x + 40, box.y + box.height / 2);
        await page.mouse.down();
        for (let i = 0; i < 60; i++) await page.mouse.move(box.x + 40 + i * 8, box.y + box.height / 2 + (i % 10) * 3);
        await page.mouse.up();
      });
      // The wheel, then 500 ms more: the frame that redraws the drawing once the wheel rests is
      // counted too, and printed on its own (the longest frame).
      const zoom = await frames(page, async () => {
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        for (let i = 0; i < 30; i++) await page.mouse.wheel(0, i < 20 ? -120 : 120); // ends 10 steps (6×) closer
        await page.waitForTimeout(500);
      });
      // Back to the whole drawing, where the selection is measured (closer, most nodes are not drawn).
      await page.getByRole('button', { name: 'Fit' }).click();
      await page.waitForFunction((n) => document.querySelectorAll('[data-node]').length >= n, NODES, { polling: 'raf' });
      const secret = page.locator('[data-node^="sec_"]').first();
      const id = (await secret.getAttribute('data-node'))!;
      const t0 = Date.now();
      await page.evaluate((nodeId) => (document.querySelector(`[data-node="${nodeId}"]`) as SVGGElement).dispatchEvent(new MouseEvent('click', { bubbles: true })), id);
      await page.waitForFunction(() => document.querySelector('[data-testid="graph-selection"]') !== null && document.querySelectorAll('[data-lit="false"]').length > 0, null, { polling: 'raf' });
      const select = Date.now() - t0;
      if (run >= 0) rows.push({ data: lastAnswer - origin, drawn: drawnAt - origin, layout, idle: p95(idle), pan: p95(pan), zoom: p95(zoom), settle: Math.max(...zoom), select });
      process.stderr.write(`  run ${run + 1}: drawn ${ms(drawnAt - origin)}, data ${ms(lastAnswer - origin)}, frames p95 idle ${ms(p95(idle))} pan ${ms(p95(pan))} zoom ${ms(p95(zoom))}\n`);
    }

    const m = (f: (r: (typeof rows)[number]) => number) => median(rows.map(f));
    const panRatio = m((r) => r.pan / r.idle);
    const zoomRatio = m((r) => r.zoom / r.idle);
    if (panRatio > FRAME_BUDGET || zoomRatio > FRAME_BUDGET) over = true;
    console.log(`\nReference graph of ${NODES} nodes, medians of ${RUNS} loads (1280×900)`);
    console.log(`data (last page answered)   ${ms(m((r) => r.data))}`);
    console.log(`drawn (every node in page)  ${ms(m((r) => r.drawn))}   drawn / data ${m((r) => r.drawn / r.data).toFixed(2)}`);
    console.log(`layout (in the worker)      ${ms(m((r) => r.layout))}`);
    console.log(`frame p95: idle ${ms(m((r) => r.idle))}, pan ${ms(m((r) => r.pan))} (${panRatio.toFixed(2)}×${panRatio > FRAME_BUDGET ? ' OVER' : ''}), zoom ${ms(m((r) => r.zoom))} (${zoomRatio.toFixed(2)}×${zoomRatio > FRAME_BUDGET ? ' OVER' : ''}); budget ≤ ${FRAME_BUDGET}× idle`);
    console.log(`zoom's longest frame (the redraw once the wheel rests): ${ms(m((r) => r.settle))} (${m((r) => r.settle / r.idle).toFixed(1)}× idle)`);
    console.log(`select a secret → its blast radius lit: ${ms(m((r) => r.select))} (${m((r) => r.select / r.idle).toFixed(1)} idle frames)`);
  } finally {
    await browser.close();
    await teardown();
  }
  endWith(over);
}

await main();
