import { queryOptions } from '@tanstack/react-query';
import { objectHref } from './audit';
import { gql, graphql, type ResultOf } from './graphql';
import { namespaceHref } from './namespace-links';

// The command palette's data (components/layout/CommandPalette.tsx): `search(text:)` finds names
// the viewer may read across kinds; each hit becomes the options to open it and, for secrets and
// agents, to act on it ("Rotate secret …", "Deploy agent …"). Typing the verb first ("deploy tel")
// searches that kind only and offers only that action.

export const SearchQuery = gql(`
  query Search($text: String!, $kinds: [SearchKind!], $first: Int) {
    search(text: $text, kinds: $kinds, first: $first) { kind id name match namespaceId namespace { id name } }
  }
`);

export type SearchHit = ResultOf<typeof SearchQuery>['search'][number];
type SearchKind = SearchHit['kind'];

export const searchKeys = { all: ['search'] as const, text: (text: string, kinds: readonly SearchKind[] | null) => ['search', text, kinds] as const };

export function searchQueryOptions(text: string, kinds: readonly SearchKind[] | null) {
  return queryOptions({
    queryKey: searchKeys.text(text, kinds),
    queryFn: async ({ signal }) => (await graphql(SearchQuery, { text, kinds: kinds ? [...kinds] : null, first: 20 }, signal)).search,
    staleTime: 10_000,
  });
}

export type Verb = 'rotate' | 'deploy';
const VERBS: Record<Verb, SearchKind> = { rotate: 'SECRET', deploy: 'AGENT' };

/** The typed text as a search: a leading verb ("rotate", "deploy") narrows it to that kind and action. */
export function parseCommand(input: string): { text: string; verb: Verb | null; kinds: SearchKind[] | null } {
  const match = /^\s*(rotate|deploy)(?:\s+(.*))?$/i.exec(input);
  if (match) {
    const verb = match[1]!.toLowerCase() as Verb;
    return { text: (match[2] ?? '').trim(), verb, kinds: [VERBS[verb]] };
  }
  return { text: input.trim(), verb: null, kinds: null };
}

export interface PaletteOption {
  key: string;
  /** What the option does: "Open secret telegram-token" (its action, then the name). */
  label: string;
  /** The label's first part, shown before the name: "Open secret", "Rotate secret", "Deploy agent". */
  action: string;
  kind: string;
  name: string;
  /** Where it is: the namespace's name, or nothing. */
  where: string | null;
  href: string;
}

const KIND_LABEL: Record<SearchKind, string> = { NAMESPACE: 'namespace', SECRET: 'secret', CONFIGURATION: 'configuration', AGENT: 'agent', USER: 'user' };

/** Where a hit opens: its page (objects of a namespace need the namespace's id), a user's audit trail. */
export function hitHref(hit: Pick<SearchHit, 'kind' | 'id' | 'namespaceId'>): string | null {
  if (hit.kind === 'USER') return `/audit?${new URLSearchParams({ actorId: hit.id })}`;
  return objectHref(hit.id, hit.namespaceId);
}

/** The options for a search's hits: open each, and the actions on secrets and agents (only the verb's, when one was typed). */
export function paletteOptions(hits: readonly SearchHit[], verb: Verb | null): PaletteOption[] {
  const options: PaletteOption[] = [];
  for (const hit of hits) {
    const kind = KIND_LABEL[hit.kind];
    const where = hit.namespace?.name ?? null;
    const open = hitHref(hit);
    if (!open) continue;
    const base = { kind, name: hit.name, where };
    if (!verb) options.push({ ...base, key: `open:${hit.id}`, action: `Open ${kind}`, label: `Open ${kind} ${hit.name}`, href: open });
    if (hit.kind === 'SECRET' && hit.namespaceId && (verb === null || verb === 'rotate')) {
      options.push({ ...base, key: `rotate:${hit.id}`, action: 'Rotate secret', label: `Rotate secret ${hit.name}`, href: `${namespaceHref('secrets', hit.namespaceId, { id: hit.id, rotate: '1' })}#rotate` });
    }
    if (hit.kind === 'AGENT' && hit.namespaceId && (verb === null || verb === 'deploy')) {
      options.push({ ...base, key: `deploy:${hit.id}`, action: 'Deploy agent', label: `Deploy agent ${hit.name}`, href: `${namespaceHref('agents', hit.namespaceId, { id: hit.id })}#deploy` });
    }
  }
  return options;
}
