'use client';

import { useState } from 'react';

/** An id to paste elsewhere (a grant, kubectl, a ticket): shown in full, with a copy button. */
export function CopyId({ value, label, codeClassName }: { value: string; label?: string; codeClassName?: string }) {
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
      <code className={codeClassName}>{value}</code>
      <button type="button" className="copy-button" aria-label={`Copy ${label ?? value}`} onClick={() => void copy()}>
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select to copy' : 'Copy'}
      </button>
    </span>
  );
}
