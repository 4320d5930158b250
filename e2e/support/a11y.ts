import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

// The checks accessibility.spec.ts runs on every screen, for a journey to run on the states only it
// reaches (a stale delivery, a running gateway). Same tags, same thresholds.

export async function axe(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
  expect(serious, `${where}: serious or critical axe violations`).toEqual([]);
}

export async function noSidewaysScroll(page: Page, where: string): Promise<void> {
  const widths = await page.evaluate(() => {
    const client = document.documentElement.clientWidth;
    const wide = Array.from(document.querySelectorAll('body *'))
      .filter((el) => el.getBoundingClientRect().right > client + 1)
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} (${Math.round(el.getBoundingClientRect().right)})`);
    return { scroll: document.documentElement.scrollWidth, client, wide };
  });
  expect(widths.scroll, `${where}: page scrolls sideways at ${widths.client} px: ${widths.wide.join(', ')}`).toBeLessThanOrEqual(widths.client);
}
