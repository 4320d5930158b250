'use client';

import * as Dialog from '@radix-ui/react-dialog';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useId, useMemo, useState, type KeyboardEvent } from 'react';
import { nextActive } from '../../lib/combobox';
import { paletteOptions, parseCommand, searchQueryOptions, type PaletteOption } from '../../lib/search';

/**
 * Search by name across everything the viewer may read, and act: a modal dialog (Radix's: focus
 * held inside, Escape or a click outside closes, the page behind hidden) holding an ARIA 1.2
 * combobox whose listbox offers "Open …", "Rotate secret …" and "Deploy agent …". Its own chunk,
 * loaded on first open (AppHeader). `onClose(navigated)`: the header returns focus to what opened
 * it unless the palette went somewhere (the new page's focus rule applies then).
 */
export default function CommandPalette({ onClose }: { onClose: (navigated: boolean) => void }) {
  const id = useId();
  const router = useRouter();
  const [input, setInput] = useState('');
  const [typed, setTyped] = useState('');
  const [active, setActive] = useState(0);

  // A request per pause in typing, not per key.
  useEffect(() => {
    const timer = setTimeout(() => setTyped(input), 150);
    return () => clearTimeout(timer);
  }, [input]);

  const command = parseCommand(typed);
  const query = useQuery({ ...searchQueryOptions(command.text, command.kinds), enabled: command.text.length > 0, placeholderData: keepPreviousData });
  const options = useMemo(() => (command.text && query.data ? paletteOptions(query.data, command.verb) : []), [command.text, command.verb, query.data]);
  const current = Math.min(active, options.length - 1);
  const settled = typed === input && !query.isPlaceholderData && !query.isFetching;

  function go(option: PaletteOption) {
    onClose(true);
    router.push(option.href);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((i) => nextActive(Math.min(i, options.length - 1), event.key as 'ArrowDown' | 'ArrowUp', options.length));
    } else if (event.key === 'Enter' && settled && current >= 0 && options[current]) {
      // Only on the answer to what is typed now: mid-typing the list may still be the last text's.
      event.preventDefault();
      go(options[current]!);
    }
  }

  const listId = `${id}-results`;
  const optionId = (index: number) => `${id}-option-${index}`;
  const status = !command.text
    ? 'Type part of a name. Start with “rotate” or “deploy” to act.'
    : query.error
      ? 'Search failed; try again.'
      : query.isPending || !settled
        ? 'Searching…'
        : options.length === 0
          ? `Nothing you may see is named like “${command.text}”.`
          : `${options.length} ${options.length === 1 ? 'result' : 'results'}; arrow keys to choose, Enter to go.`;

  return (
    <Dialog.Root open onOpenChange={(open) => (open ? undefined : onClose(false))}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content
          className="dialog palette"
          aria-describedby={undefined}
          // The header puts focus back (or leaves it to the page the palette went to).
          onCloseAutoFocus={(event) => event.preventDefault()}
        >
          <div className="palette-body">
            <Dialog.Title className="visually-hidden">Search and go</Dialog.Title>
            <input
              type="text"
              role="combobox"
              aria-label="Search namespaces, secrets, configurations, agents and users"
              aria-autocomplete="list"
              aria-expanded={options.length > 0}
              aria-controls={listId}
              aria-activedescendant={options.length > 0 && current >= 0 ? optionId(current) : undefined}
              aria-describedby={`${id}-status`}
              autoComplete="off"
              spellCheck={false}
              placeholder="Search or type a command (rotate …, deploy …)"
              value={input}
              onChange={(event) => {
                setInput(event.target.value);
                setActive(0);
              }}
              onKeyDown={onKeyDown}
            />
            <p id={`${id}-status`} className="hint" role="status">
              {status}
            </p>
            <ul id={listId} role="listbox" aria-label="Results" className="listbox palette-results" hidden={options.length === 0}>
              {options.map((option, index) => (
                <li
                  key={option.key}
                  id={optionId(index)}
                  role="option"
                  aria-selected={index === current}
                  className={index === current ? 'active' : undefined}
                  onMouseDown={(event) => {
                    event.preventDefault();
                    go(option);
                  }}
                  onMouseMove={() => setActive(index)}
                >
                  {/* Read as it is shown: "Deploy agent my-bot in team". */}
                  <span className="palette-kind">{option.action}</span> <strong>{option.name}</strong>
                  {option.where ? <span className="palette-where"> in {option.where}</span> : null}
                </li>
              ))}
            </ul>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
