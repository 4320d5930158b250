'use client';

import { lazy, Suspense, useEffect, useState, type ComponentProps, type RefObject } from 'react';

/** One thing a row's menu can do: what it says, what it does, and why not where the viewer may not (viewerCan said no). */
export interface RowAction {
  /** Stable within the row: the item's key and its test id (`action-<id>`). */
  id: string;
  /** What the item says: "Rotate…", "Delete…" (an ellipsis where a panel or a dialog asks more). */
  label: string;
  onSelect: () => void;
  /** Set when the viewer may not: the item is disabled and says why. */
  notAllowed?: string | undefined;
  danger?: boolean;
}

/** The "Actions" button, the same whether it stands in for the menu or is the menu's own (Radix's trigger passes its props and ref on). */
export function ActionsButton({ name, ...props }: { name: string } & ComponentProps<'button'>) {
  return (
    <button type="button" className="button secondary row-actions" aria-label={`Actions for ${name}`} {...props}>
      Actions <span aria-hidden="true">▾</span>
    </button>
  );
}

const loadMenu = () => import('./RowActionsMenu');
const RowActionsMenu = lazy(loadMenu);

/**
 * A row's actions behind one "Actions" button (RowActionsMenu: Radix's DropdownMenu). The menu's
 * code is not in the page's first load: it is fetched as soon as a list with actions is drawn,
 * and until it arrives the same button stands in for it. Pressed or focused in that moment, the
 * menu opens, or takes focus, as it arrives: nothing the user did is lost.
 */
export function RowActions({ name, actions, trigger }: { name: string; actions: RowAction[]; trigger?: RefObject<HTMLButtonElement | null> }) {
  const [pressed, setPressed] = useState(false);
  const [focused, setFocused] = useState(false);
  useEffect(() => void loadMenu(), []);
  const standIn = (
    <ActionsButton
      name={name}
      aria-haspopup="menu"
      aria-expanded={false}
      // On pointerdown, as Radix's own button: a press that begins here and ends on the menu's button still opens it.
      onPointerDown={() => setPressed(true)}
      onClick={() => setPressed(true)}
      onFocus={() => setFocused(true)}
      onBlur={() => setFocused(false)}
    />
  );
  return (
    <Suspense fallback={standIn}>
      <RowActionsMenu name={name} actions={actions} trigger={trigger} openAtMount={pressed} focusAtMount={focused} />
    </Suspense>
  );
}
