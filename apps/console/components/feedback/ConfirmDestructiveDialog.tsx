'use client';

import * as AlertDialog from '@radix-ui/react-alert-dialog';
import { useId, useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react';
import { BusyForm } from '../ui/Busy';

export type ConfirmDestructiveDialogProps = {
  verb: string;
  name: string;
  what: string;
  consequence: ReactNode;
  pending: boolean;
  onConfirm: () => void;
  children?: ReactNode;
  /** Closed by Escape or Cancel: the owner sets its state; focus then goes back to `trigger`. */
  onCancel: () => void;
  /** Open until the action succeeds: then focus is `afterSuccess`'s to place, not the trigger's. */
  succeeded: boolean;
  trigger: RefObject<HTMLButtonElement | null>;
  afterSuccess: () => void;
};

/**
 * ConfirmDestructive's dialog, a chunk of its own loaded when the trigger is first pointed at,
 * focused or pressed (the first-load budgets): Radix's alert dialog, the WAI-ARIA alertdialog
 * pattern. Focus is held inside and starts on the name field, the page behind is hidden from
 * assistive technology, Escape and Cancel close it, a click outside does not (nothing destructive
 * is dismissed by accident).
 */
export default function ConfirmDestructiveDialog({
  verb,
  name,
  what,
  consequence,
  pending,
  onConfirm,
  children,
  onCancel,
  succeeded,
  trigger,
  afterSuccess,
}: ConfirmDestructiveDialogProps) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const field = useRef<HTMLInputElement>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (typed !== name) return;
    onConfirm();
  }

  return (
    <AlertDialog.Root open={!succeeded} onOpenChange={(open) => (open ? undefined : onCancel())}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content
          className="dialog confirm"
          aria-describedby={undefined}
          // Focus starts on the name to type (Radix's alert dialog would start on Cancel).
          onOpenAutoFocus={(event) => {
            event.preventDefault();
            field.current?.focus();
          }}
          onCloseAutoFocus={(event) => {
            // There is no Radix trigger (the button is in the page's first load): put focus back by hand.
            event.preventDefault();
            if (succeeded) afterSuccess();
            else trigger.current?.focus();
          }}
        >
          <BusyForm busy={pending} method="post" className="form" onSubmit={onSubmit}>
            <AlertDialog.Title>
              {verb} {what}?
            </AlertDialog.Title>
            <div className="hint-block">{consequence}</div>
            <div className="field">
              <label htmlFor={`${id}-name`}>
                Type <code>{name}</code> to confirm
              </label>
              <input
                ref={field}
                id={`${id}-name`}
                type="text"
                autoComplete="off"
                spellCheck={false}
                value={typed}
                onChange={(event) => setTyped(event.target.value)}
              />
            </div>
            {children}
            <div className="button-row">
              <button type="submit" className="button danger solid" disabled={typed !== name || pending}>
                {pending ? `${verb}…` : `${verb} ${what}`}
              </button>
              <AlertDialog.Cancel className="button secondary">Cancel</AlertDialog.Cancel>
            </div>
          </BusyForm>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
