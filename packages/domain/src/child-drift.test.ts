import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { childDrift, covers, DESIRED_FIELDS } from './child-drift.ts';

type Obj = Record<string, unknown>;

/** The path of every primitive in a JSON value (objects by key, arrays by index). */
function primitivePaths(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.flatMap((v, i) => primitivePaths(v, [...at, i]));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => primitivePaths(v, [...at, k]));
  return [at];
}

function withLeaf(value: unknown, at: Array<string | number>, leaf: unknown): unknown {
  if (at.length === 0) return leaf;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  // defineProperty: a generated key may be "__proto__".
  Object.defineProperty(copy, at[0]!, { value: withLeaf(copy[at[0]!], at.slice(1), leaf), enumerable: true, writable: true, configurable: true });
  return copy;
}

/** A copy with a key the rendering never has added to every object: what a server adds (defaults, status). */
function withServerFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withServerFields);
  if (typeof value === 'object' && value !== null) return { ...Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withServerFields(v)])), '\u0000server': { default: true } };
  return value;
}

const different = (leaf: unknown): unknown => (typeof leaf === 'string' ? `${leaf}\u0001` : typeof leaf === 'number' ? String(leaf) : leaf === null ? false : null);

describe('covers (RC4: does the live child hold what was rendered)', () => {
  it('RC4 any JSON value covers itself and is covered by a copy with fields added to every object (generated)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (rendered) => {
        expect(covers(rendered, structuredClone(rendered))).toBe(true);
        expect(covers(rendered, withServerFields(rendered))).toBe(true);
      }),
    );
  });

  it('RC4 changing any one primitive of the rendering, at any depth, is not covered (generated)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (rendered, pick) => {
        const paths = primitivePaths(rendered);
        fc.pre(paths.length > 0); // [] and {} hold no primitive
        const at = paths[pick % paths.length]!;
        const leaf = at.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], rendered);
        expect(covers(rendered, withServerFields(withLeaf(rendered, at, different(leaf))))).toBe(false);
      }),
    );
  });

  it('RC4 a list is covered only element by element at the same length; an object never by a list, a list never by an object', () => {
    expect(covers([1, 2], [1, 2, 3])).toBe(false);
    expect(covers([1, 2], [1])).toBe(false);
    expect(covers([1, 2], [2, 1])).toBe(false);
    expect(covers([], [])).toBe(true);
    expect(covers({}, [])).toBe(false);
    expect(covers([], {})).toBe(false);
    expect(covers({ a: 1 }, null)).toBe(false);
    expect(covers({ a: undefined }, {})).toBe(true);
    expect(covers({ a: 1 }, {})).toBe(false);
    expect(covers('1', 1)).toBe(false);
  });
});

const OWNER = { apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance', name: 'a', uid: 'u-1', controller: true };
const VALUES: Record<(typeof DESIRED_FIELDS)[number], unknown> = {
  spec: { replicas: 1, template: { spec: { containers: [{ name: 'gateway', image: 'gw:1' }] } } },
  data: { 'openclaw.json': '{}' },
  binaryData: { blob: 'AA==' },
  immutable: true,
  automountServiceAccountToken: false,
  roleRef: { kind: 'Role', name: 'r' },
  subjects: [{ kind: 'ServiceAccount', name: 'a' }],
};

function rendering(): Obj {
  return { metadata: { name: 'a', labels: { app: 'a' }, annotations: { note: 'n' }, ownerReferences: [OWNER] }, ...structuredClone(VALUES) };
}

function managed(manager: string, fieldsV1: Obj, extra: Obj = {}): Obj {
  return { manager, operation: 'Update', fieldsType: 'FieldsV1', fieldsV1, ...extra };
}

describe('childDrift (RC4)', () => {
  it('RC4 a child that holds its rendering, with what the server adds beside it, has not changed and has no foreign writer', () => {
    const live = withServerFields(rendering()) as Obj;
    (live.metadata as Obj).labels = { app: 'a', added: 'by-someone' };
    expect(childDrift(live, rendering(), 'occ')).toEqual({ changed: false, foreign: [] });
  });

  it('RC4 each desired field, and the labels, annotations and owner references, changed or removed out of band is a change', () => {
    for (const field of DESIRED_FIELDS) {
      const changed = { ...rendering(), [field]: different(VALUES[field]) };
      expect(childDrift(changed, rendering(), 'occ').changed, `${field} changed`).toBe(true);
      const { [field]: _removed, ...without } = rendering();
      expect(childDrift(without, rendering(), 'occ').changed, `${field} removed`).toBe(true);
      // A field the rendering leaves out is not the product's to judge.
      const { [field]: _notRendered, ...rendered } = rendering();
      expect(childDrift(changed, rendered, 'occ').changed, `${field} not rendered`).toBe(false);
    }
    for (const key of ['labels', 'annotations', 'ownerReferences']) {
      const live = rendering();
      const metadata = live.metadata as Obj;
      metadata[key] = key === 'ownerReferences' ? [{ ...OWNER, uid: 'u-2' }] : { app: 'b', note: 'm' };
      expect(childDrift(live, rendering(), 'occ').changed, `${key} changed`).toBe(true);
      delete metadata[key];
      expect(childDrift(live, rendering(), 'occ').changed, `${key} removed`).toBe(true);
    }
  });

  it('RC4 a rendering without metadata or owner references is held by a live child without them', () => {
    const { metadata: _m, ...bare } = rendering();
    expect(childDrift({ ...bare }, bare, 'occ').changed).toBe(false);
    expect(childDrift({ ...bare, metadata: {} }, { ...bare, metadata: {} }, 'occ').changed).toBe(false);
  });

  it('RC4 foreign writers are the other managers holding desired fields, with those paths sorted; the reconciler, status writers and metadata-only writers are not', () => {
    const live = rendering();
    (live.metadata as Obj).managedFields = [
      managed('occ', { 'f:spec': { 'f:replicas': {} } }, { operation: 'Apply' }),
      managed('kubectl-edit', {
        'f:metadata': { 'f:labels': { 'f:x': {} } },
        'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"gateway"}': { '.': {}, 'f:image': {} } } } }, 'f:paused': {} },
      }),
      managed('kube-controller-manager', { 'f:status': { 'f:replicas': {} } }, { subresource: 'status' }),
      managed('kube-controller-manager', { 'f:spec': { 'f:replicas': {} } }, { subresource: 'scale' }),
      managed('labeller', { 'f:metadata': { 'f:labels': { 'f:y': {} } } }),
      managed('patcher', { 'f:roleRef': {}, 'f:data': { 'f:k': {} } }, { operation: 'Apply' }),
    ];
    expect(childDrift(live, rendering(), 'occ').foreign).toEqual([
      {
        manager: 'kubectl-edit',
        operation: 'Update',
        paths: ['.spec.paused', '.spec.template.spec.containers[name="gateway"]', '.spec.template.spec.containers[name="gateway"].image'],
      },
      { manager: 'patcher', operation: 'Apply', paths: ['.data.k', '.roleRef'] },
    ]);
  });
});
