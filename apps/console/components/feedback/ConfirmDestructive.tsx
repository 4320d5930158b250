'use client';

import { lazy, Suspense, useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';

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
  opener,
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
  /** Opened from elsewhere (a row's menu): no button of its own; focus goes back to `trigger` on Escape or Cancel. */
  opener?: { open: boolean; close: () => void; trigger: RefObject<HTMLButtonElement | null> } | undefined;
}) {
  const own = useRef<HTMLButtonElement>(null);
  const trigger = opener?.trigger ?? own;
  // Open, and whether this opening ended in a success (which closes the dialog).
  const [ownOpen, setOwnOpen] = useState(false);
  const open = opener ? opener.open : ownOpen;
  const [done, setDone] = useState(false);
  useEffect(() => {
    if (succeeded && open) setDone(true);
  }, [succeeded]);
  // Closed (Cancel, Escape, or after a success): the next opening starts undone, whoever opens it.
  const close = () => {
    setDone(false);
    if (opener) opener.close();
    else setOwnOpen(false);
  };

  return (
    <>
      {opener ? null : (
        <button
          ref={own}
          type="button"
          className="button danger"
          aria-label={triggerLabel}
          aria-haspopup="dialog"
          aria-expanded={open && !done}
          disabled={disabled}
          // The dialog's code is fetched while the pointer or focus is on the way to a click.
          onPointerEnter={() => void loadDialog()}
          onFocus={() => void loadDialog()}
          onClick={() => setOwnOpen(true)}
        >
          {triggerText ?? verb}
        </button>
      )}
      {open ? (
        <Suspense fallback={null}>
          <ConfirmDestructiveDialog
            verb={verb}
            name={name}
            what={what}
            consequence={consequence}
            pending={pending}
            onConfirm={onConfirm}
            onCancel={close}
            succeeded={done}
            trigger={trigger}
            afterSuccess={() => {
              close();
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
