'use client';

import { useId, useMemo, useState, type KeyboardEvent } from 'react';
import { nextActive } from '../../lib/combobox';

export type PrincipalOption = { id: string; label: string };

/**
 * The subject field: type an id or a name; the matching principals (users, this namespace's agents,
 * the bootstrap principal) are offered in a listbox reachable with the arrow keys (the ARIA 1.2
 * combobox pattern; a datalist's suggestions are not keyboard-reachable in every browser). The field
 * holds the id, which is what the API takes; the chosen principal's name is shown beside it.
 */
export function SubjectPicker({
  label,
  name,
  principals,
  initialValue = '',
  required,
  invalid,
  hint,
  onChange,
}: {
  label: string;
  name: string;
  principals: PrincipalOption[];
  initialValue?: string;
  required?: boolean;
  invalid?: boolean;
  hint?: string;
  onChange?: (value: string) => void;
}) {
  const id = useId();
  const [value, setValue] = useState(initialValue);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);

  const matches = useMemo(() => {
    const text = value.trim().toLowerCase();
    const list = text ? principals.filter((p) => p.id.toLowerCase().includes(text) || p.label.toLowerCase().includes(text)) : principals;
    return list.slice(0, 50);
  }, [principals, value]);
  const chosen = principals.find((p) => p.id === value.trim());
  const expanded = open && matches.length > 0 && !(matches.length === 1 && matches[0]!.id === value);

  function set(next: string) {
    setValue(next);
    onChange?.(next);
  }

  function choose(option: PrincipalOption) {
    set(option.id);
    setOpen(false);
    setActive(-1);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setOpen(true);
      setActive((i) => nextActive(i, event.key as 'ArrowDown' | 'ArrowUp', matches.length));
    } else if (event.key === 'Enter' && expanded && active >= 0 && matches[active]) {
      // Choosing an option must not submit the form.
      event.preventDefault();
      choose(matches[active]!);
    } else if (event.key === 'Escape' && expanded) {
      event.preventDefault();
      setOpen(false);
      setActive(-1);
    }
  }

  const listId = `${id}-listbox`;
  const optionId = (index: number) => `${id}-option-${index}`;
  return (
    <div className="field combobox">
      <label htmlFor={`${id}-input`}>{label}</label>
      <input
        id={`${id}-input`}
        name={name}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-activedescendant={expanded && active >= 0 ? optionId(active) : undefined}
        aria-describedby={`${id}-chosen`}
        aria-invalid={invalid || undefined}
        required={required}
        autoComplete="off"
        spellCheck={false}
        placeholder="Name or id (spn_…, prn_…)"
        value={value}
        onChange={(event) => {
          set(event.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
      />
      <ul id={listId} role="listbox" aria-label={`${label} suggestions`} className="listbox" hidden={!expanded}>
        {expanded
          ? matches.map((option, index) => (
              <li
                key={option.id}
                id={optionId(index)}
                role="option"
                aria-selected={index === active}
                className={index === active ? 'active' : undefined}
                data-value={option.id}
                // mousedown, not click: the input's blur would close the list first.
                onMouseDown={(event) => {
                  event.preventDefault();
                  choose(option);
                }}
              >
                {option.label} <code>{option.id}</code>
              </li>
            ))
          : null}
      </ul>
      <p id={`${id}-chosen`} className="hint">
        {chosen ? `Chosen: ${chosen.label}.` : (hint ?? 'Type to search, arrow keys to choose.')}
      </p>
    </div>
  );
}
