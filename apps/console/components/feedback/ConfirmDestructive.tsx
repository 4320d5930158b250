'use client';

import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';

const loadDialog = () => import('./ConfirmDestructiveDialog');
const ConfirmDestructiveDialog = lazy(loadDialog);

/**
 * The one confirmation for destructive actions: a button that opens an alert dialog in which the
 * administrator types the name of what goes away (ConfirmDestructiveDialog, Radix's). Escape and
 * Cancel close it and focus returns to the button; after a success `afterSuccess` places focus
 * instead (the button's row may be gone).
 */
export function ConfirmDestructive({
  verb,
  name,
  what,
  consequence,
  triggerLabel,
  triggerText,
  pending,
  onConfirm,
  children,
  disabled,
  succeeded,
  afterSuccess,
}: {
  /** "Delete", "Revoke", "Disable". */
  verb: string;
  /** What must be typed. */
  name: string;
  /** "secret model-token": shown in the title. */
  what: string;
  consequence: ReactNode;
  /** The trigger's accessible name, e.g. "Delete model-token". */
  triggerLabel: string;
  triggerText?: string;
  pending: boolean;
  onConfirm: () => void;
  /** The answer (an error alert), shown inside the dialog. */
  children?: ReactNode;
  disabled?: boolean;
  /** Set once the action succeeded: the dialog closes, then `afterSuccess` runs (focus can leave it then). */
  succeeded?: boolean;
  afterSuccess?: () => void;
}) {
  const trigger = useRef<HTMLButtonElement>(null);
  // Open, and whether this opening ended in a success (which closes the dialog).
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState(false);
  useEffect(() => {
    if (succeeded && open) setDone(true);
  }, [succeeded]);

  return (
    <>
      <button
        ref={trigger}
        type="button"
        className="button danger"
        aria-label={triggerLabel}
        aria-haspopup="dialog"
        aria-expanded={open && !done}
        disabled={disabled}
        // The dialog's code is fetched while the pointer or focus is on the way to a click.
        onPointerEnter={() => void loadDialog()}
        onFocus={() => void loadDialog()}
        onClick={() => {
          setDone(false);
          setOpen(true);
        }}
      >
        {triggerText ?? verb}
      </button>
      {open ? (
        <Suspense fallback={null}>
          <ConfirmDestructiveDialog
            verb={verb}
            name={name}
            what={what}
            consequence={consequence}
            pending={pending}
            onConfirm={onConfirm}
            onCancel={() => setOpen(false)}
            succeeded={done}
            trigger={trigger}
            afterSuccess={() => {
              setOpen(false);
              afterSuccess?.();
            }}
          >
            {children}
          </ConfirmDestructiveDialog>
        </Suspense>
      ) : null}
    </>
  );
}
