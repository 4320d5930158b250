import { describe, expect, it } from 'vitest';
import { kindSchema, resolveSchema } from './openapi-docs.ts';
import { BUILT_IN_RESOURCES, DEPLOYMENTS } from './registry.ts';
import { strategicMergePatch } from './strategic-patch.ts';
import { isObject, type JsonObject } from './types.ts';

const DEPLOYMENT = kindSchema(DEPLOYMENTS);

const deployment = {
  metadata: { name: 'web', finalizers: ['a'] },
  spec: {
    template: {
      spec: {
        containers: [
          { name: 'web', image: 'nginx:1.27', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
          { name: 'side', image: 'busybox' },
        ],
      },
    },
  },
};

describe('strategic merge patch', () => {
  it('E1 merges containers and env by name and obeys $setElementOrder, $patch delete and $deleteFromPrimitiveList (kubectl apply)', () => {
    // What kubectl's client-side apply sends when it changes A, drops B and the finalizer.
    const patch = {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] },
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'side' }, { name: 'web' }],
            containers: [{ name: 'web', image: 'nginx:1.28', '$setElementOrder/env': [{ name: 'A' }], env: [{ name: 'A', value: '3' }, { $patch: 'delete', name: 'B' }] }],
          },
        },
      },
    };
    expect(strategicMergePatch(deployment, patch, DEPLOYMENT)).toEqual({
      metadata: { name: 'web', finalizers: [] },
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'side', image: 'busybox' },
              { name: 'web', image: 'nginx:1.28', env: [{ name: 'A', value: '3' }] },
            ],
          },
        },
      },
    });
  });

  it('E1 lists without a merge key are replaced; $patch replace and $retainKeys replace a map', () => {
    const target = { spec: { selector: { matchLabels: { a: '1', b: '2' } }, template: { spec: { tolerations: [{ key: 'x' }] } } } };
    const patch = { spec: { selector: { $patch: 'replace', matchLabels: { c: '3' } }, template: { spec: { tolerations: [{ key: 'y' }] } } } };
    expect(strategicMergePatch(target, patch, DEPLOYMENT)).toEqual({ spec: { selector: { matchLabels: { c: '3' } }, template: { spec: { tolerations: [{ key: 'y' }] } } } });
    const strategy = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } } } };
    expect(strategicMergePatch(strategy, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, DEPLOYMENT)).toEqual({ spec: { strategy: { type: 'Recreate' } } });
  });
});

/** Every list a kind's schema merges by a key, as the path to it (list items as a one-item list). */
function mergedLists(schema: JsonObject, path: (string | number)[] = [], seen: string[] = []): { path: (string | number)[]; key: string; keyType: unknown }[] {
  const node = resolveSchema(schema);
  const reference = JSON.stringify(schema.allOf ?? schema.$ref ?? '');
  if (seen.includes(reference) && reference !== '""') return []; // recursive types (JSONSchemaProps)
  const properties = isObject(node.properties) ? node.properties : {};
  const found: { path: (string | number)[]; key: string; keyType: unknown }[] = [];
  for (const [name, field] of Object.entries(properties)) {
    if (!isObject(field)) continue;
    if (field.type === 'array' && isObject(field.items)) {
      const key = field['x-kubernetes-patch-merge-key'];
      const items = resolveSchema(field.items);
      if (typeof key === 'string' && String(field['x-kubernetes-patch-strategy']).includes('merge')) {
        found.push({ path: [...path, name], key, keyType: isObject(items.properties) && isObject(items.properties[key]) ? items.properties[key].type : 'string' });
      }
      found.push(...mergedLists(field.items, [...path, name, 0], [...seen, reference]));
    } else {
      found.push(...mergedLists(field, [...path, name], [...seen, reference]));
    }
  }
  return found;
}

function listAt(value: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((node, step) => (node as Record<string | number, unknown>)[step], value);
}

function at(path: (string | number)[], leaf: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return leaf;
  return typeof head === 'number' ? [at(rest, leaf)] : { [head]: at(rest, leaf) };
}

describe('E1 strategic merge: every list a built-in kind merges by key', () => {
  const kinds = BUILT_IN_RESOURCES.map((type) => [type.kind, kindSchema(type)] as const).filter(([, schema]) => !schema['x-kubernetes-preserve-unknown-fields']);
  it.each(kinds)('E1 %s: an item with a new key is added beside the server\'s, one with the same key is merged into it', (_kind, schema) => {
    const lists = mergedLists(schema);
    for (const { path, key, keyType } of lists) {
      const [one, two] = keyType === 'integer' ? [1, 2] : ['one', 'two'];
      const server = at(path, [{ [key]: one, kept: true }]);
      // The order is apimachinery's (the patch's items first here), checked by the tests above.
      const added = listAt(strategicMergePatch(server, at(path, [{ [key]: two }]) as JsonObject, schema), path);
      expect(added, `${path.join('.')} by ${key}`).toHaveLength(2);
      expect(added, `${path.join('.')} by ${key}`).toEqual(expect.arrayContaining([{ [key]: one, kept: true }, { [key]: two }]));
      const merged = strategicMergePatch(server, at(path, [{ [key]: one, more: 1 }]) as JsonObject, schema);
      expect(merged, `${path.join('.')} by ${key}`).toEqual(at(path, [{ [key]: one, kept: true, more: 1 }]));
    }
  });

  it('E1 the positions the old table missed merge too (a Pod\'s own containers, a Service\'s ports by port)', () => {
    const positions = BUILT_IN_RESOURCES.flatMap((type) => mergedLists(kindSchema(type)).map((l) => `${type.kind} ${l.path.join('.')} ${l.key}`));
    expect(positions).toEqual(expect.arrayContaining(['Pod spec.containers name', 'Pod spec.containers.0.env name', 'Service spec.ports port', 'Deployment spec.template.spec.volumes name']));
  });
});
