'use client';

import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { useEffect, useId, useRef, type RefObject } from 'react';
import { ActionsButton, type RowAction } from './RowActions';

/**
 * RowActions' menu, a chunk of its own (Radix's DropdownMenu with its positioning is about 30 kB
 * compressed, more than the row's whole table), the WAI-ARIA menu button pattern: arrow keys
 * move between items, Enter or Space chooses, Escape and Tab close it, and focus goes back to the
 * button. An item the viewer may not use stays in the menu, refused, with the reason under it.
 * Not modal: an item that opens a dialog or a panel hands focus on without a layer in between.
 */
export default function RowActionsMenu({
  name,
  actions,
  trigger,
  openAtMount,
  focusAtMount,
}: {
  name: string;
  actions: RowAction[];
  trigger?: RefObject<HTMLButtonElement | null> | undefined;
  /** The button stood in for was pressed before this chunk arrived: open as it mounts. */
  openAtMount: boolean;
  /** The button stood in for had focus: this one takes it. */
  focusAtMount: boolean;
}) {
  const id = useId();
  const own = useRef<HTMLButtonElement>(null);
  const button = trigger ?? own;
  useEffect(() => {
    if (focusAtMount && !openAtMount) button.current?.focus();
  }, []);
  return (
    <DropdownMenu.Root modal={false} defaultOpen={openAtMount}>
      <DropdownMenu.Trigger asChild>
        <ActionsButton ref={button} name={name} />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className="menu" align="end" sideOffset={4} collisionPadding={8} aria-label={`Actions for ${name}`}>
          {actions.map((action) => (
            <DropdownMenu.Item
              key={action.id}
              className={action.danger ? 'menu-item danger' : 'menu-item'}
              data-testid={`action-${action.id}`}
              // Refused, not disabled: it stays reachable by the arrow keys (the WAI-ARIA menu pattern),
              // its reason is read with it, and choosing it does nothing and leaves the menu open.
              aria-disabled={action.notAllowed === undefined ? undefined : true}
              aria-describedby={action.notAllowed === undefined ? undefined : `${id}-${action.id}`}
              onSelect={action.notAllowed === undefined ? action.onSelect : (event) => event.preventDefault()}
              // Named by its label alone; the reason is its description.
              aria-labelledby={`${id}-${action.id}-label`}
            >
              <span id={`${id}-${action.id}-label`}>{action.label}</span>
              {action.notAllowed === undefined ? null : (
                <span id={`${id}-${action.id}`} className="menu-reason">
                  {action.notAllowed}
                </span>
              )}
            </DropdownMenu.Item>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
