import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  AdmissionregistrationV1Api,
  CustomObjectsApi,
  KubeConfig,
  loadYaml,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  type V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import { agentInstanceName, AGENT_ID_LABEL, SELFCONFIG_AGENT_ROLE, selfConfigRoleBindingName } from '@occ/domain/kubernetes-names';
import { createCertificateAuthority, issueServerCertificate } from '@occ/kube-emulator/certificates';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeStatus } from '../kube/errors.ts';
import { embeddedWebhookCertificates, startSelfConfigWebhook } from '../kube/selfconfig-webhook-setup.ts';
import { kubeConfigAsServiceAccount } from '../kube/service-account-client.ts';
import { createLogger } from '../log.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { REPO_ROOT } from '../env.ts';
import { SELFCONFIG_WEBHOOK_NAME, SELFCONFIG_WEBHOOK_PATH, selfConfigWebhookConfiguration } from './selfconfig-webhook.ts';

// SC5 for requests created in the cluster, end to end: the runtime `npm start` runs registers the
// API's SelfConfig webhook with the embedded API server, which authenticates service account
// tokens and calls the webhook over HTTPS; every call here is client-node against that server.

const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';
const AGENT_A = 'agt_0193a5f0-0000-7000-8000-00000000000a';
const AGENT_B = 'agt_0193a5f0-0000-7000-8000-00000000000b';
const INSTANCE_A = agentInstanceName(AGENT_A);
const INSTANCE_B = agentInstanceName(AGENT_B);

let stack: TestStack;
let namespace: string;
let admin: CustomObjectsApi;
let agentA: CustomObjectsApi;

/** The embedded server's kubeconfig (its URL, and its CA when it has one) with another bearer token. */
function kubeConfigWithToken(token: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(stack.runtime.emulator!.kubeconfigYaml());
  Object.assign(config.getCurrentUser()!, { token });
  return config;
}

async function serviceAccountToken(name: string): Promise<string> {
  const answer = await stack.core.createNamespacedServiceAccountToken({ namespace, name, body: { spec: { audiences: [] } } });
  return answer.status?.token ?? '';
}

function selfConfig(name: string, instanceRef: string, labels: Record<string, string> = {}) {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'OpenClawSelfConfig',
    metadata: { name, labels },
    spec: { instanceRef, addSkills: ['web-search'] },
  };
}

function create(client: CustomObjectsApi, body: ReturnType<typeof selfConfig>) {
  return client.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'openclawselfconfigs', body });
}

async function refusal(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    const status = kubeStatus(error);
    if (status) return { code: status.code, message: status.message };
    throw error;
  }
  throw new Error('expected a refusal, the request was admitted');
}

/** POSTs a raw body to the webhook over HTTPS, trusting the CA it was registered with. */
function postToWebhook(body: string): Promise<{ status: number; text: string }> {
  const webhook = stack.runtime.selfConfigWebhook!;
  return postReview(webhook.url, webhook.caPem!, body);
}

function postReview(url: string, caPem: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', ca: caPem, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  namespace = `sc5-${Date.now().toString(36)}`;
  await stack.core.createNamespace({ body: { metadata: { name: namespace } } });
  admin = stack.kubeConfig.makeApiClient(CustomObjectsApi);
  for (const [agentId, name] of [
    [AGENT_A, INSTANCE_A],
    [AGENT_B, INSTANCE_B],
  ] as const) {
    // The instance and its ServiceAccount share the name (agentServiceAccountName).
    await stack.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name, labels: { [AGENT_ID_LABEL]: agentId.slice(4) } } } });
    // E9: the embedded server authorizes as a cluster does; the reconciler binds an agent with
    // selfConfigure to occ-selfconfig-agent (RC2), which this test plays without a reconciler.
    await stack.kubeConfig.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: selfConfigRoleBindingName(agentId) },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: SELFCONFIG_AGENT_ROLE },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      },
    });
    await admin.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: 'openclawinstances',
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawInstance', metadata: { name }, spec: {} },
    });
  }
  agentA = kubeConfigWithToken(await serviceAccountToken(INSTANCE_A)).makeApiClient(CustomObjectsApi);
}, 120_000);
afterAll(() => stack?.close());

describe('SC5 the SelfConfig admission webhook', () => {
  it('SC5 the embedded setup registers the webhook with the CA of its certificate, failurePolicy Fail, for creates and updates', async () => {
    const configurations = await stack.kubeConfig.makeApiClient(AdmissionregistrationV1Api).listValidatingWebhookConfiguration();
    const hook = configurations.items.flatMap((c) => c.webhooks ?? []).find((w) => w.name === SELFCONFIG_WEBHOOK_NAME);
    expect(hook).toMatchObject({
      clientConfig: { url: stack.runtime.selfConfigWebhook!.url, caBundle: Buffer.from(stack.runtime.selfConfigWebhook!.caPem!).toString('base64') },
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      rules: [{ apiGroups: [GROUP], resources: ['openclawselfconfigs'], operations: ['CREATE', 'UPDATE'] }],
    });
    expect(stack.runtime.selfConfigWebhook!.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);
  });

  it('SC5 the manifest for real clusters (deploy/webhooks) has the rules, failurePolicy and path the embedded registration has', async () => {
    const manifest = loadYaml<V1ValidatingWebhookConfiguration>(await readFile(path.join(REPO_ROOT, 'deploy/webhooks/selfconfig-webhook.yaml'), 'utf8'));
    const embedded = selfConfigWebhookConfiguration('openclaw-selfconfig', 'https://127.0.0.1:1/x', 'ca');
    const { clientConfig: deployed, ...deployedRest } = manifest.webhooks![0]!;
    const { clientConfig: _embeddedClient, ...embeddedRest } = embedded.webhooks![0]!;
    expect(deployedRest).toEqual(embeddedRest);
    expect(deployed.service?.path).toBe(SELFCONFIG_WEBHOOK_PATH);
    expect(manifest.metadata?.name).toBe(embedded.metadata?.name);
  });

  it("SC5 agent A's service account token may create a request for A's own instance", async () => {
    const created = (await create(agentA, selfConfig('a-for-a', INSTANCE_A))) as { metadata: { name: string } };
    expect(created.metadata.name).toBe('a-for-a');
  });

  it("SC5 the control plane acting for agent A (kubeConfigAsServiceAccount, a TokenRequest) is admitted for A's instance only", async () => {
    const asA = (await kubeConfigAsServiceAccount(stack.kubeConfig, namespace, INSTANCE_A)).makeApiClient(CustomObjectsApi);
    await create(asA, selfConfig('cp-for-a', INSTANCE_A));
    expect(await refusal(create(asA, selfConfig('cp-for-b', INSTANCE_B)))).toMatchObject({ code: 403 });
  });

  it("SC5 agent A's token is refused for B's instance with the webhook's message, even with B's agent label on the request", async () => {
    const { code, message } = await refusal(create(agentA, selfConfig('a-for-b', INSTANCE_B, { [AGENT_ID_LABEL]: AGENT_B.slice(4) })));
    expect(code).toBe(403);
    expect(message).toBe(
      `admission webhook "${SELFCONFIG_WEBHOOK_NAME}" denied the request: SC5: a SelfConfig request may only target the requester's own instance; ` +
        `system:serviceaccount:${namespace}:${INSTANCE_A} is not system:serviceaccount:${namespace}:${INSTANCE_B}, the service account of OpenClawInstance "${INSTANCE_B}"`,
    );
    expect(await refusal(admin.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'openclawselfconfigs', name: 'a-for-b' }))).toMatchObject({ code: 404 });
  });

  it('SC5 a user token (the cluster administrator) is refused: only the instance\'s service account may ask', async () => {
    const { code, message } = await refusal(create(admin, selfConfig('admin-for-a', INSTANCE_A)));
    expect(code).toBe(403);
    expect(message).toContain(`denied the request: SC5: a SelfConfig request may only target the requester's own instance; kubernetes-admin is not`);
  });

  it('SC5 a request for an instance that does not exist is refused, and an update may not move a request to another instance', async () => {
    expect(await refusal(create(agentA, selfConfig('a-for-nothing', 'agent-missing')))).toMatchObject({ code: 403, message: expect.stringContaining('OpenClawInstance "agent-missing" not found') });
    await create(agentA, selfConfig('moved', INSTANCE_A));
    const move = () =>
      agentA.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace, plural: 'openclawselfconfigs', name: 'moved', body: { spec: { instanceRef: INSTANCE_B } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    // E9: occ-selfconfig-agent grants no update or patch, so the API server refuses first ...
    expect(await refusal(move())).toMatchObject({ code: 403, message: expect.stringContaining('cannot patch resource "openclawselfconfigs"') });
    // ... and an account given patch by someone else still cannot move a request: the webhook refuses.
    const rbac = stack.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const rules = [{ apiGroups: [GROUP], resources: ['openclawselfconfigs'], verbs: ['patch'] }];
    await rbac.createNamespacedRole({ namespace, body: { metadata: { name: 'patch-selfconfigs' }, rules } });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: { metadata: { name: 'patch-selfconfigs' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'patch-selfconfigs' }, subjects: [{ kind: 'ServiceAccount', name: INSTANCE_A, namespace }] },
    });
    expect(await refusal(move())).toMatchObject({ code: 403, message: expect.stringContaining('spec.instanceRef cannot be changed') });
  });

  it('SC5 malformed reviews are refused: not JSON and no uid get 400 (the API server then applies failurePolicy Fail), a review without a user is denied', async () => {
    expect((await postToWebhook('{not json')).status).toBe(400);
    expect((await postToWebhook(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: {} }))).status).toBe(400);
    const answer = await postToWebhook(
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'u-1', operation: 'CREATE', namespace, resource: { group: GROUP, version: VERSION, resource: 'openclawselfconfigs' }, object: selfConfig('x', INSTANCE_A) },
      }),
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u-1', allowed: false, status: { code: 400 } } });
  });

  it('SC5 the embedded certificate is made at first start and kept with the state; configured files are served as given, and not registered by the API', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'occ-webhook-'));
    try {
      const first = await embeddedWebhookCertificates(dir);
      const again = await embeddedWebhookCertificates(dir);
      expect(again).toEqual(first);
      expect(new X509Certificate(first.certPem).checkIssued(new X509Certificate(first.caPem))).toBe(true);
      const ca = createCertificateAuthority('platform-ca');
      const serving = issueServerCertificate(ca, { commonName: 'occ-webhook', ipAddresses: ['127.0.0.1'] });
      await writeFile(path.join(dir, 'tls.crt'), serving.certPem);
      await writeFile(path.join(dir, 'tls.key'), serving.keyPem);
      const configured = await startSelfConfigWebhook({
        kubeConfig: stack.kubeConfig,
        logger: createLogger(() => {}, 'error'),
        files: { certFile: path.join(dir, 'tls.crt'), keyFile: path.join(dir, 'tls.key'), host: '127.0.0.1', port: 0 },
      });
      try {
        expect(configured.caPem).toBeNull();
        const answer = await postReview(configured.url, ca.certPem, JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u-2' } }));
        expect(answer.status).toBe(200);
        expect(JSON.parse(answer.text)).toMatchObject({ response: { uid: 'u-2', allowed: false } });
        const registered = await stack.kubeConfig.makeApiClient(AdmissionregistrationV1Api).listValidatingWebhookConfiguration();
        expect(registered.items.flatMap((c) => c.webhooks ?? []).map((w) => w.clientConfig.url)).not.toContain(configured.url);
      } finally {
        await configured.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('SC5 with the webhook down, failurePolicy Fail refuses even the rightful requester', async () => {
    await stack.runtime.selfConfigWebhook!.close();
    const { code, message } = await refusal(create(agentA, selfConfig('a-while-down', INSTANCE_A)));
    expect(code).toBe(500);
    expect(message).toMatch(new RegExp(`^Internal error occurred: failed calling webhook "${SELFCONFIG_WEBHOOK_NAME}": failed to call webhook: Post ".*": dial tcp 127\\.0\\.0\\.1:\\d+: connect: connection refused$`));
  });
});
