'use client';

import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';

/**
 * The one confirmation for destructive actions: a modal dialog in which the administrator types the
 * name of what goes away. The trigger is a button; the dialog traps focus (native <dialog>), Escape
 * cancels, and focus returns to the trigger.
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
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const [open, setOpen] = useState(false);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);

  useEffect(() => {
    if (!succeeded) return;
    dialog.current?.close();
    setOpen(false);
    afterSuccess?.();
  }, [succeeded]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (typed !== name) return;
    onConfirm();
  }

  return (
    <>
      <button
        type="button"
        className="button danger"
        aria-label={triggerLabel}
        aria-haspopup="dialog"
        disabled={disabled}
        onClick={() => {
          setTyped('');
          setOpen(true);
        }}
      >
        {triggerText ?? verb}
      </button>
      <dialog ref={dialog} className="confirm" aria-labelledby={`${id}-title`} onClose={() => setOpen(false)}>
        {open ? (
          <form method="post" className="form" onSubmit={onSubmit}>
            <h2 id={`${id}-title`}>
              {verb} {what}?
            </h2>
            <div className="hint-block">{consequence}</div>
            <div className="field">
              <label htmlFor={`${id}-name`}>
                Type <code>{name}</code> to confirm
              </label>
              <input
                id={`${id}-name`}
                type="text"
                autoComplete="off"
                spellCheck={false}
                autoFocus
                value={typed}
                onChange={(event) => setTyped(event.target.value)}
              />
            </div>
            {children}
            <div className="button-row">
              <button type="submit" className="button danger solid" disabled={typed !== name || pending}>
                {pending ? `${verb}…` : `${verb} ${what}`}
              </button>
              <button type="button" className="button secondary" onClick={() => setOpen(false)}>
                Cancel
              </button>
            </div>
          </form>
        ) : null}
      </dialog>
    </>
  );
}
