import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

// Which fields a list's rows will be asked for, so that its one statement reads the columns those
// fields need and no more (issue 13: a page of configurations read every row's values document and
// bindings whether or not they were asked for). It errs one way only: anything it cannot rule out
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
