'use client';

import { useId, type ReactNode } from 'react';

/** Why the viewer may not do `verb` to what they can read: the permission it needs, on which kind (viewerCan said no). */
export function notAllowedReason(name: string, verb: string, permission: string, kind: string): string {
  return `You may read ${name} but not ${verb} it: that needs ${permission} on the ${kind}.`;
}

/**
 * A control the viewer may not use (viewerCan said no): shown, so the screen keeps its shape, but
 * disabled with the reason. aria-disabled rather than disabled, so it stays in the tab order and a
 * screen reader reads the reason with it; a click does nothing.
 */
export function NotAllowedButton({ label, reason, children }: { label: string; reason: string; children: ReactNode }) {
  const reasonId = useId();
  return (
    <>
      <button type="button" className="button secondary" aria-disabled="true" aria-label={label} aria-describedby={reasonId} title={reason} onClick={(event) => event.preventDefault()}>
        {children}
      </button>
      <span id={reasonId} className="visually-hidden">
        {reason}
      </span>
    </>
  );
}
