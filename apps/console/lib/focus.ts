/** Where focus goes when the thing it was on is gone or the page changed: the page's main heading. */
export function focusMainHeading(): void {
  const heading = document.querySelector<HTMLElement>('main h1');
  if (!heading) return;
  if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
  heading.focus();
}

/**
 * The element a link's #hash names (a section: `/agents?…#deploy`), focused at its heading so a
 * screen reader reads where it landed; false while it has not rendered yet.
 */
export function focusHashTarget(hash: string): boolean {
  const name = hash.replace(/^#/, '');
  if (!name) return false;
  const target = document.getElementById(decodeURIComponent(name));
  if (!target) return false;
  const heading = target.querySelector<HTMLElement>('h1, h2, h3') ?? target;
  if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
  heading.focus();
  heading.scrollIntoView({ block: 'start' });
  return true;
}
