'use client';

import { useState } from 'react';

/** A plaintext API key the server returns exactly once: shown with a copy button and the warning. */
export function OneTimeKey({ label, apiKey }: { label: string; apiKey: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);

  async function copy() {
    try {
      await navigator.clipboard.writeText(apiKey);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  }

  return (
    <div role="status" className="alert success">
      <p>
        <strong>{label}</strong> Copy it now: it will not be shown again.
      </p>
      <p className="button-row">
        <span className="visually-hidden">New API key: </span>
        <code>{apiKey}</code>
        <button type="button" className="button secondary" onClick={() => void copy()}>
          Copy key
        </button>
        {copied === 'yes' ? <span className="hint">Copied.</span> : null}
        {copied === 'failed' ? <span className="hint">Copy failed: select the key and copy it by hand.</span> : null}
      </p>
    </div>
  );
}
