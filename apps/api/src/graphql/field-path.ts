import { Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

// P1 for log lines: an error's response path is made of response keys, and a response key is the
// alias when the client wrote one. The log gets the schema's field names instead, found by
// following the path through the operation's selections (fragments included); list indexes stay.

function fieldsAnswering(key: string, set: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, seen: Set<string>): FieldNode[] {
  const out: FieldNode[] = [];
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if ((selection.alias ?? selection.name).value === key) out.push(selection);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      out.push(...fieldsAnswering(key, selection.selectionSet, fragments, seen));
    } else if (!seen.has(selection.name.value)) {
      const fragment = fragments.get(selection.name.value);
      if (fragment) out.push(...fieldsAnswering(key, fragment.selectionSet, fragments, new Set([...seen, selection.name.value])));
    }
  }
  return out;
}

/** `path` with each response key replaced by the name of the field that answers it; `?` where none does. */
export function fieldPath(document: DocumentNode, operation: OperationDefinitionNode, path: ReadonlyArray<string | number>): Array<string | number> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  let sets: SelectionSetNode[] = [operation.selectionSet];
  const out: Array<string | number> = [];
  for (const key of path) {
    if (typeof key === 'number') {
      out.push(key);
      continue;
    }
    const fields = sets.flatMap((set) => fieldsAnswering(key, set, fragments, new Set()));
    out.push(fields[0]?.name.value ?? '?');
    sets = fields.flatMap((field) => (field.selectionSet ? [field.selectionSet] : []));
  }
  return out;
}
