'use client';

import * as Toast from '@radix-ui/react-toast';
import { useEffect, useRef } from 'react';

/** How long a toast stays, unless the pointer or focus is on it (Radix pauses the timer then). */
const TOAST_MS = 8000;

export type Note = { id: number; text: string };

/**
 * The toasts themselves, Radix's: each one is announced when it appears, F8 moves focus to the
 * list of them, Escape or × dismisses the focused one, and the timer pauses while the pointer or
 * focus is on them. When the last one goes while focus is among them, focus goes back to where it
 * was before F8 (Radix would leave it on the empty list). A chunk of its own, loaded with the first
 * toast (the first-load budgets).
 */
export default function ToastList({ notes, onDismiss }: { notes: Note[]; onDismiss: (id: number) => void }) {
  const viewport = useRef<HTMLOListElement>(null);
  const before = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const list = viewport.current;
    if (notes.length > 0 || !list?.contains(document.activeElement)) return;
    if (before.current?.isConnected) before.current.focus();
    before.current = null;
  }, [notes.length]);
  return (
    <Toast.Provider duration={TOAST_MS} label="Notification">
      {notes.map((note) => (
        <Toast.Root key={note.id} className="toast" type="foreground" onOpenChange={(open) => (open ? undefined : onDismiss(note.id))}>
          <Toast.Description>{note.text}</Toast.Description>
          <Toast.Close className="button secondary small" aria-label="Dismiss">
            <span aria-hidden="true">×</span>
          </Toast.Close>
        </Toast.Root>
      ))}
      <Toast.Viewport
        ref={viewport}
        className="toasts"
        label="Notifications ({hotkey})"
        data-testid="toasts"
        onFocus={(event) => {
          const from = event.relatedTarget;
          if (from instanceof HTMLElement && !event.currentTarget.contains(from)) before.current = from;
        }}
      />
    </Toast.Provider>
  );
}
