import { expect, type Page } from '@playwright/test';

export type FocusRing = {
  tag: string;
  name: string;
  outlineStyle: string;
  outlineWidth: number;
  ring: string;
  background: string;
  contrast: number;
};

/**
 * The focused element's focus indicator, from computed styles: its outline (style, width, colour)
 * and the contrast of that colour with the first opaque background behind the element (the outline
 * is drawn outside it, over that background). WCAG 2.2 asks 3:1 of a focus indicator.
 */
export async function focusRing(page: Page): Promise<FocusRing> {
  return page.evaluate(() => {
    const parse = (color: string): [number, number, number, number] => {
      const m = color.match(/rgba?\(([^)]+)\)/);
      if (!m) return [0, 0, 0, 0];
      const parts = m[1]!.split(/[ ,/]+/).filter(Boolean).map(Number);
      return [parts[0]!, parts[1]!, parts[2]!, parts.length > 3 ? parts[3]! : 1];
    };
    const luminance = ([r, g, b]: number[]) => {
      const [R, G, B] = [r!, g!, b!].map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * R! + 0.7152 * G! + 0.0722 * B!;
    };
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) {
      return { tag: 'body', name: '', outlineStyle: 'none', outlineWidth: 0, ring: '', background: '', contrast: 0 };
    }
    const style = getComputedStyle(el);
    let bg: [number, number, number, number] = [255, 255, 255, 1];
    for (let node: Element | null = el.parentElement; node; node = node.parentElement) {
      const c = parse(getComputedStyle(node).backgroundColor);
      if (c[3] > 0.5) {
        bg = c;
        break;
      }
      if (node === document.documentElement) bg = c[3] > 0 ? c : [255, 255, 255, 1];
    }
    const ring = parse(style.outlineColor);
    const [l1, l2] = [luminance(ring), luminance(bg)].sort((a, b) => b - a);
    return {
      tag: el.tagName.toLowerCase(),
      name: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 60),
      outlineStyle: style.outlineStyle,
      outlineWidth: parseFloat(style.outlineWidth),
      ring: style.outlineColor,
      background: getComputedStyle(el.parentElement ?? el).backgroundColor,
      contrast: (l1! + 0.05) / (l2! + 0.05),
    };
  });
}

/** Fails unless the focused element shows a solid ring of at least 2 px at 3:1 or more. */
export async function expectVisibleFocus(page: Page, where: string): Promise<FocusRing> {
  const ring = await focusRing(page);
  expect(ring.tag, `${where}: focus is on the body`).not.toBe('body');
  expect(ring.outlineStyle, `${where}: ${ring.tag} "${ring.name}" has no outline`).not.toBe('none');
  expect(ring.outlineWidth, `${where}: ${ring.tag} "${ring.name}" outline width`).toBeGreaterThanOrEqual(2);
  expect(ring.contrast, `${where}: ${ring.tag} "${ring.name}" ring ${ring.ring} on its background`).toBeGreaterThanOrEqual(3);
  return ring;
}

/** Presses Tab until `matches` holds for the focused element, checking the ring at every stop. */
export async function tabUntil(page: Page, matches: () => Promise<boolean>, what: string, max = 60): Promise<void> {
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press('Tab');
    await expectVisibleFocus(page, `Tab ${i + 1} towards ${what}`);
    if (await matches()) return;
  }
  throw new Error(`${what} not reached within ${max} Tab presses`);
}

/**
 * Watches, frame by frame, whether focus rests on the page's <body> while the page has focus (a
 * focused control disabled or removed without focus being moved first). A fall is counted when
 * focus stays on <body> for FALL_MS or more: a library that gives focus back in the task after it
 * removes a dialog (Radix does, in a setTimeout) passes even on a loaded machine; a control disabled
 * while its request runs does not (the journey delays every mutation well beyond FALL_MS). Returns
 * a function that stops watching and gives what was focused before each fall.
 */
export async function watchFocusFalls(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const w = window as unknown as { __focusFalls?: string[]; __focusWatch?: boolean };
    w.__focusFalls = [];
    w.__focusWatch = true;
    const FALL_MS = 150;
    let last = '';
    let since: number | null = null;
    let counted = false;
    const describe = (el: Element | null) =>
      el ? `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"` : 'nothing';
    const tick = (now: number) => {
      if (!w.__focusWatch) return;
      const el = document.activeElement;
      const onBody = (!el || el === document.body) && document.hasFocus();
      if (!onBody) {
        since = null;
        counted = false;
        last = describe(el);
      } else if (since === null) since = now;
      else if (!counted && now - since >= FALL_MS) {
        counted = true;
        w.__focusFalls!.push(`after ${last}`);
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  return async () =>
    page.evaluate(() => {
      const w = window as unknown as { __focusFalls?: string[]; __focusWatch?: boolean };
      w.__focusWatch = false;
      return w.__focusFalls ?? [];
    });
}
