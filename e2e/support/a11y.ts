import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

// The accessibility checks every screen gets (accessibility.spec.ts runs them on all screens; a
// journey runs them on the states only it reaches). Serious and critical violations fail; the rest
// are printed.

export async function axe(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  const minor = results.violations.filter((v) => v.impact !== 'serious' && v.impact !== 'critical');
  if (minor.length > 0) console.log(`${where}: ${minor.map((v) => `${v.id} (${v.impact})`).join(', ')}`);
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
  expect(serious, `${where}: serious or critical axe violations`).toEqual([]);
}

export async function noSidewaysScroll(page: Page, where: string): Promise<void> {
  const widths = await page.evaluate(() => {
    const client = document.documentElement.clientWidth;
    // The elements reaching past the right edge, to name the culprit when this fails.
    const wide = Array.from(document.querySelectorAll('body *'))
      .filter((el) => el.getBoundingClientRect().right > client + 1)
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} (${Math.round(el.getBoundingClientRect().right)})`);
    return { scroll: document.documentElement.scrollWidth, client, wide };
  });
  expect(widths.scroll, `${where}: page scrolls sideways at ${widths.client} px: ${widths.wide.join(', ')}`).toBeLessThanOrEqual(widths.client);
}

/**
 * At a desktop width every table fits its frame: no row's cells or actions hidden behind the
 * table's own sideways scroll (which keeps the page from scrolling at 390 px). Names the table and
 * its widest cells when it fails.
 */
export async function tablesFit(page: Page, where: string): Promise<void> {
  const overflowing = await page.evaluate(() =>
    Array.from(document.querySelectorAll('.table-scroll'))
      .filter((el) => el.scrollWidth > el.clientWidth + 1)
      .map((el) => {
        const table = el.querySelector('table');
        const name = table?.getAttribute('aria-label') ?? table?.querySelector('caption')?.textContent ?? '(a table)';
        const wide = Array.from(el.querySelectorAll('th, td'))
          .filter((cell) => cell.getBoundingClientRect().right > el.getBoundingClientRect().right + 1)
          .slice(0, 3)
          .map((cell) => `${cell.tagName.toLowerCase()}.${cell.className} "${(cell.textContent ?? '').trim().slice(0, 40)}"`);
        return `${name}: ${el.scrollWidth} px in ${el.clientWidth} px (${wide.join(', ')})`;
      }),
  );
  expect(overflowing, `${where}: tables scroll sideways at ${page.viewportSize()?.width} px`).toEqual([]);
}

/** A state a journey reaches: axe in light and dark, then no sideways scroll and axe again at 390 px. */
export async function accessibleEverywhere(page: Page, where: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await axe(page, `${where} (${colorScheme})`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  await noSidewaysScroll(page, where);
  await axe(page, `${where} (390 px)`);
  await page.setViewportSize(size);
}
