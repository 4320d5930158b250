import type { ReactNode } from 'react';

/** A wide table scrolls inside its own box on a narrow screen, so the page never scrolls sideways.
 * The box is focusable (and named) so a keyboard user can scroll it too. */
export function ScrollTable({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
