import { managerEntries, type FieldOwner } from './field-ownership.ts';
import { elementsOf, pathString } from './fieldsv1.ts';

// RC4: whether a child of an instance (its ConfigMap, Deployment, ServiceAccount, RoleBinding) is
// still what the reconciler rendered, and who changed it if not, read from managedFields. Pure:
// the reconciler brings the live object and the rendered one, repairs, and records what this says.

type Obj = Record<string, unknown>;

const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The top-level fields that hold what a child does (metadata aside): a write to them by anyone else is drift. */
export const DESIRED_FIELDS = ['spec', 'data', 'binaryData', 'immutable', 'automountServiceAccountToken', 'roleRef', 'subjects'] as const;

/**
 * Whether `live` holds everything `rendered` sets, with the same values (fields the server adds,
 * defaults and status, are allowed): lists element by element, maps key by key.
 */
export function covers(rendered: unknown, live: unknown): boolean {
  // Iterative: a child renders the instance's config, which nests as deep as a server accepts.
  const pairs: Array<[unknown, unknown]> = [[rendered, live]];
  while (pairs.length > 0) {
    const [r, l] = pairs.pop()!;
    if (Array.isArray(r)) {
      if (!Array.isArray(l) || l.length !== r.length) return false;
      r.forEach((element, i) => pairs.push([element, l[i]]));
    } else if (isObject(r)) {
      if (!isObject(l)) return false;
      for (const [k, v] of Object.entries(r)) pairs.push([v, l[k]]);
    } else if (r !== l) {
      return false;
    }
  }
  return true;
}

export interface ForeignWriter extends FieldOwner {
  /** The paths it holds among the child's desired fields, as structured-merge-diff prints them. */
  paths: string[];
}

export interface ChildDrift {
  /** The rendered fields the live object does not hold as rendered. */
  changed: boolean;
  /** Managers other than the reconciler's that hold desired fields: they wrote them outside the product. */
  foreign: ForeignWriter[];
}

/** RC4: the drift of a live child from its rendering, `manager` being the reconciler's field manager. */
export function childDrift(live: Obj, rendered: Obj, manager: string): ChildDrift {
  const changed =
    DESIRED_FIELDS.some((f) => rendered[f] !== undefined && !covers(rendered[f], live[f])) ||
    !covers((rendered.metadata as Obj | undefined)?.labels ?? {}, (live.metadata as Obj | undefined)?.labels ?? {}) ||
    !covers((rendered.metadata as Obj | undefined)?.annotations ?? {}, (live.metadata as Obj | undefined)?.annotations ?? {}) ||
    !covers((rendered.metadata as Obj | undefined)?.ownerReferences ?? [], (live.metadata as Obj | undefined)?.ownerReferences ?? []);
  const foreign: ForeignWriter[] = [];
  const tops = new Set(DESIRED_FIELDS.map((f) => `f:${f}`));
  for (const entry of managerEntries((live.metadata as Obj | undefined)?.managedFields)) {
    if (entry.manager === manager) continue;
    const paths = [...entry.set].filter((p) => tops.has(elementsOf(p)[0] ?? ''));
    if (paths.length > 0) foreign.push({ manager: entry.manager, operation: entry.operation, paths: paths.map(pathString).sort() });
  }
  return { changed, foreign };
}
