'use client';

import { usePathname, useSearchParams } from 'next/navigation';
import { useEffect, useRef } from 'react';
import { focusHashTarget, focusMainHeading } from '../../lib/focus';

/**
 * After a client-side navigation focus would stay on the link that was clicked (or drop to the
 * body): move it to the new page's main heading, as a full page load would start at the top. The
 * first render is left alone, so a deep link's own focus (the skip link, autofocus) stands, unless
 * the address names a section (`#deploy`, as the command palette's actions do): focus goes there,
 * once it has rendered.
 */
export function RouteFocus() {
  const pathname = usePathname();
  const params = useSearchParams();
  // A new page is a new path or a new object (namespace, id); a filter or a prefilled field is not.
  const page = `${pathname}?${params.get('namespace') ?? ''}&${params.get('id') ?? ''}`;
  const first = useRef(true);
  useEffect(() => {
    const hash = window.location.hash;
    if (first.current) {
      first.current = false;
      if (!hash) return;
    }
    // The heading (or the section) may render a moment later (the screen's first query): wait for
    // it, briefly; a section that never comes leaves focus on the heading.
    let tries = 0;
    const timer = setInterval(() => {
      tries += 1;
      if (hash && focusHashTarget(hash)) clearInterval(timer);
      else if ((!hash && document.querySelector('main h1')) || tries > 80) {
        clearInterval(timer);
        focusMainHeading();
      }
    }, 25);
    return () => clearInterval(timer);
  }, [page]);
  return null;
}
