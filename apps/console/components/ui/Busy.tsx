'use client';

import { useLayoutEffect, useRef, type ButtonHTMLAttributes, type FormHTMLAttributes, type MouseEvent, type RefObject } from 'react';

/**
 * A button whose action is running: aria-disabled, not disabled, so a keyboard user's focus stays on
 * it (the browser drops focus to <body> when the focused control becomes disabled) and a screen
 * reader reads its busy label; a click or Enter while busy does nothing (a submit is not sent twice).
 * `disabled` is for reasons other than being busy (a check that fails, nothing left to do), and is
 * ignored while busy: a reason that changes during the request must not drop focus either.
 */
export function BusyButton({
  busy,
  onClick,
  ref,
  disabled,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { busy: boolean; ref?: RefObject<HTMLButtonElement | null> }) {
  return (
    <button
      {...props}
      ref={ref}
      disabled={!busy && disabled}
      aria-disabled={busy || props['aria-disabled'] || undefined}
      aria-busy={busy || undefined}
      onClick={(event: MouseEvent<HTMLButtonElement>) => {
        if (busy) event.preventDefault();
        else onClick?.(event);
      }}
    />
  );
}

/**
 * For a form whose fields are disabled while it is sent (a fieldset, a value field): when sending
 * starts with focus inside the form, or just fallen from it to <body>, focus moves to the form
 * itself (tabIndex -1) until the answer takes it, so it never rests on <body>.
 */
export function useFocusKeptWhileBusy(form: RefObject<HTMLElement | null>, busy: boolean): void {
  const wasBusy = useRef(false);
  useLayoutEffect(() => {
    const element = form.current;
    const started = busy && !wasBusy.current;
    wasBusy.current = busy;
    if (!started || !element) return;
    const active = document.activeElement;
    if (active === element || !(active === null || active === document.body || element.contains(active))) return;
    if (!element.hasAttribute('tabindex')) element.tabIndex = -1;
    element.focus({ preventScroll: true });
  }, [busy]);
}

/** A form that keeps focus (useFocusKeptWhileBusy) while it is sent; aria-busy says it is. */
export function BusyForm({ busy, ...props }: FormHTMLAttributes<HTMLFormElement> & { busy: boolean }) {
  const form = useRef<HTMLFormElement>(null);
  useFocusKeptWhileBusy(form, busy);
  // method="post" whatever the caller passes (P1: a scriptless submit must never put values in the URL).
  return <form {...props} method="post" ref={form} aria-busy={busy || undefined} />;
}
