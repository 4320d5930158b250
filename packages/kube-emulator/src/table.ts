// Table output (Accept: application/json;as=Table;v=v1;g=meta.k8s.io), what `kubectl get` asks
// for and prints as is: a custom resource gets Name and its CRD's additionalPrinterColumns (Age
// alone when it declares none), as apiextensions-apiserver's tableconvertor builds them; the
// built-in kinds the columns of kubectl's printers (k8s.io/kubernetes/pkg/printers/internalversion).

import { apiVersionOf, type ResourceType } from './registry.ts';
import { isObject, type JsonObject, type KubeObject } from './types.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  cell: (object: KubeObject) => unknown;
}

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

/** k8s.io/apimachinery/pkg/util/duration.HumanDuration, as kubectl shows ages. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
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

const NAME: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
  cell: (o) => o.metadata.name ?? '',
};

const AGE: Column = {
  name: 'Age',
  type: 'string',
  format: '',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (o) => age(o.metadata.creationTimestamp),
};

function column(name: string, cell: Column['cell'], options: Partial<Column> = {}): Column {
  return { name, type: 'string', format: '', description: '', priority: 0, cell, ...options };
}

const obj = (value: unknown): JsonObject => (isObject(value) ? value : {});
const count = (value: unknown): number => Object.keys(obj(value)).length;

const BUILT_IN: Record<string, Column[]> = {
  namespaces: [NAME, column('Status', (o) => obj(o.status).phase ?? ''), AGE],
  secrets: [NAME, column('Type', (o) => o.type ?? ''), column('Data', (o) => count(o.data), { type: 'string' }), AGE],
  configmaps: [NAME, column('Data', (o) => count(o.data) + count(o.binaryData), { type: 'string' }), AGE],
  leases: [NAME, column('Holder', (o) => obj(o.spec).holderIdentity ?? ''), AGE],
  'apps/deployments': [
    NAME,
    column('Ready', (o) => `${Number(obj(o.status).readyReplicas ?? 0)}/${Number(obj(o.spec).replicas ?? 0)}`),
    column('Up-to-date', (o) => Number(obj(o.status).updatedReplicas ?? 0), { type: 'string' }),
    column('Available', (o) => Number(obj(o.status).availableReplicas ?? 0), { type: 'string' }),
    AGE,
    column('Containers', (o) => containers(o).map((c) => c.name).join(','), { priority: 1 }),
    column('Images', (o) => containers(o).map((c) => c.image).join(','), { priority: 1 }),
    column('Selector', (o) => Object.entries(obj(obj(obj(o.spec).selector).matchLabels)).map(([k, v]) => `${k}=${String(v)}`).join(','), { priority: 1 }),
  ],
};

function containers(o: KubeObject): { name?: string; image?: string }[] {
  const list = obj(obj(obj(o.spec).template).spec).containers;
  return Array.isArray(list) ? (list.filter(isObject) as { name?: string; image?: string }[]) : [];
}

function columnsOf(type: ResourceType): Column[] {
  if (type.crdName === undefined) return BUILT_IN[type.group ? `${type.group}/${type.plural}` : type.plural] ?? [NAME, AGE];
  const declared = type.printerColumns ?? [];
  if (declared.length === 0) return [NAME, AGE];
  return [
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
  const columns = columnsOf(type);
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
      const included = rowObject(type, object, options.include);
      if (included !== undefined) row.object = included;
      return row;
    }),
  };
}
