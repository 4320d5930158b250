// Table output (Accept: application/json;as=Table;v=v1;g=meta.k8s.io), what `kubectl get` asks
// for and prints as is: a custom resource gets Name and its CRD's additionalPrinterColumns (Age
// alone when it declares none), as apiextensions-apiserver's tableconvertor builds them; the
// built-in kinds the columns of kube-apiserver's printers, described once in printers/columns.ts.

import { AGE, builtInPrinter, column, NAME, type Printer } from './printers/columns.ts';
import { humanDuration } from './printers/format.ts';
import { apiVersionOf, type ResourceType } from './registry.ts';
import { isObject, type JsonObject, type KubeObject } from './types.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Whether an Accept header asks for a meta.k8s.io Table (v1 or v1beta1) before anything else it takes. */
export function tableVersion(accept: string | undefined): 'v1' | 'v1beta1' | undefined {
  for (const clause of (accept ?? '').split(',')) {
    const [media = '', ...params] = clause.split(';').map((p) => p.trim());
    const values = Object.fromEntries(params.map((p) => p.split('=').map((x) => x.trim())));
    if (media === 'application/json' && values.as === 'Table' && values.g === 'meta.k8s.io' && (values.v === 'v1' || values.v === 'v1beta1')) {
      return values.v;
    }
    if (media === 'application/json' || media === '*/*') return undefined;
  }
  return undefined;
}

function age(timestamp: unknown): string | null {
  if (typeof timestamp !== 'string') return '<unknown>';
  const at = Date.parse(timestamp);
  return Number.isNaN(at) ? null : humanDuration(Date.now() - at);
}

/**
 * The simple JSONPath of printer columns: `.a.b`, `[n]`, `[*]` and `[?(@.k=="v")]` filters.
 * Returns the first result, or undefined.
 */
export function jsonPathFirst(object: unknown, path: string): unknown {
  const tokens = path.replace(/^\{|\}$/g, '').match(/\.[^.[\]]+|\[[^\]]*\]/g) ?? [];
  let current: unknown[] = [object];
  for (const token of tokens) {
    const next: unknown[] = [];
    for (const value of current) {
      if (token.startsWith('.')) {
        if (isObject(value) && token.slice(1) in value) next.push(value[token.slice(1)]);
      } else if (Array.isArray(value)) {
        const inner = token.slice(1, -1);
        const filter = /^\?\(@\.([\w.-]+)\s*==\s*["']?([^"']*)["']?\)$/.exec(inner);
        if (inner === '*') next.push(...value);
        else if (filter) next.push(...value.filter((item) => isObject(item) && String(jsonPathFirst(item, `.${filter[1]}`)) === filter[2]));
        else if (/^-?\d+$/.test(inner)) {
          const item = value.at(Number(inner));
          if (item !== undefined) next.push(item);
        }
      }
    }
    current = next;
  }
  return current[0];
}

/** A printer column's cell: strings as text, dates as ages, numbers and booleans as they are. */
function columnCell(type: string, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'date':
      return age(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

function printerOf(type: ResourceType): Printer {
  if (type.crdName === undefined) return builtInPrinter(type) ?? { columns: [NAME, AGE] };
  const declared = type.printerColumns ?? [];
  if (declared.length === 0) return { columns: [NAME, AGE] };
  const columns = [
    NAME,
    ...declared.map((c) => {
      const kind = String(c.type ?? 'string');
      return column(String(c.name ?? ''), (o) => columnCell(kind, jsonPathFirst(o, String(c.jsonPath ?? ''))), {
        type: kind === 'date' ? 'date' : kind,
        format: String(c.format ?? ''),
        description: String(c.description ?? ''),
        priority: Number(c.priority ?? 0),
      });
    }),
  ];
  return { columns };
}

function rowObject(type: ResourceType, object: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return { kind: type.kind, apiVersion: apiVersionOf(type), ...object };
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

export function includeObjectOf(value: string | null): IncludeObject {
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

/** A meta.k8s.io Table of `objects`; `headers` false leaves the column definitions out (watch events after the first). */
export function toTable(
  type: ResourceType,
  objects: KubeObject[],
  options: { version: 'v1' | 'v1beta1'; resourceVersion?: string; continueToken?: string; include: IncludeObject; headers?: boolean },
): JsonObject {
  const { columns, conditions } = printerOf(type);
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: {
      ...(options.resourceVersion ? { resourceVersion: options.resourceVersion } : {}),
      ...(options.continueToken ? { continue: options.continueToken } : {}),
    },
    columnDefinitions:
      options.headers === false ? null : columns.map(({ name, type: t, format, description, priority }) => ({ name, type: t, format, description, priority })),
    rows: objects.map((object) => {
      const row: JsonObject = { cells: columns.map((c) => c.cell(object)) };
      const marked = conditions?.(object);
      if (marked) row.conditions = marked;
      const included = rowObject(type, object, options.include);
      if (included !== undefined) row.object = included;
      return row;
    }),
  };
}
