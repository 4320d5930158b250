import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

// Which fields a list's rows will be asked for, so that its one statement reads the columns those
// fields need and no more (before it, a page of configurations read every row's values document
// and bindings whether or not they were asked for). It errs one way only: anything it cannot rule out
// (a fragment, an alias, a field under @skip or @include) counts as asked for, so a list may read
// a column it did not need but never lacks one it does.

/**
 * Whether the field being resolved selects `path` (field names, each below the last), through any
 * fragments and aliases: `selects(info, ['edges', 'node', 'values'])`.
 */
export function selects(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>, path: readonly string[]): boolean {
  return info.fieldNodes.some((node) => node.selectionSet !== undefined && within(info, node.selectionSet, path, new Set()));
}

function within(info: Pick<GraphQLResolveInfo, 'fragments'>, set: SelectionSetNode, path: readonly string[], seen: Set<string>): boolean {
  const [name, ...rest] = path;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value !== name) continue;
      if (rest.length === 0) return true;
      if (selection.selectionSet && within(info, selection.selectionSet, rest, seen)) return true;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (within(info, selection.selectionSet, path, seen)) return true;
    } else {
      const fragment = info.fragments[selection.name.value];
      // A fragment met again on this path adds nothing (validation refuses cycles anyway).
      if (!fragment || seen.has(fragment.name.value)) continue;
      if (within(info, fragment.selectionSet, path, new Set([...seen, fragment.name.value]))) return true;
    }
  }
  return false;
}

/**
 * The names of the fields selected directly below `path` (through fragments and aliases; aliased
 * fields by their own names): `fieldsAt(info, ['edges', 'node'])` is what each node is asked for.
 * Empty when `path` itself is not selected.
 */
export function fieldsAt(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>, path: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const node of info.fieldNodes) if (node.selectionSet) collect(info, node.selectionSet, path, names, new Set());
  return names;
}

function collect(info: Pick<GraphQLResolveInfo, 'fragments'>, set: SelectionSetNode, path: readonly string[], names: Set<string>, seen: Set<string>): void {
  const [name, ...rest] = path;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (name === undefined) names.add(selection.name.value);
      else if (selection.name.value === name && selection.selectionSet) collect(info, selection.selectionSet, rest, names, seen);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      collect(info, selection.selectionSet, path, names, seen);
    } else {
      const fragment = info.fragments[selection.name.value];
      if (!fragment || seen.has(fragment.name.value)) continue;
      collect(info, fragment.selectionSet, path, names, new Set([...seen, fragment.name.value]));
    }
  }
}
