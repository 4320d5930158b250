'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FocusEvent, type KeyboardEvent } from 'react';
import { useCan } from '../../lib/can';
import { nextActive } from '../../lib/combobox';
import { secretOptionsQueryOptions, secretSearchPrefix, type SecretOption } from '../../lib/secrets';
import { describeRequestError } from '../feedback/FormOutcome';
import { InlineCreateSecret } from './InlineCreateSecret';

/** What a picker holds: the secret's id (what the API takes) and, when readable, its name. */
export type PickedSecret = { id: string; name: string | null };

type Option = { kind: 'secret'; secret: SecretOption } | { kind: 'create'; name: string };

const SEARCH_PAUSE_MS = 250;

/**
 * Chooses one secret of a namespace: an editable combobox (ARIA 1.2) whose listbox shows the first
 * page of secrets whose name starts with what was typed, asked of the API after a short pause, so it
 * works the same with thousands of secrets. Focus stays in the input; the arrow keys move the active
 * option, Enter chooses it, Escape closes. When nothing is called what was typed, the last option
 * offers to create it here (InlineCreateSecret), and the new secret is chosen.
 */
export function SecretPicker({
  namespaceId,
  label,
  hideLabel = false,
  value,
  onChange,
  required,
  invalid,
  disabled,
  allowCreate = true,
}: {
  namespaceId: string;
  label: string;
  /** In a table row whose column header already says "Secret". */
  hideLabel?: boolean;
  value: PickedSecret | null;
  onChange: (secret: PickedSecret | null) => void;
  required?: boolean;
  invalid?: boolean;
  disabled?: boolean;
  /** Offer "Create secret …" (a binding may name a secret that does not exist yet; a grant may not). */
  allowCreate?: boolean;
}) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState(() => value?.name ?? value?.id ?? '');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [prefix, setPrefix] = useState(() => secretSearchPrefix(text));
  const [creating, setCreating] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const mayCreate = useCan('create', 'secret', namespaceId);

  // Ask the API only after typing pauses; the list shows nothing stale meanwhile.
  const typed = secretSearchPrefix(text);
  useEffect(() => {
    if (typed === prefix) return;
    const timer = setTimeout(() => setPrefix(typed), SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [typed, prefix]);
  const query = useQuery({ ...secretOptionsQueryOptions(namespaceId, prefix), enabled: open });
  // A failed search shows its error until Retry; while it runs again the popup says it is searching.
  const failed = query.isError && !query.isFetching;
  const settled = typed === prefix && query.isSuccess;
  const page = settled ? query.data : undefined;

  const wanted = text.trim();
  const options: Option[] = (page?.items ?? []).map((secret) => ({ kind: 'secret', secret }));
  if (allowCreate && settled && wanted !== '' && mayCreate && !options.some((o) => o.kind === 'secret' && o.secret.name === wanted)) {
    options.push({ kind: 'create', name: wanted });
  }
  const secretCount = page?.items.length ?? 0;
  const loading = open && !failed && !settled;
  const expanded = open && !disabled;

  // Typed but not chosen is not a choice: the form's own validation says so before anything is sent.
  useEffect(() => {
    const unchosen = !value && (required || wanted !== '');
    input.current?.setCustomValidity(unchosen ? 'Choose a secret from the list.' : '');
  }, [value, required, wanted]);

  // The active option stays in view while the arrow keys move it.
  const listId = `${id}-listbox`;
  const optionId = (index: number) => `${id}-option-${index}`;
  useEffect(() => {
    if (expanded && active >= 0) document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  });

  function close() {
    setOpen(false);
    setActive(-1);
  }

  function choose(option: Option) {
    close();
    if (option.kind === 'create') {
      setCreating(option.name);
      return;
    }
    const { secret } = option;
    setText(secret.name);
    setAnnouncement(`Chosen: ${secret.name}, version ${secret.version}.`);
    onChange({ id: secret.id, name: secret.name });
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!open) {
        setOpen(true);
        setActive(-1);
        // Alt+ArrowDown only opens; a plain arrow opens and moves as soon as options are there.
        if (event.altKey) return;
      }
      setActive((index) => nextActive(index, event.key as 'ArrowDown' | 'ArrowUp', options.length));
    } else if (event.key === 'Enter' && expanded) {
      // Enter in an open list chooses; it never submits the form around the picker.
      event.preventDefault();
      const option = options[active] ?? options.find((o) => o.kind === 'secret' && o.secret.name === wanted);
      if (option) choose(option);
    } else if (event.key === 'Escape' && expanded) {
      event.preventDefault();
      event.stopPropagation();
      close();
    }
  }

  // The popup closes when focus leaves the picker, not when it moves to the popup's retry button.
  function onBlur(event: FocusEvent<HTMLDivElement>) {
    if (!event.currentTarget.contains(event.relatedTarget as Node | null)) close();
  }

  const inputId = `${id}-input`;
  const statusId = `${id}-status`;
  return (
    <div className="field picker" onBlur={onBlur}>
      <label htmlFor={inputId} className={hideLabel ? 'visually-hidden' : undefined}>
        {label}
      </label>
      <div className="picker-anchor">
        <input
          ref={input}
          id={inputId}
          type="text"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={expanded}
          aria-controls={listId}
          aria-activedescendant={expanded && active >= 0 && options[active] ? optionId(active) : undefined}
          aria-describedby={statusId}
          aria-invalid={invalid || undefined}
          autoComplete="off"
          spellCheck={false}
          placeholder="Search secrets…"
          value={text}
          disabled={disabled}
          onChange={(event) => {
            setText(event.target.value);
            setOpen(true);
            setActive(-1);
            if (value) onChange(null);
            setAnnouncement('');
          }}
          onClick={() => setOpen(true)}
          onKeyDown={onKeyDown}
        />
        <div className="picker-popup" hidden={!expanded} data-testid="secret-picker-popup">
          <ul id={listId} role="listbox" aria-label={`${label}: matching secrets`} aria-busy={loading || undefined} className="picker-options">
            {expanded
              ? options.map((option, index) => (
                  <li
                    key={option.kind === 'secret' ? option.secret.id : 'create'}
                    id={optionId(index)}
                    role="option"
                    aria-selected={index === active}
                    className={[index === active ? 'active' : '', option.kind === 'create' ? 'create' : ''].join(' ').trim() || undefined}
                    // mousedown, not click: the input keeps focus, and its blur does not close the list first.
                    onMouseDown={(event) => {
                      event.preventDefault();
                      choose(option);
                    }}
                  >
                    {option.kind === 'secret' ? (
                      <>
                        <span className="picker-name">{option.secret.name}</span>{' '}
                        <span className="picker-version">v{option.secret.version}</span>
                      </>
                    ) : (
                      <>Create secret “{option.name}”…</>
                    )}
                  </li>
                ))
              : null}
          </ul>
          {expanded ? (
            <PopupState
              loading={loading}
              error={failed ? query.error : null}
              retry={() => {
                void query.refetch();
                input.current?.focus();
              }}
              prefix={prefix}
              secretCount={secretCount}
              totalCount={page?.totalCount ?? 0}
            />
          ) : null}
        </div>
      </div>
      <p id={statusId} className="hint picker-status" role="status">
        {announcement}
      </p>
      {creating !== null ? (
        <InlineCreateSecret
          namespaceId={namespaceId}
          initialName={creating}
          onCreated={(secret) => {
            setCreating(null);
            setText(secret.name);
            setAnnouncement(`Created ${secret.name} and chose it.`);
            onChange({ id: secret.id, name: secret.name });
            input.current?.focus();
          }}
          onCancel={() => {
            setCreating(null);
            input.current?.focus();
          }}
        />
      ) : null}
    </div>
  );
}

/** What the popup says besides its options: searching, failed (with retry), no match, or more than one page. */
function PopupState({
  loading,
  error,
  retry,
  prefix,
  secretCount,
  totalCount,
}: {
  loading: boolean;
  error: Error | null;
  retry: () => void;
  prefix: string | null;
  secretCount: number;
  totalCount: number;
}) {
  if (error) {
    return (
      <div role="alert" className="picker-note error">
        <p>Could not search the secrets: {describeRequestError(error.message)}</p>
        <button type="button" className="button secondary small" onClick={retry}>
          Retry
        </button>
      </div>
    );
  }
  if (loading) return <p className="picker-note">Searching…</p>;
  if (secretCount === 0) {
    return <p className="picker-note">{prefix ? `No secret’s name starts with “${prefix}”.` : 'This namespace has no secrets yet.'}</p>;
  }
  if (totalCount > secretCount) {
    return (
      <p className="picker-note">
        The first {secretCount} of {totalCount}: type more of the name to narrow.
      </p>
    );
  }
  return null;
}
