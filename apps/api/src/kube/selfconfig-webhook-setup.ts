import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { AdmissionregistrationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { createCertificateAuthority, issueServerCertificate } from '@occ/kube-emulator/certificates';
import {
  createSelfConfigWebhookHandler,
  instanceServiceAccountFromCluster,
  listenSelfConfigWebhook,
  registerSelfConfigWebhook,
  SELFCONFIG_WEBHOOK_PATH,
  selfConfigWebhookConfiguration,
  type WebhookTls,
} from '../http/selfconfig-webhook.ts';
import type { Logger } from '../log.ts';
import { kubeStatus } from './errors.ts';
import { configurationTrusts, ensureWebhookCertificates, injectCaBundle, webhookSecretName, type WebhookService } from './webhook-certificates.ts';

// Where the SelfConfig webhook's certificate comes from and who registers it (SC5):
// - embedded (`npm start` without KUBECONFIG): a CA and a certificate for 127.0.0.1 are made at
//   first start and kept beside the emulator's objects (<dataDir>/kube/), the listener takes a free
//   loopback port, and the ValidatingWebhookConfiguration is applied with that URL and CA;
// - configured (OCC_WEBHOOK_TLS_CERT_FILE/KEY_FILE, e.g. a cert-manager Secret mounted in the pod):
//   the listener serves those files, and the deploy manifests register the webhook with the CA
//   that signed them (cert-manager's CA injector, or a caBundle written at install);
// - managed (OCC_WEBHOOK_SERVICE, what deploy/ uses): the product makes and rotates its own CA and
//   serving certificate for the Service in a Secret, and writes the CA into the manifests'
//   ValidatingWebhookConfiguration (webhook-certificates.ts); /readyz waits until that
//   configuration trusts what this replica serves.

export interface SelfConfigWebhookRuntime {
  url: string;
  caPem: string | null;
  server: Server;
  /** 'ok', or why the API server would not (yet) be sent here: the /readyz `webhook` check. */
  readiness(): string;
  /** Managed certificates: one pass of the rotation (tests; it also runs every resync period). */
  sync(): Promise<void>;
  close(): Promise<void>;
}

interface EmbeddedCertificates extends WebhookTls {
  caPem: string;
}

const CONFIGURATION_NAME = 'openclaw-selfconfig';

function usable(certPem: string, now: Date): boolean {
  try {
    const certificate = new X509Certificate(certPem);
    return new Date(certificate.validTo).getTime() > now.getTime() + 86_400_000 && certificate.checkIP('127.0.0.1') === '127.0.0.1';
  } catch {
    return false;
  }
}

/** The embedded webhook's CA and certificate: read from `dir`, or made (and written there) when missing or near expiry. */
export async function embeddedWebhookCertificates(dir: string | null): Promise<EmbeddedCertificates> {
  const files = dir ? { ca: path.join(dir, 'webhook-ca.crt'), cert: path.join(dir, 'webhook.crt'), key: path.join(dir, 'webhook.key') } : null;
  if (files) {
    try {
      const [caPem, certPem, keyPem] = await Promise.all([readFile(files.ca, 'utf8'), readFile(files.cert, 'utf8'), readFile(files.key, 'utf8')]);
      if (usable(certPem, new Date())) return { caPem, certPem, keyPem };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const ca = createCertificateAuthority('openclaw-selfconfig-webhook-ca');
  const serving = issueServerCertificate(ca, { commonName: 'openclaw-selfconfig-webhook', ipAddresses: ['127.0.0.1'], dnsNames: ['localhost'] });
  if (files && dir) {
    await mkdir(dir, { recursive: true });
    await writeFile(files.ca, ca.certPem);
    await writeFile(files.cert, serving.certPem);
    await writeFile(files.key, serving.keyPem, { mode: 0o600 });
  }
  return { caPem: ca.certPem, certPem: serving.certPem, keyPem: serving.keyPem };
}

export interface StartSelfConfigWebhookOptions {
  kubeConfig: KubeConfig;
  logger: Logger;
  /**
   * Embedded: make (or reuse from this directory; null keeps them in memory) the certificates and
   * register the webhook. `unregisterOnClose`: remove that registration when the listener closes
   * (a loopback webhook on a shared real cluster, in tests: left behind, it would refuse every later
   * SelfConfig request there).
   */
  embedded?: { certificateDir: string | null; unregisterOnClose?: boolean };
  /** Configured: serve these files; registration is the manifests'. */
  files?: { certFile: string; keyFile: string; host: string; port: number };
  /** Managed: certificates made and rotated by the product for this Service; registration is the manifests'. */
  managed?: ManagedWebhookOptions;
}

export interface ManagedWebhookOptions {
  service: WebhookService;
  /** The ValidatingWebhookConfiguration whose webhooks naming `service` get the CA bundle. */
  configurationName: string;
  host: string;
  port: number;
  /** 60 s: how often the Secret and the configuration are read again (rotation, repair). */
  resyncMs?: number;
  /** The clock that judges expiry (tests move it on); what is made is issued at the real time. */
  now?: () => Date;
}

/**
 * Managed certificates: listens with the Secret's pair, and on every resync renews it when due,
 * puts the bundle back into the configuration, and swaps to the Secret's pair once it is trusted.
 */
async function startManagedWebhook(
  options: StartSelfConfigWebhookOptions & { managed: ManagedWebhookOptions },
  handler: ReturnType<typeof createSelfConfigWebhookHandler>,
): Promise<SelfConfigWebhookRuntime> {
  const { kubeConfig, managed } = options;
  const logger = options.logger.child({ component: 'webhook-certificates' });
  const now = managed.now ?? (() => new Date());
  const secret = `${managed.service.namespace}/${webhookSecretName(managed.service)}`;
  // Without a certificate there is nothing to listen with: a start that cannot read or write the
  // Secret fails, naming it (a missing permission, the namespace missing).
  let served = (
    await ensureWebhookCertificates(kubeConfig, managed.service, now()).catch((error: unknown) => {
      throw new Error(`SC5: the webhook certificate Secret ${secret} could not be read or written: ${kubeStatus(error)?.message ?? String(error)}`, { cause: error });
    })
  ).material;
  const server = await listenSelfConfigWebhook(handler, served, managed.host, managed.port);
  let readiness = 'not yet checked';
  let warnedUnregistered = false;
  const attempt = async <T>(what: string, step: () => Promise<T>): Promise<T> => {
    try {
      return await step();
    } catch (error) {
      readiness = `${what}: ${kubeStatus(error)?.message ?? String(error)}`;
      throw error;
    }
  };
  const sync = async (): Promise<void> => {
    const { material, renewed } = await attempt(`the Secret ${secret} could not be read or written`, () => ensureWebhookCertificates(kubeConfig, managed.service, now()));
    if (renewed) logger.info('webhook certificate renewed', { secret, reason: renewed });
    const { outcome, configuration } = await attempt(`the CA bundle could not be written into the ValidatingWebhookConfiguration ${managed.configurationName}`, () =>
      injectCaBundle(kubeConfig, managed.configurationName, managed.service, material.bundlePem),
    );
    if (outcome === 'written') logger.info('webhook CA bundle written', { configuration: managed.configurationName, secret });
    // Judged on the configuration as the bundle's write left it (one read a pass, not three).
    const trusted = configurationTrusts(configuration, managed.service, material.certPem, now());
    if (trusted !== false && material.certPem !== served.certPem) {
      server.setSecureContext({ cert: material.certPem, key: material.keyPem });
      served = material;
      logger.info('webhook serving certificate replaced', { secret });
    }
    const servedTrusted = served.certPem === material.certPem ? trusted : configurationTrusts(configuration, managed.service, served.certPem, now());
    if (servedTrusted === null && !warnedUnregistered) {
      warnedUnregistered = true;
      logger.warn('no webhook of the ValidatingWebhookConfiguration names this Service: SelfConfig requests made in the cluster are not checked (SC5)', {
        configuration: managed.configurationName,
        service: `${managed.service.namespace}/${managed.service.name}`,
      });
    }
    if (servedTrusted !== null) warnedUnregistered = false;
    readiness = servedTrusted === false ? `the ValidatingWebhookConfiguration ${managed.configurationName} does not trust the certificate served yet` : 'ok';
  };
  let syncing: Promise<void> | null = null;
  const once = () => {
    syncing ??= sync().finally(() => {
      syncing = null;
    });
    return syncing;
  };
  // The first pass, like every later one, may fail (the API server briefly away, a permission the
  // install lacks): the listener stays, /readyz says why, and the next resync tries again.
  const pass = () => once().catch((error: unknown) => logger.warn('webhook certificate check failed; will retry', { error: kubeStatus(error)?.message ?? String(error) }));
  await pass();
  const timer = setInterval(() => void pass(), managed.resyncMs ?? 60_000);
  timer.unref();
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `https://${managed.host.includes(':') ? `[${managed.host}]` : managed.host}:${bound}${SELFCONFIG_WEBHOOK_PATH}`,
    caPem: null,
    server,
    readiness: () => readiness,
    sync: once,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function startSelfConfigWebhook(options: StartSelfConfigWebhookOptions): Promise<SelfConfigWebhookRuntime> {
  const handler = createSelfConfigWebhookHandler({
    instanceServiceAccount: instanceServiceAccountFromCluster(options.kubeConfig),
    logger: options.logger.child({ component: 'selfconfig-webhook' }),
  });
  if (options.managed) return startManagedWebhook({ ...options, managed: options.managed }, handler);
  let tls: WebhookTls;
  let caPem: string | null = null;
  let host: string;
  let port: number;
  if (options.files) {
    tls = { certPem: await readFile(options.files.certFile, 'utf8'), keyPem: await readFile(options.files.keyFile, 'utf8') };
    ({ host, port } = options.files);
  } else {
    const made = await embeddedWebhookCertificates(options.embedded?.certificateDir ?? null);
    tls = made;
    caPem = made.caPem;
    [host, port] = ['127.0.0.1', 0];
  }
  const server = await listenSelfConfigWebhook(handler, tls, host, port);
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const bound = (server.address() as AddressInfo).port;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${bound}${SELFCONFIG_WEBHOOK_PATH}`;
  if (caPem !== null) {
    try {
      await registerSelfConfigWebhook(options.kubeConfig, selfConfigWebhookConfiguration(CONFIGURATION_NAME, url, caPem));
    } catch (error) {
      await close();
      throw error;
    }
  }
  const unregister = async () => {
    const admissions = options.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const current = await admissions.readValidatingWebhookConfiguration({ name: CONFIGURATION_NAME }).catch(() => null);
    // Only a registration that still points here (a later runtime's is left alone).
    if (current?.webhooks?.some((webhook) => webhook.clientConfig.url === url)) {
      await admissions.deleteValidatingWebhookConfiguration({ name: CONFIGURATION_NAME }).catch(() => undefined);
    }
  };
  const closeAll = options.embedded?.unregisterOnClose ? () => unregister().then(close) : close;
  return { url, caPem, server, readiness: () => 'ok', sync: async () => undefined, close: closeAll };
}
