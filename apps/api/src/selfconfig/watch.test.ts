import { AdmissionregistrationV1Api, CustomObjectsApi, type V1ValidatingWebhookConfiguration } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../log.ts';
import { waitFor } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { kubernetesSelfConfigCluster, type SelfConfigCluster } from './cluster.ts';
import { createSelfConfigController, type SelfConfigController } from './controller.ts';

// The requests' watch on a quiet installation. client-node ends a watch on which nothing arrived
// for 30 s (a TimeoutError), and a server sends bookmarks only about once a minute, so on an idle
// installation the watch ended every 30 s: the controller logged a warning, listed every request
// again and reconciled each one (a history write per request), twice a minute, forever. Here the
// inactivity timeout is 300 ms, client-node's own timer against the embedded server.

const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';
const NAMESPACE = 'quiet-watch';

let stack: TestStack;
let cluster: SelfConfigCluster;
let controller: SelfConfigController;
let savedWebhook: V1ValidatingWebhookConfiguration;
const logs: string[] = [];

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  await stack.runtime.selfConfig.stop();
  await stack.core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  // Requests are made here by the administrator, whom the SC5 webhook refuses: its registration goes.
  const admissions = stack.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  savedWebhook = await admissions.readValidatingWebhookConfiguration({ name: 'openclaw-selfconfig' });
  await admissions.deleteValidatingWebhookConfiguration({ name: 'openclaw-selfconfig' });
  cluster = kubernetesSelfConfigCluster(stack.kubeConfig, { watchInactivityMs: 300 });
  controller = createSelfConfigController({
    cluster,
    db: stack.runtime.db,
    logger: createLogger((line) => logs.push(line), 'debug', { component: 'selfconfig-under-test' }),
    installationId: stack.runtime.installation.installationId,
    resyncMs: 3_600_000,
    backoff: { baseMs: 100, maxMs: 1_000 },
  });
  controller.start();
  await waitFor(async () => (cluster.calls.watch ?? 0) >= 1, 'the watch to open');
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  if (savedWebhook) {
    await stack.kubeConfig
      .makeApiClient(AdmissionregistrationV1Api)
      .createValidatingWebhookConfiguration({ body: { metadata: { name: 'openclaw-selfconfig', labels: savedWebhook.metadata?.labels }, webhooks: savedWebhook.webhooks } })
      .catch(() => undefined);
  }
  await stack?.close();
});

describe('SC2 the requests\' watch on a quiet installation', () => {
  it('SC2 a watch that times out with nothing to say is opened again from the version it saw: no list, no warning, and the next request is still decided', async () => {
    const listsBefore = cluster.calls.list ?? 0;
    const watchesBefore = cluster.calls.watch ?? 0;
    // Three seconds of silence: about ten inactivity timeouts.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(cluster.calls.watch ?? 0, 'the watch was opened again after each timeout').toBeGreaterThanOrEqual(watchesBefore + 4);
    expect(cluster.calls.list ?? 0, 'nothing was listed again').toBe(listsBefore);
    expect(logs.filter((l) => /selfconfig (watch|list)/.test(l) && /"level":"warn"/.test(l))).toEqual([]);

    // The reopened watch still brings what happens: a request for an instance that does not exist
    // ends Failed (SC3), Pending first (SC2).
    const custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'openclawselfconfigs',
      namespace: NAMESPACE,
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawSelfConfig', metadata: { name: 'after-the-quiet' }, spec: { instanceRef: 'nowhere', addSkills: ['x'] } },
    });
    const done = await waitFor(async () => {
      const obj = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: NAMESPACE, name: 'after-the-quiet' })) as { status?: { phase?: string } };
      return obj.status?.phase === 'Failed' ? obj : null;
    }, 'the request to be decided', 30_000);
    expect(done.status?.phase).toBe('Failed');
    expect(cluster.calls.list ?? 0).toBe(listsBefore);
  }, 60_000);
});
