import { describe, expect, it } from 'vitest';
import { strategicMergePatch } from './strategic-patch.ts';

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
    expect(strategicMergePatch(deployment, patch)).toEqual({
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
    expect(strategicMergePatch(target, patch)).toEqual({ spec: { selector: { matchLabels: { c: '3' } }, template: { spec: { tolerations: [{ key: 'y' }] } } } });
    const strategy = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } } } };
    expect(strategicMergePatch(strategy, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } })).toEqual({ spec: { strategy: { type: 'Recreate' } } });
  });
});
