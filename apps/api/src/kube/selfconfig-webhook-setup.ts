import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
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

// Where the SelfConfig webhook's certificate comes from and who registers it (SC5):
// - embedded (`npm start` without KUBECONFIG): a CA and a certificate for 127.0.0.1 are made at
//   first start and kept beside the emulator's objects (<dataDir>/kube/), the listener takes a free
//   loopback port, and the ValidatingWebhookConfiguration is applied with that URL and CA;
// - configured (OCC_WEBHOOK_TLS_CERT_FILE/KEY_FILE, e.g. a cert-manager Secret mounted in the pod):
//   the listener serves those files, and the deploy manifests register the webhook with the CA
//   that signed them (cert-manager's CA injector, or a caBundle written at install).

export interface SelfConfigWebhookRuntime {
  url: string;
  caPem: string | null;
  server: Server;
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
  /** Embedded: make (or reuse from this directory; null keeps them in memory) the certificates and register the webhook. */
  embedded?: { certificateDir: string | null };
  /** Configured: serve these files; registration is the manifests'. */
  files?: { certFile: string; keyFile: string; host: string; port: number };
}

export async function startSelfConfigWebhook(options: StartSelfConfigWebhookOptions): Promise<SelfConfigWebhookRuntime> {
  const handler = createSelfConfigWebhookHandler({
    instanceServiceAccount: instanceServiceAccountFromCluster(options.kubeConfig),
    logger: options.logger.child({ component: 'selfconfig-webhook' }),
  });
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
  return { url, caPem, server, close };
}
