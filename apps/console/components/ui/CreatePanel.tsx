'use client';

import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/**
 * The create form of a list, behind a button: the list is what an administrator comes for most
 * of the time. Opening moves focus to the form's first field; closing returns it to the button.
 */
export function CreatePanel({ label, children, defaultOpen = false }: { label: string; children: ReactNode; defaultOpen?: boolean }) {
  const id = useId();
  const [open, setOpen] = useState(defaultOpen);
  const [moved, setMoved] = useState(false);
  const panel = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!moved) return;
    if (open) panel.current?.querySelector<HTMLElement>('input:not([type=hidden]), select, textarea')?.focus();
    else button.current?.focus();
  }, [open, moved]);
  return (
    <div className="create-panel">
      <div className="button-row">
        <button
          ref={button}
          type="button"
          className={`button ${open ? 'secondary' : 'primary'}`}
          aria-expanded={open}
          aria-controls={`${id}-panel`}
          onClick={() => {
            setMoved(true);
            setOpen((value) => !value);
          }}
        >
          {label}
        </button>
      </div>
      <div id={`${id}-panel`} ref={panel} hidden={!open}>
        {open ? children : null}
      </div>
    </div>
  );
}
