import { describe, expect, it } from 'vitest';
import { kindSchema } from './openapi-docs.ts';
import { DEPLOYMENTS } from './registry.ts';
import { strategicMergePatch } from './strategic-patch.ts';

// E10: strategic merge patch's list order (strategic-patch.test.ts has the rest), on cases whose answers are the lane's kube-apiserver
// 1.20.2's (strategic-order.differential.test.ts replays 200 generated ones on both servers; this
// file keeps a few in the default suite). The emulator used to append a patch's new items after
// the server's: a real server puts them first, unless $setElementOrder says otherwise.

type Env = Array<{ name: string; value?: string }>;

function deployment(env: Env | undefined, finalizers: string[] = []) {
  return {
    metadata: { name: 'd', ...(finalizers.length ? { finalizers } : {}) },
    spec: { template: { spec: { containers: [{ name: 'c', image: 'x', ...(env ? { env } : {}) }] } } },
  };
}

function patched(original: ReturnType<typeof deployment>, container: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
  const out = strategicMergePatch(original, { metadata, spec: { template: { spec: { containers: [{ name: 'c', ...container }] } } } }, kindSchema(DEPLOYMENTS)) as {
    metadata: { finalizers?: string[] };
    spec: { template: { spec: { containers: Array<{ env?: Env }> } } };
  };
  return { env: out.spec.template.spec.containers[0]!.env ?? [], finalizers: out.metadata.finalizers ?? [] };
}

const e = (name: string, value?: string) => (value === undefined ? { name } : { name, value });

describe('E10 strategic merge patch orders lists as a real server does', () => {
  it('E10 new items of a patch come before the server\'s, existing ones merge in place', () => {
    expect(patched(deployment([e('A', '1')]), { env: [e('B', '1')] }).env).toEqual([e('B', '1'), e('A', '1')]);
    expect(patched(deployment([e('B', '1'), e('C', '2')]), { env: [e('E', '1'), e('A', '2')] }).env).toEqual([e('E', '1'), e('A', '2'), e('B', '1'), e('C', '2')]);
    expect(patched(deployment([e('C', '1'), e('A', '1'), e('B', '2')]), { env: [e('A', '2'), e('D', '1')] }).env).toEqual([e('C', '1'), e('A', '2'), e('D', '1'), e('B', '2')]);
  });

  it('E10 $setElementOrder and $deleteFromPrimitiveList: the order list first, then the deletions', () => {
    expect(
      patched(deployment([e('B', '2')], ['x.io/d', 'x.io/b', 'x.io/a']), { env: [e('E', '2')] }, {
        finalizers: ['x.io/c'],
        '$setElementOrder/finalizers': ['x.io/d', 'x.io/c'],
        '$deleteFromPrimitiveList/finalizers': ['x.io/b', 'x.io/a'],
      }),
    ).toEqual({ env: [e('E', '2'), e('B', '2')], finalizers: ['x.io/d', 'x.io/c'] });
    expect(
      patched(deployment([e('C', '1'), e('B', '2'), e('A', '1'), e('D', '2')]), { env: [e('C', '2')] }, {
        finalizers: ['x.io/d', 'x.io/c'],
        '$setElementOrder/finalizers': ['x.io/a', 'x.io/b', 'x.io/d', 'x.io/c'],
        '$deleteFromPrimitiveList/finalizers': ['x.io/c'],
      }),
    ).toEqual({ env: [e('C', '2'), e('B', '2'), e('A', '1'), e('D', '2')], finalizers: ['x.io/d'] });
    expect(
      patched(deployment(undefined, ['x.io/d', 'x.io/b', 'x.io/a']), { env: [e('B', '1')], '$setElementOrder/env': [e('D'), e('B')] }, {
        '$setElementOrder/finalizers': ['x.io/a', 'x.io/c', 'x.io/b'],
        '$deleteFromPrimitiveList/finalizers': ['x.io/d'],
      }),
    ).toEqual({ env: [e('B', '1')], finalizers: ['x.io/a', 'x.io/b'] });
  });

  it('E10 a list the server does not hold is the patch\'s as sent: a $patch: delete item stays an item', () => {
    expect(patched(deployment(undefined), { env: [{ name: 'D', $patch: 'delete' }], '$setElementOrder/env': [] }).env).toEqual([e('D')]);
    expect(patched(deployment([e('A', '2'), e('E', '2'), e('B', '2')], ['x.io/b', 'x.io/c']), { env: [e('D', '1')] }, { '$deleteFromPrimitiveList/finalizers': ['x.io/c'] })).toEqual({
      env: [e('D', '1'), e('A', '2'), e('E', '2'), e('B', '2')],
      finalizers: ['x.io/b'],
    });
  });
});
