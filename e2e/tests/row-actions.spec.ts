import type { Page } from '@playwright/test';
import { axe } from '../support/a11y';
import { createReadyNamespace, rowActions, signIn } from '../support/console';
import { expectVisibleFocus } from '../support/focus';
import { createSecretsInPage } from '../support/graphql';
import { expect, test } from '../support/fixtures';

// A row's actions are one "Actions" button and its menu (components/ui/RowActions.tsx; Radix's
// DropdownMenu, the WAI-ARIA menu button pattern). The menu's code is not in the page's first load:
// a stand-in button is drawn until it arrives, and what the user did to the stand-in (pressed it,
// focused it) is carried over. What a viewer may not do is in honest-controls-a3.spec.ts; the
// journeys that use the items (rotate, redeploy, delete) are in their own specs.

const menuOf = (page: Page, name: string) => page.getByRole('menu', { name: `Actions for ${name}`, exact: true });

/** The scripts a page's HTML loads: its first load. Any other chunk is loaded on demand. */
async function firstLoadScripts(page: Page, path: string): Promise<Set<string>> {
  const html = await (await page.request.get(path)).text();
  const scripts = new Set<string>();
  for (const match of html.matchAll(/<script[^>]*\ssrc="([^"]+)"|<link[^>]*rel="preload"[^>]*as="script"[^>]*href="([^"]+)"/g)) scripts.add(match[1] ?? match[2]!);
  return scripts;
}

/** Holds every chunk the page asks for beyond its first load until `release` is called. */
async function holdLazyChunks(page: Page, firstLoad: Set<string>): Promise<{ release: () => void; held: () => number }> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  await page.route('**/_next/static/chunks/*.js', async (route) => {
    if (!firstLoad.has(new URL(route.request().url()).pathname)) {
      held += 1;
      await gate;
    }
    await route.continue();
  });
  return { release, held: () => held };
}

test('a row’s Actions menu: Enter opens it on its first item, arrows move, Escape closes it onto the button, axe finds nothing serious', async ({ page, stack }) => {
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-actions-${Date.now().toString(36)}`);
  await createSecretsInPage(page, namespaceId, ['menu-token']);
  await page.goto(`/secrets?namespace=${namespaceId}`);
  const button = rowActions(page, 'menu-token');
  // The menu's own button, not the stand-in: Radix's trigger says its state.
  await expect(button).toHaveAttribute('data-state', 'closed');
  await expect(button).toHaveAttribute('aria-haspopup', 'menu');

  await button.focus();
  await page.keyboard.press('Enter');
  const menu = menuOf(page, 'menu-token');
  await expect(menu).toBeVisible();
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  // A secret nobody consumes has nothing to redeploy: Rotate and Delete, in that order.
  await expect(menu.getByRole('menuitem')).toHaveText(['Rotate…', 'Delete…']);
  await expect(menu.getByRole('menuitem', { name: 'Rotate…' })).toBeFocused();
  await expectVisibleFocus(page, 'Rotate… in the menu');
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: 'Delete…' })).toBeFocused();
  await expectVisibleFocus(page, 'Delete… in the menu');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await axe(page, `a row's Actions menu open (${scheme})`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(button).toBeFocused();
  await expect(button).toHaveAttribute('aria-expanded', 'false');

  // A click outside closes it too, and opens nothing.
  await button.click();
  await expect(menu).toBeVisible();
  await page.getByRole('heading', { level: 1 }).click();
  await expect(menu).toHaveCount(0);
  await expect(page.getByLabel('New value for menu-token')).toHaveCount(0);
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
});

/** Loads the page with the menu's chunk held back: the row's button is the stand-in (the same name and look, without Radix's state). */
async function loadWithStandIn(page: Page, path: string, firstLoad: Set<string>, name: string) {
  const chunks = await holdLazyChunks(page, firstLoad);
  await page.goto(path);
  const button = rowActions(page, name);
  await expect(button).toBeVisible();
  await expect(button).not.toHaveAttribute('data-state', /.*/);
  expect(chunks.held()).toBeGreaterThan(0);
  return { button, release: chunks.release };
}

test('the menu’s code arrives after the row: a press on the stand-in opens the menu when it arrives, and focus on it is handed over', async ({ page, stack }) => {
  await signIn(page, stack.bootstrapApiKey);
  const namespaceId = await createReadyNamespace(page, `e2e-actions-late-${Date.now().toString(36)}`);
  await createSecretsInPage(page, namespaceId, ['late-token']);
  const path = `/secrets?namespace=${namespaceId}`;
  const firstLoad = await firstLoadScripts(page, '/secrets');
  expect(firstLoad.size).toBeGreaterThan(0);

  await test.step('pressed before the code arrived: the menu opens as it arrives', async () => {
    const { button, release } = await loadWithStandIn(page, path, firstLoad, 'late-token');
    await button.click();
    await expect(menuOf(page, 'late-token')).toHaveCount(0);
    release();
    await expect(menuOf(page, 'late-token')).toBeVisible();
    await expect(menuOf(page, 'late-token').getByRole('menuitem')).toHaveText(['Rotate…', 'Delete…']);
    await page.unrouteAll({ behavior: 'wait' });
  });

  await test.step('focused before the code arrived: the menu’s button has focus when it arrives', async () => {
    const { button, release } = await loadWithStandIn(page, path, firstLoad, 'late-token');
    await button.focus();
    release();
    await expect(button).toHaveAttribute('data-state', 'closed');
    await expect(button).toBeFocused();
    await expectVisibleFocus(page, 'the Actions button once its menu arrived');
    await page.keyboard.press('Enter');
    await expect(menuOf(page, 'late-token').getByRole('menuitem', { name: 'Rotate…' })).toBeFocused();
    await page.unrouteAll({ behavior: 'wait' });
  });
});
