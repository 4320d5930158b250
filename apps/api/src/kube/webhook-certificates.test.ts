import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { connect } from 'node:tls';
import {
  AdmissionregistrationV1Api,
  CustomObjectsApi,
  loadAllYaml,
  RbacAuthorizationV1Api,
  type KubeConfig,
  type V1Service,
  type V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import { createCertificateAuthority, issueServerCertificate } from '@occ/kube-emulator/certificates';
import { endpointAddress } from '@occ/kube-emulator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../env.ts';
import { SELFCONFIG_WEBHOOK_NAME } from '../http/selfconfig-webhook.ts';
import { createLogger } from '../log.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { kubeStatus } from './errors.ts';
import { startSelfConfigWebhook, type SelfConfigWebhookRuntime } from './selfconfig-webhook-setup.ts';
import { kubeConfigAsServiceAccount } from './service-account-client.ts';
import {
  assessMaterial,
  bundleTrusts,
  CA_DAYS,
  CERTIFICATE_DAYS,
  pemCertificates,
  renewMaterial,
  RENEW_AUTHORITY_DAYS,
  RENEW_CERTIFICATE_DAYS,
  webhookDnsNames,
  webhookSecretName,
  type CertificateMaterial,
  type WebhookService,
} from './webhook-certificates.ts';

// SC5 in a cluster with the install as shipped: the product makes and rotates the webhook's CA and
// serving certificate itself, writes the CA into deploy/'s ValidatingWebhookConfiguration, and the
// API server (the embedded one, and on the E8 lane a real kube-apiserver 1.20) calls the replicas
// through deploy/'s Service and the Endpoints written here (no endpoints controller runs).

const DAY = 86_400_000;
const service: WebhookService = { namespace: 'default', name: `occ-sc5-${Date.now().toString(36)}` };

describe('SC5 managed webhook certificates: every stored state ends in a pair the bundle trusts', () => {
  const now = new Date();
  const fresh = renewMaterial({}, service, 'authority', now);
  const otherCa = createCertificateAuthority('someone else', CA_DAYS, now);
  const stranger = issueServerCertificate(otherCa, { commonName: webhookDnsNames(service)[0]!, dnsNames: webhookDnsNames(service), now });
  const misnamed = issueServerCertificate({ certPem: fresh.caPem, keyPem: fresh.caKeyPem }, { commonName: 'other.default.svc', dnsNames: ['other.default.svc'], now });
  const later = (days: number) => new Date(now.getTime() + days * DAY);
  // Each case: the stored parts, the clock, and what must be made again.
  type Case = [string, Partial<CertificateMaterial>, Date, 'authority' | 'certificate'];
  const cases: Case[] = [
    ...(['caPem', 'caKeyPem'] as const).flatMap((part) => [
      [`no ${part}`, { ...fresh, [part]: undefined }, now, 'authority'] satisfies Case,
      [`a damaged ${part}`, { ...fresh, [part]: 'not PEM' }, now, 'authority'] satisfies Case,
    ]),
    ...(['certPem', 'keyPem', 'bundlePem'] as const).flatMap((part) => [
      [`no ${part}`, { ...fresh, [part]: undefined }, now, 'certificate'] satisfies Case,
      [`a damaged ${part}`, { ...fresh, [part]: 'not PEM' }, now, 'certificate'] satisfies Case,
    ]),
    ['the serving certificate in place of the CA', { ...fresh, caPem: fresh.certPem, caKeyPem: fresh.keyPem }, now, 'authority'],
    ["another CA's key", { ...fresh, caKeyPem: otherCa.keyPem }, now, 'authority'],
    ['a serving pair from another CA', { ...fresh, certPem: stranger.certPem, keyPem: stranger.keyPem }, now, 'certificate'],
    ["another pair's key", { ...fresh, keyPem: stranger.keyPem }, now, 'certificate'],
    ['a certificate for another Service', { ...fresh, certPem: misnamed.certPem, keyPem: misnamed.keyPem }, now, 'certificate'],
    ['a bundle without the CA', { ...fresh, bundlePem: otherCa.certPem }, now, 'certificate'],
    ['a serving certificate near its end', fresh, later(CERTIFICATE_DAYS - RENEW_CERTIFICATE_DAYS + 1), 'certificate'],
    ['a serving certificate past its end', fresh, later(CERTIFICATE_DAYS + 1), 'certificate'],
    ['a CA near its end', fresh, later(CA_DAYS - RENEW_AUTHORITY_DAYS + 1), 'authority'],
    ['a CA past its end', fresh, later(CA_DAYS + 1), 'authority'],
    ['a CA not valid yet (a clock gone back)', fresh, later(-2), 'authority'],
    ['nothing at all', {}, now, 'authority'],
  ];

  it('SC5 a freshly made Secret is usable: CA, a serving pair for <service>.<namespace>.svc signed by it, and a bundle that trusts it', () => {
    expect(assessMaterial(fresh, service, now)).toEqual({ usable: true });
    expect(bundleTrusts(fresh.bundlePem, fresh.certPem, now)).toBe(true);
    expect(new X509Certificate(fresh.certPem).checkHost(`${service.name}.${service.namespace}.svc`)).toBe(`${service.name}.${service.namespace}.svc`);
    expect(bundleTrusts(fresh.bundlePem, stranger.certPem, now)).toBe(false);
  });

  it.each(cases)('SC5 %s is renewed (%#) into a Secret that is usable then, whose bundle trusts its pair', (_what, stored, at, renew) => {
    const assessment = assessMaterial(stored, service, at);
    expect(assessment).toMatchObject({ usable: false, renew });
    const renewed = renewMaterial(stored, service, renew, at);
    expect(assessMaterial(renewed, service, at)).toEqual({ usable: true });
    expect(bundleTrusts(renewed.bundlePem, renewed.certPem, at)).toBe(true);
    if (renew === 'certificate') expect(renewed.caPem).toBe(stored.caPem);
    // A replaced CA that is still valid stays in the bundle, so replicas still serving the old pair
    // remain trusted until they take the new one; an expired or damaged one does not.
    const old = stored.caPem ? pemCertificates(stored.caPem)[0] : undefined;
    const oldStillValid = old !== undefined && new X509Certificate(old).ca && new Date(new X509Certificate(old).validTo) > at && renew === 'authority';
    if (oldStillValid && stored.certPem && assessMaterial({ ...stored, bundlePem: stored.caPem }, service, now).usable) {
      expect(bundleTrusts(renewed.bundlePem, stored.certPem, at)).toBe(true);
    }
    for (const pem of pemCertificates(renewed.bundlePem)) expect(new Date(new X509Certificate(pem).validTo).getTime()).toBeGreaterThan(at.getTime());
  });
});

// ---- in the cluster ----

let offset = 0;
const clock = () => new Date(Date.now() + offset);
let stack: TestStack;
let replica: SelfConfigWebhookRuntime | null = null;
const replicaLogs: string[] = [];
const configurationName = `${service.name}-selfconfig`;
let namespace: string;

/** The SHA-256 fingerprint of the certificate a listener presents. */
function presented(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername: webhookDnsNames(service)[0], rejectUnauthorized: false }, () => {
      resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
      socket.end();
    });
    socket.on('error', reject);
  });
}

const portOf = (runtime: SelfConfigWebhookRuntime) => Number(new URL(runtime.url).port);
const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

async function storedSecret(): Promise<Record<string, string>> {
  const secret = await stack.core.readNamespacedSecret({ namespace: service.namespace, name: webhookSecretName(service) });
  return Object.fromEntries(Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
}

async function writeSecret(data: Record<string, string>): Promise<void> {
  const secret = await stack.core.readNamespacedSecret({ namespace: service.namespace, name: webhookSecretName(service) });
  secret.data = Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]));
  await stack.core.replaceNamespacedSecret({ namespace: service.namespace, name: webhookSecretName(service), body: secret });
}

async function storedBundle(): Promise<string> {
  const configuration = await stack.kubeConfig.makeApiClient(AdmissionregistrationV1Api).readValidatingWebhookConfiguration({ name: configurationName });
  return Buffer.from(configuration.webhooks?.[0]?.clientConfig.caBundle ?? '', 'base64').toString('utf8');
}

async function deployDocuments<T>(file: string): Promise<T[]> {
  return loadAllYaml(await readFile(path.join(REPO_ROOT, 'deploy', file), 'utf8')) as T[];
}

async function startReplica(kubeConfig: KubeConfig = stack.kubeConfig): Promise<SelfConfigWebhookRuntime> {
  return startSelfConfigWebhook({
    kubeConfig,
    logger: createLogger((line) => replicaLogs.push(line)),
    managed: { service, configurationName, host: '0.0.0.0', port: 0, now: clock },
  });
}

/** The Service's Endpoints: one subset per replica (same address, each its own port), named as the Service's webhook port. */
async function writeEndpoints(runtimes: SelfConfigWebhookRuntime[]): Promise<void> {
  const body = {
    metadata: { name: service.name, namespace: service.namespace },
    subsets: runtimes.map((runtime) => ({ addresses: [{ ip: endpointAddress() }], ports: [{ name: 'webhook', port: portOf(runtime), protocol: 'TCP' }] })),
  };
  try {
    const current = await stack.core.readNamespacedEndpoints({ namespace: service.namespace, name: service.name });
    await stack.core.replaceNamespacedEndpoints({ namespace: service.namespace, name: service.name, body: { ...body, metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion } } });
  } catch (error) {
    if (kubeStatus(error)?.code !== 404) throw error;
    await stack.core.createNamespacedEndpoints({ namespace: service.namespace, body });
  }
}

function selfConfig(name: string, instanceRef: string) {
  return { apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawSelfConfig', metadata: { name }, spec: { instanceRef, addSkills: ['web-search'] } };
}

/**
 * Creates a SelfConfig, asking again while a just-changed configuration or Endpoints are not in
 * effect yet (a real server applies them once its informers have seen them): a 500 (the webhook not
 * reachable or not trusted yet) or, when a refusal is expected, an admission (the webhook not yet
 * registered; the object is deleted again) is asked again, for up to 20 s.
 */
async function createSelfConfig(client: CustomObjectsApi, name: string, instanceRef: string, expected: 201 | 403): Promise<{ code: number; message: string }> {
  const deadline = Date.now() + 20_000;
  const custom = { group: 'openclaw.rocks', version: 'v1alpha1', namespace, plural: 'openclawselfconfigs' };
  for (;;) {
    const outcome = await client.createNamespacedCustomObject({ ...custom, body: selfConfig(name, instanceRef) }).then(
      () => ({ code: 201, message: '' }),
      (error: unknown) => ({ code: kubeStatus(error)?.code ?? 0, message: kubeStatus(error)?.message ?? String(error) }),
    );
    if (outcome.code === 201 && expected === 403) await stack.kubeConfig.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({ ...custom, name });
    if (outcome.code === expected || (outcome.code !== 500 && outcome.code !== 201) || Date.now() > deadline) return outcome;
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  stack = await startTestStack({
    worker: false,
    env: { webhookService: service, webhookConfiguration: configurationName, webhookHost: '0.0.0.0', webhookPort: 0 },
    webhookClock: clock,
  });
  namespace = `sc5-managed-${Date.now().toString(36)}`;
  await stack.core.createNamespace({ body: { metadata: { name: namespace, labels: { 'occ-test': namespace } } } });
}, 120_000);
afterAll(async () => {
  await replica?.close();
  // The lane's server is shared: what this file made in `default` goes with it.
  const ignore = () => undefined;
  await stack?.kubeConfig.makeApiClient(AdmissionregistrationV1Api).deleteValidatingWebhookConfiguration({ name: configurationName }).catch(ignore);
  await stack?.core.deleteNamespacedService({ namespace: service.namespace, name: service.name }).catch(ignore);
  await stack?.core.deleteNamespacedEndpoints({ namespace: service.namespace, name: service.name }).catch(ignore);
  await stack?.core.deleteNamespacedSecret({ namespace: service.namespace, name: webhookSecretName(service) }).catch(ignore);
  await stack?.core.deleteNamespacedServiceAccount({ namespace: service.namespace, name: `${service.name}-limited` }).catch(ignore);
  await stack?.close();
});

describe('SC5 managed webhook certificates in the cluster', () => {
  it('SC5 before the install registers the webhook, a replica serves a pair for <service>.<namespace>.svc from the Secret it made, and is ready (nothing names it)', async () => {
    const runtime = stack.runtime.selfConfigWebhook!;
    const stored = await storedSecret();
    expect(Object.keys(stored).sort()).toEqual(['ca-bundle.crt', 'ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    expect(await presented(portOf(runtime))).toBe(fingerprint(stored['tls.crt']!));
    const ready = await stack.request('/readyz');
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { webhook: 'ok' } });
  });

  it("SC5 with deploy/'s Service and webhook configuration, a second replica takes the same Secret, the CA bundle is written, and the API server calls the replicas: an administrator is refused, the instance's service account admitted", async () => {
    const [serviceManifest] = await deployDocuments<V1Service>('service.yaml');
    const [webhookManifest] = await deployDocuments<V1ValidatingWebhookConfiguration>('webhooks/selfconfig-webhook.yaml');
    await stack.core.createNamespacedService({ namespace: service.namespace, body: { ...serviceManifest!, metadata: { ...serviceManifest!.metadata, name: service.name, namespace: service.namespace } } });
    // deploy/'s configuration, renamed and scoped to this test's namespace (the lane's server is shared).
    const hooks = webhookManifest!.webhooks!.map((hook) => ({
      ...hook,
      clientConfig: { ...hook.clientConfig, service: { ...hook.clientConfig.service!, namespace: service.namespace, name: service.name } },
      namespaceSelector: { matchLabels: { 'occ-test': namespace } },
    }));
    expect(hooks.map((hook) => hook.clientConfig.caBundle)).toEqual([undefined]);
    await stack.kubeConfig.makeApiClient(AdmissionregistrationV1Api).createValidatingWebhookConfiguration({ body: { ...webhookManifest!, metadata: { name: configurationName }, webhooks: hooks } });
    // Two replicas at once: the second starting, the first at its resync.
    const [second] = await Promise.all([startReplica(), stack.runtime.selfConfigWebhook!.sync()]);
    replica = second;
    await writeEndpoints([stack.runtime.selfConfigWebhook!, replica]);
    const stored = await storedSecret();
    expect(await storedBundle()).toBe(stored['ca-bundle.crt']);
    expect([await presented(portOf(stack.runtime.selfConfigWebhook!)), await presented(portOf(replica))]).toEqual([fingerprint(stored['tls.crt']!), fingerprint(stored['tls.crt']!)]);
    expect([stack.runtime.selfConfigWebhook!.readiness(), replica.readiness()]).toEqual(['ok', 'ok']);

    const refused = await createSelfConfig(stack.kubeConfig.makeApiClient(CustomObjectsApi), 'admin-asks', 'agent-x', 403);
    expect(refused.code, refused.message).toBe(403);
    expect(refused.message).toBe(`admission webhook "${SELFCONFIG_WEBHOOK_NAME}" denied the request: OpenClawInstance "agent-x" not found in namespace "${namespace}"`);
    // The instance's own service account is admitted (E9: bound to cluster-admin here, for the create).
    const instance = 'agent-x';
    await stack.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: instance } } });
    await stack.kubeConfig.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace,
      body: { metadata: { name: 'agent-x-admin' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'ServiceAccount', name: instance, namespace }] },
    });
    await stack.kubeConfig
      .makeApiClient(CustomObjectsApi)
      .createNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', namespace, plural: 'openclawinstances', body: { apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance', metadata: { name: instance }, spec: {} } });
    const asInstance = (await kubeConfigAsServiceAccount(stack.kubeConfig, namespace, instance)).makeApiClient(CustomObjectsApi);
    expect(await createSelfConfig(asInstance, 'instance-asks', instance, 201)).toEqual({ code: 201, message: '' });
    // Both decisions were made by the managed replicas (the runtime's or the second's), reached through the Service.
    const decisions = [...stack.logs, ...replicaLogs].filter((line) => line.includes('selfconfig webhook decision') && line.includes(namespace));
    expect(decisions.length).toBeGreaterThanOrEqual(2);
  });

  it('SC5 a CA bundle changed out of band is put back at the next resync; a replica that may not write it is not ready, and says why; one that may not write its Secret does not start, and names it', async () => {
    const foreign = Buffer.from(createCertificateAuthority('out of band').certPem).toString('base64');
    const admissions = stack.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const overwrite = async () => {
      const current = await admissions.readValidatingWebhookConfiguration({ name: configurationName });
      current.webhooks![0]!.clientConfig.caBundle = foreign;
      await admissions.replaceValidatingWebhookConfiguration({ name: configurationName, body: current });
    };
    await overwrite();
    await replica!.sync();
    expect(await storedBundle()).toBe((await storedSecret())['ca-bundle.crt']);
    expect(replica!.readiness()).toBe('ok');

    // A replica whose service account may do nothing cannot start: it has no certificate to listen with, and says which Secret.
    const none = `${service.name}-none`;
    await stack.core.createNamespacedServiceAccount({ namespace: service.namespace, body: { metadata: { name: none } } });
    const refused = await startReplica(await kubeConfigAsServiceAccount(stack.kubeConfig, service.namespace, none)).then(
      async (started) => {
        await started.close();
        return 'started';
      },
      (error: unknown) => String(error),
    );
    expect(refused).toMatch(new RegExp(`^Error: SC5: the webhook certificate Secret ${service.namespace}/${webhookSecretName(service)} could not be read or written: .*forbidden`, 'i'));
    await stack.core.deleteNamespacedServiceAccount({ namespace: service.namespace, name: none });

    // A replica whose service account may read and write the Secret and read the configuration, but not update it.
    const rbac = stack.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const account = `${service.name}-limited`;
    await stack.core.createNamespacedServiceAccount({ namespace: service.namespace, body: { metadata: { name: account } } });
    await rbac.createClusterRole({
      body: {
        metadata: { name: account },
        rules: [
          { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'update'] },
          { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], verbs: ['get'] },
        ],
      },
    });
    await rbac.createClusterRoleBinding({
      body: { metadata: { name: account }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: account }, subjects: [{ kind: 'ServiceAccount', name: account, namespace: service.namespace }] },
    });
    try {
      await overwrite();
      const limited = await startReplica(await kubeConfigAsServiceAccount(stack.kubeConfig, service.namespace, account));
      try {
        expect(limited.readiness()).toMatch(new RegExp(`^the CA bundle could not be written into the ValidatingWebhookConfiguration ${configurationName}: .*forbidden`, 'i'));
        expect(await storedBundle()).toBe(Buffer.from(foreign, 'base64').toString('utf8'));
        // The runtime's replica, which may, repairs it; /readyz shows the check.
        await stack.runtime.selfConfigWebhook!.sync();
        expect(await (await stack.request('/readyz')).json()).toMatchObject({ status: 'ready', checks: { webhook: 'ok' } });
        await limited.sync().catch(() => undefined);
        expect(limited.readiness()).toBe('ok');
      } finally {
        await limited.close();
      }
    } finally {
      await rbac.deleteClusterRoleBinding({ name: account });
      await rbac.deleteClusterRole({ name: account });
    }
  });

  it('SC5 rotation without a restart: a serving certificate near its end is replaced under the same CA, a CA near its end under a bundle of both, and the API server keeps calling both replicas', async () => {
    const runtime = stack.runtime.selfConfigWebhook!;
    const admin = stack.kubeConfig.makeApiClient(CustomObjectsApi);
    const both = async () => {
      await runtime.sync();
      await replica!.sync();
    };
    // "A year on": the Secret holds what was issued long ago (still valid by the API server's clock),
    // both replicas take it, then the judging clock moves two days on, into the renewal window.
    const current = await storedSecret();
    const authority = { certPem: current['ca.crt']!, keyPem: current['ca.key']! };
    const ageing = issueServerCertificate(authority, {
      commonName: webhookDnsNames(service)[0]!,
      dnsNames: webhookDnsNames(service),
      days: CERTIFICATE_DAYS,
      now: new Date(Date.now() - (CERTIFICATE_DAYS - RENEW_CERTIFICATE_DAYS - 1) * DAY),
    });
    await writeSecret({ ...current, 'tls.crt': ageing.certPem, 'tls.key': ageing.keyPem });
    await both();
    expect([await presented(portOf(runtime)), await presented(portOf(replica!))]).toEqual([fingerprint(ageing.certPem), fingerprint(ageing.certPem)]);
    offset = 2 * DAY;
    await replica!.sync();
    const renewed = await storedSecret();
    expect(renewed['ca.crt']).toBe(current['ca.crt']);
    expect(renewed['tls.crt']).not.toBe(ageing.certPem);
    expect(await presented(portOf(replica!))).toBe(fingerprint(renewed['tls.crt']!));
    expect(await presented(portOf(runtime))).toBe(fingerprint(ageing.certPem));
    await runtime.sync();
    expect(await presented(portOf(runtime))).toBe(fingerprint(renewed['tls.crt']!));
    const afterRenewal = await createSelfConfig(admin, 'after-renewal', 'agent-x', 403);
    expect(afterRenewal.code, afterRenewal.message).toBe(403);

    // The CA: an old one both replicas serve under, then a new one, the old still in the bundle, so
    // the replica not yet resynced stays trusted.
    offset = 0;
    const oldAuthority = createCertificateAuthority('old webhook CA', CA_DAYS, new Date(Date.now() - (CA_DAYS - RENEW_AUTHORITY_DAYS - 1) * DAY));
    const oldPair = issueServerCertificate(oldAuthority, { commonName: webhookDnsNames(service)[0]!, dnsNames: webhookDnsNames(service) });
    await writeSecret({ 'ca.crt': oldAuthority.certPem, 'ca.key': oldAuthority.keyPem, 'tls.crt': oldPair.certPem, 'tls.key': oldPair.keyPem, 'ca-bundle.crt': oldAuthority.certPem });
    await both();
    expect(await storedBundle()).toBe(oldAuthority.certPem);
    expect([await presented(portOf(runtime)), await presented(portOf(replica!))]).toEqual([fingerprint(oldPair.certPem), fingerprint(oldPair.certPem)]);
    offset = 2 * DAY;
    await replica!.sync();
    const rotated = await storedSecret();
    expect(rotated['ca.crt']).not.toBe(oldAuthority.certPem);
    expect(pemCertificates(rotated['ca-bundle.crt']!).map(fingerprint)).toEqual([fingerprint(rotated['ca.crt']!), fingerprint(oldAuthority.certPem)]);
    expect(await storedBundle()).toBe(rotated['ca-bundle.crt']);
    expect(await presented(portOf(replica!))).toBe(fingerprint(rotated['tls.crt']!));
    expect(await presented(portOf(runtime))).toBe(fingerprint(oldPair.certPem));
    for (const [i, alone] of [runtime, replica!].entries()) {
      // Each replica alone behind the Service: the API server trusts both. (A real server keeps its
      // connections; idle ones are closed so that it dials the Endpoints again, with a new handshake.)
      await writeEndpoints([alone]);
      for (const listener of [runtime, replica!]) listener.server.closeIdleConnections();
      const outcome = await createSelfConfig(admin, `after-rotation-${i}`, 'agent-x', 403);
      expect(outcome.code, `replica ${i}: ${outcome.message}`).toBe(403);
    }
    await runtime.sync();
    expect(await presented(portOf(runtime))).toBe(fingerprint(rotated['tls.crt']!));
    expect([runtime.readiness(), replica!.readiness()]).toEqual(['ok', 'ok']);
    offset = 0;
  });
});
