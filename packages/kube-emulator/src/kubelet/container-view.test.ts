import { describe, expect, it } from 'vitest';
import { ContainerView, containersQuery, serveContainerView } from './container-view.ts';
import { fetchContainers } from './simulator.ts';

const pod = (name: string, uid: string, labels: Record<string, string>) => ({ metadata: { name, namespace: 'ns', uid, labels } });

describe('the container view', () => {
  it('E3 answers running containers by namespace, labels and Pod name, and never brings back a Pod once gone', () => {
    const view = new ContainerView();
    view.record(pod('b', 'u-b', { app: 'gw', tier: 'x' }), 'gateway', { env: { A: '1' }, files: { '/f': 'x' } });
    view.record(pod('a', 'u-a', { app: 'gw' }), 'gateway', { env: {}, files: {} });
    view.record(pod('a', 'u-a', { app: 'gw' }), 'sidecar', { env: { S: '1' }, files: {} });
    expect(view.containers('ns').map((c) => [c.pod, c.container])).toEqual([
      ['a', 'gateway'],
      ['a', 'sidecar'],
      ['b', 'gateway'],
    ]);
    expect(view.containers('ns', { labelSelector: { app: 'gw', tier: 'x' } })).toEqual([
      { pod: 'b', uid: 'u-b', labels: { app: 'gw', tier: 'x' }, annotations: {}, container: 'gateway', env: { A: '1' }, files: { '/f': 'x' } },
    ]);
    expect(view.containers('ns', { podName: 'a' })).toHaveLength(2);
    expect(view.containers('other')).toEqual([]);
    view.forget('u-a');
    // An evaluation that listed the Pod before its deletion arrives late: it stays gone.
    view.record(pod('a', 'u-a', { app: 'gw' }), 'gateway', { env: {}, files: {} });
    expect(view.containers('ns').map((c) => c.pod)).toEqual(['b']);
  });

  it('E3 serves the same answer over loopback HTTP under its token, and refuses a query without a namespace', async () => {
    const view = new ContainerView();
    view.record(pod('a', 'u-a', { 'app.kubernetes.io/name': 'gw', tier: 'x' }), 'gateway', { env: { A: '1' }, files: {} });
    const served = await serveContainerView(view);
    try {
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[\w-]{32}$/);
      const filter = { labelSelector: { 'app.kubernetes.io/name': 'gw', tier: 'x' } };
      expect(await fetchContainers(served.url, 'ns', filter)).toEqual(view.containers('ns', filter));
      expect(containersQuery('ns', filter)).toBe('/containers?namespace=ns&labelSelector=app.kubernetes.io%2Fname%3Dgw%2Ctier%3Dx');
      expect((await fetch(`${served.url}/containers`)).status).toBe(400);
      expect((await fetch(`${served.url}x/containers?namespace=ns`)).status).toBe(404);
    } finally {
      await served.close();
    }
  });
});
