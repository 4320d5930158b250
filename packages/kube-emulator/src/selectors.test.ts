import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, clusterRequest, createNamespace, startTestCluster, type TestCluster } from './testing.ts';

let cluster: TestCluster;
let ns: string;

// Four secrets with labels chosen so every operator selects a different subset.
const LABELS: Record<string, Record<string, string>> = {
  alpha: { app: 'gw', tier: 'front', track: 'stable' },
  beta: { app: 'gw', tier: 'back' },
  gamma: { app: 'db', tier: 'back', track: 'canary' },
  delta: { other: 'x' },
};

beforeAll(async () => {
  cluster = await startTestCluster();
  ns = await createNamespace(cluster, 'sel');
  for (const [name, labels] of Object.entries(LABELS)) {
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name, labels } } });
  }
});
afterAll(() => cluster.close());

async function selectLabels(labelSelector: string): Promise<string[]> {
  const list = await cluster.core.listNamespacedSecret({ namespace: ns, labelSelector });
  return list.items.map((s) => s.metadata?.name ?? '').sort();
}

async function selectFields(fieldSelector: string, namespace = ns): Promise<string[]> {
  const list = await cluster.core.listNamespacedSecret({ namespace, fieldSelector });
  return list.items.map((s) => s.metadata?.name ?? '').sort();
}

describe('label selectors', () => {
  it.each([
    ['app=gw', ['alpha', 'beta']],
    ['app==gw', ['alpha', 'beta']],
    ['app!=gw', ['delta', 'gamma']],
    ['tier in (front, back)', ['alpha', 'beta', 'gamma']],
    ['tier in (front)', ['alpha']],
    ['app notin (gw)', ['delta', 'gamma']],
    ['track', ['alpha', 'gamma']],
    ['!track', ['beta', 'delta']],
    ['app=gw,tier=back', ['beta']],
    ['app in (gw,db),!track', ['beta']],
    ['tier,track notin (canary)', ['alpha', 'beta']],
    ['', ['alpha', 'beta', 'delta', 'gamma']],
  ])('E1 labelSelector %j selects %j', async (selector, expected) => {
    expect(await selectLabels(selector)).toEqual(expected);
  });

  it('E1 a malformed label selector is a 400 BadRequest', async () => {
    const { code, body } = await apiFailure(cluster.core.listNamespacedSecret({ namespace: ns, labelSelector: 'app in gw' }));
    expect(code).toBe(400);
    expect(body.reason).toBe('BadRequest');
    expect(body.message).toMatch(/^unable to parse requirement/);
  });
});

describe('field selectors', () => {
  it('E1 metadata.name with = and != selects by name', async () => {
    expect(await selectFields('metadata.name=beta')).toEqual(['beta']);
    expect(await selectFields('metadata.name==beta')).toEqual(['beta']);
    expect(await selectFields('metadata.name!=beta')).toEqual(['alpha', 'delta', 'gamma']);
    expect(await selectFields('metadata.name!=beta,metadata.name!=alpha')).toEqual(['delta', 'gamma']);
  });

  it('E1 metadata.namespace selects across all namespaces', async () => {
    const other = await createNamespace(cluster, 'sel2');
    await cluster.core.createNamespacedSecret({ namespace: other, body: { metadata: { name: 'alpha' } } });
    const inOther = await cluster.core.listSecretForAllNamespaces({ fieldSelector: `metadata.namespace=${other}` });
    expect(inOther.items.map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`)).toEqual([`${other}/alpha`]);
    const alphas = await cluster.core.listSecretForAllNamespaces({ fieldSelector: `metadata.name=alpha,metadata.namespace!=${other}` });
    expect(alphas.items.map((s) => s.metadata?.namespace)).toEqual([ns]);
  });

  it('E1 combines label and field selectors, and secret type is selectable', async () => {
    const list = await cluster.core.listNamespacedSecret({ namespace: ns, labelSelector: 'app=gw', fieldSelector: 'metadata.name!=alpha,type=Opaque' });
    expect(list.items.map((s) => s.metadata?.name)).toEqual(['beta']);
  });

  it('E1 an unsupported field is a 400 naming the field', async () => {
    const { code, body } = await apiFailure(cluster.core.listNamespacedSecret({ namespace: ns, fieldSelector: 'spec.foo=bar' }));
    expect(code).toBe(400);
    expect(body.message).toBe('field label not supported: spec.foo');
  });

  // A kind with field labels of its own (a conversion function registered for it) refuses another
  // field in its own words; a kind with only metadata.name and metadata.namespace in
  // apimachinery's. Held on both servers; the kubectl script found the emulator using the first
  // wording for every kind.
  it.each([
    ['/api/v1/namespaces/{ns}/configmaps', 'default'],
    ['/api/v1/namespaces/{ns}/serviceaccounts', 'default'],
    ['/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles', 'default'],
    ['/apis/apps/v1/namespaces/{ns}/deployments', 'default'],
    ['/api/v1/namespaces/{ns}/secrets', 'own'],
    ['/api/v1/namespaces/{ns}/pods', 'own'],
    ['/api/v1/namespaces/{ns}/events', 'own'],
    ['/api/v1/namespaces', 'own'],
    ['/apis/apps/v1/namespaces/{ns}/replicasets', 'default'],
    ['/apis/batch/v1/namespaces/{ns}/jobs', 'job'],
  ] as const)('E1 an unsupported field selector on %s is refused in the %s wording', async (path, wording) => {
    const response = await clusterRequest(cluster, `${path.replace('{ns}', ns)}?fieldSelector=${encodeURIComponent('spec.foo=bar')}`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(400);
    const message = (JSON.parse(response.body.toString('utf8')) as { message: string }).message;
    const expected = {
      own: 'field label not supported: spec.foo',
      default: '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
      job: 'field label "spec.foo" not supported for batchv1.Job',
    }[wording];
    expect(message).toBe(expected);
  });
});

describe('paging', () => {
  it('E1 limit and continue page through a list', async () => {
    const first = await cluster.core.listNamespacedSecret({ namespace: ns, limit: 3 });
    expect(first.items.map((s) => s.metadata?.name)).toEqual(['alpha', 'beta', 'delta']);
    expect(first.metadata?.remainingItemCount).toBe(1);
    const next = await cluster.core.listNamespacedSecret({ namespace: ns, limit: 3, _continue: first.metadata?._continue });
    expect(next.items.map((s) => s.metadata?.name)).toEqual(['gamma']);
    expect(next.metadata?._continue).toBeUndefined();
  });
});
