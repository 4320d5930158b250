'use client';

import { useState } from 'react';

/**
 * An id to paste elsewhere (a grant, kubectl, a ticket), with a copy button. In a table it is cut
 * to its start (CSS; hover shows it whole, the button copies it whole). `idle` names the button
 * and `hidden` leaves the value out of the page: a reference document copied, not read.
 */
export function CopyId({ value, label, codeClassName, idle = 'Copy', hidden = false }: { value: string; label?: string; codeClassName?: string; idle?: string; hidden?: boolean }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2000);
  }
  return (
    <span className="copy-id">
      {hidden ? null : (
        <code className={codeClassName} title={value}>
          {value}
        </code>
      )}
      <button type="button" className="copy-button" aria-label={`Copy ${label ?? value}`} onClick={() => void copy()}>
        {state === 'copied' ? 'Copied' : state === 'failed' && !hidden ? 'Select to copy' : state === 'failed' ? 'Copy failed' : idle}
      </button>
    </span>
  );
}
