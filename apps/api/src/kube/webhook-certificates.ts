import { createPrivateKey, X509Certificate } from 'node:crypto';
import { AdmissionregistrationV1Api, CoreV1Api, type KubeConfig, type V1Secret, type V1ValidatingWebhookConfiguration } from '@kubernetes/client-node';
import { FIELD_MANAGER } from '@occ/domain/kubernetes-names';
import { createCertificateAuthority, issueServerCertificate } from '@occ/kube-emulator/certificates';
import { kubeStatus } from './errors.ts';

// SC5 in a cluster, with nothing but the product: the SelfConfig webhook's serving certificate made
// and rotated by the API itself, as controller-runtime's cert rotator (open-policy-agent's
// cert-controller) does it.
//
// - One Secret, `<service>-webhook-tls` in the Service's namespace, holds the CA (ca.crt, ca.key),
//   the serving pair for `<service>.<namespace>.svc` (tls.crt, tls.key) and the bundle the API
//   server is to trust (ca-bundle.crt: the CA, and the previous CA while a rotation is under way).
// - Every replica, at start and every resync: reads it; when it is missing or unusable (a part
//   missing or damaged, the pair not the CA's, a name missing, within RENEW_*_DAYS of expiry) makes
//   a new one and writes it at the resourceVersion it read, so replicas racing make one Secret and
//   the losers take the winner's (a 409 is a re-read, never an error);
// - writes the Secret's bundle into every webhook of the ValidatingWebhookConfiguration whose
//   clientConfig names that Service (an update at the resourceVersion read; the manifests never set
//   caBundle, so `kubectl apply` leaves it); a bundle changed out of band is put back;
// - serves the Secret's pair only once that bundle trusts it (so no replica presents a certificate
//   the API server would refuse), swapping the listener's secure context without dropping
//   connections; until then it keeps serving the pair it had, which the bundle still trusts (the
//   previous CA stays in it).
//
// Readiness (the API's /readyz `webhook` check): ready when the configuration trusts what this
// replica serves, or when no webhook names the Service (then nothing is refused for want of it).
// A replica is added to the Service's endpoints only then, so a rollout never sends the API
// server to a replica it would not trust.

export const CA_DAYS = 3650;
export const CERTIFICATE_DAYS = 365;
/** A serving certificate this close to its end is replaced (same CA). */
export const RENEW_CERTIFICATE_DAYS = 30;
/** A CA this close to its end is replaced (new CA; the old one stays in the bundle until it expires). */
export const RENEW_AUTHORITY_DAYS = 90;
const DAY_MS = 86_400_000;

export interface WebhookService {
  namespace: string;
  name: string;
}

export interface CertificateMaterial {
  caPem: string;
  caKeyPem: string;
  certPem: string;
  keyPem: string;
  /** What the API server is to trust: the CA, and the previous one while it is still valid. */
  bundlePem: string;
}

const KEYS = { caPem: 'ca.crt', caKeyPem: 'ca.key', certPem: 'tls.crt', keyPem: 'tls.key', bundlePem: 'ca-bundle.crt' } as const satisfies Record<keyof CertificateMaterial, string>;

export function webhookSecretName(service: WebhookService): string {
  return `${service.name}-webhook-tls`;
}

/** The names the API server checks the certificate against (`<name>.<namespace>.svc`), and the longer forms. */
export function webhookDnsNames(service: WebhookService): string[] {
  const base = `${service.name}.${service.namespace}`;
  return [`${base}.svc`, base, `${base}.svc.cluster.local`];
}

/** Every certificate in a PEM text. */
export function pemCertificates(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)?.map((block) => `${block}\n`) ?? [];
}

function parse(pem: string | undefined): X509Certificate | null {
  if (!pem) return null;
  try {
    return new X509Certificate(pem);
  } catch {
    return null;
  }
}

function keyMatches(certificate: X509Certificate, keyPem: string | undefined): boolean {
  if (!keyPem) return false;
  try {
    return certificate.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

const endsWithin = (certificate: X509Certificate, now: Date, days: number) => new Date(certificate.validTo).getTime() - now.getTime() < days * DAY_MS;
const notYetValid = (certificate: X509Certificate, now: Date) => new Date(certificate.validFrom).getTime() > now.getTime();

/** Whether `bundlePem` holds a CA that signed `certPem` and is valid at `now`. */
export function bundleTrusts(bundlePem: string, certPem: string, now: Date): boolean {
  const certificate = parse(certPem);
  if (!certificate) return false;
  return pemCertificates(bundlePem).some((pem) => {
    const ca = parse(pem);
    return ca !== null && ca.ca && !endsWithin(ca, now, 0) && certificate.checkIssued(ca) && certificate.verify(ca.publicKey);
  });
}

export type Assessment = { usable: true } | { usable: false; renew: 'authority' | 'certificate'; reason: string };

/** What a stored Secret's parts are worth at `now`: usable, or what must be made again and why. */
export function assessMaterial(parts: Partial<CertificateMaterial>, service: WebhookService, now: Date): Assessment {
  const ca = parse(parts.caPem);
  if (!ca || !ca.ca) return { usable: false, renew: 'authority', reason: parts.caPem ? 'the CA certificate is damaged or not a CA' : 'no CA' };
  if (!keyMatches(ca, parts.caKeyPem)) return { usable: false, renew: 'authority', reason: 'the CA key does not match the CA certificate' };
  if (notYetValid(ca, now) || endsWithin(ca, now, RENEW_AUTHORITY_DAYS)) return { usable: false, renew: 'authority', reason: `the CA ends ${ca.validTo}` };
  const certificate = parse(parts.certPem);
  if (!certificate) return { usable: false, renew: 'certificate', reason: parts.certPem ? 'the serving certificate is damaged' : 'no serving certificate' };
  if (!certificate.checkIssued(ca) || !certificate.verify(ca.publicKey)) return { usable: false, renew: 'certificate', reason: 'the serving certificate is not signed by the CA' };
  if (!keyMatches(certificate, parts.keyPem)) return { usable: false, renew: 'certificate', reason: 'the serving key does not match the serving certificate' };
  const missing = webhookDnsNames(service).filter((name) => certificate.checkHost(name) === undefined);
  if (missing.length > 0) return { usable: false, renew: 'certificate', reason: `the serving certificate is not valid for ${missing.join(', ')}` };
  if (notYetValid(certificate, now) || endsWithin(certificate, now, RENEW_CERTIFICATE_DAYS)) {
    return { usable: false, renew: 'certificate', reason: `the serving certificate ends ${certificate.validTo}` };
  }
  if (!parts.bundlePem || !pemCertificates(parts.bundlePem).some((pem) => parse(pem)?.fingerprint256 === ca.fingerprint256)) {
    return { usable: false, renew: 'certificate', reason: 'the bundle does not hold the CA' };
  }
  return { usable: true };
}

/** New material from what is stored: a new serving pair, and a new CA when the old one will not do. */
export function renewMaterial(parts: Partial<CertificateMaterial>, service: WebhookService, renew: 'authority' | 'certificate', now: Date): CertificateMaterial {
  const authority =
    renew === 'authority' || !parts.caPem || !parts.caKeyPem
      ? createCertificateAuthority(`${service.name}.${service.namespace} webhook CA`, CA_DAYS, now)
      : { certPem: parts.caPem, keyPem: parts.caKeyPem };
  const [commonName, ...rest] = webhookDnsNames(service);
  const serving = issueServerCertificate(authority, { commonName: commonName!, dnsNames: [commonName!, ...rest], days: CERTIFICATE_DAYS, now });
  // The bundle: this CA first, then any other CA of the old bundle (or the old CA itself) still valid,
  // so that replicas still serving the previous pair stay trusted until they take the new one.
  const current = parse(authority.certPem)!;
  const previous = [...pemCertificates(parts.bundlePem ?? ''), ...(parts.caPem ? [parts.caPem] : [])]
    .map((pem) => ({ pem, certificate: parse(pem) }))
    .filter(({ certificate }) => certificate !== null && certificate.ca && !endsWithin(certificate, now, 0) && certificate.fingerprint256 !== current.fingerprint256);
  const kept = previous.filter(({ certificate }, i) => previous.findIndex((other) => other.certificate!.fingerprint256 === certificate!.fingerprint256) === i);
  return {
    caPem: authority.certPem,
    caKeyPem: authority.keyPem,
    certPem: serving.certPem,
    keyPem: serving.keyPem,
    bundlePem: [authority.certPem, ...kept.map(({ pem }) => pem)].join(''),
  };
}

function partsOf(secret: V1Secret | null): Partial<CertificateMaterial> {
  const data = secret?.data ?? {};
  const parts: Partial<CertificateMaterial> = {};
  for (const [field, key] of Object.entries(KEYS) as [keyof CertificateMaterial, string][]) {
    const value = data[key];
    if (typeof value === 'string') parts[field] = Buffer.from(value, 'base64').toString('utf8');
  }
  return parts;
}

function secretBody(service: WebhookService, material: CertificateMaterial, resourceVersion: string | undefined): V1Secret {
  const data = Object.fromEntries((Object.entries(KEYS) as [keyof CertificateMaterial, string][]).map(([field, key]) => [key, Buffer.from(material[field]).toString('base64')]));
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: webhookSecretName(service),
      namespace: service.namespace,
      labels: { 'app.kubernetes.io/name': 'openclaw-control-plane', 'app.kubernetes.io/component': 'webhook-certificate' },
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    type: 'Opaque',
    data,
  };
}

const RACE_ATTEMPTS = 5;

export interface EnsureOutcome {
  material: CertificateMaterial;
  /** Why this call wrote a new Secret (null: the stored one was usable, or another replica's was taken). */
  renewed: string | null;
}

/**
 * The Secret's material, made or renewed when it will not do at `now`; what is made starts at
 * `issueAt` (the real time: the API server checks validity by its own clock). Writes are conditional (create, or
 * replace at the resourceVersion read): a replica that loses a race reads the winner's Secret.
 */
export async function ensureWebhookCertificates(kubeConfig: KubeConfig, service: WebhookService, now: Date, issueAt: Date = new Date()): Promise<EnsureOutcome> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const name = webhookSecretName(service);
  for (let attempt = 1; ; attempt++) {
    const secret = await core.readNamespacedSecret({ namespace: service.namespace, name }).catch((error: unknown) => {
      if (kubeStatus(error)?.code === 404) return null;
      throw error;
    });
    const parts = partsOf(secret);
    const assessment = assessMaterial(parts, service, now);
    if (assessment.usable) return { material: parts as CertificateMaterial, renewed: null };
    const material = renewMaterial(parts, service, assessment.renew, issueAt);
    try {
      if (secret) {
        await core.replaceNamespacedSecret({ namespace: service.namespace, name, body: secretBody(service, material, secret.metadata?.resourceVersion), fieldManager: FIELD_MANAGER });
      } else {
        await core.createNamespacedSecret({ namespace: service.namespace, body: secretBody(service, material, undefined), fieldManager: FIELD_MANAGER });
      }
      return { material, renewed: assessment.reason };
    } catch (error) {
      // Another replica wrote first (409 AlreadyExists or Conflict): read what it wrote.
      if (kubeStatus(error)?.code !== 409 || attempt >= RACE_ATTEMPTS) throw error;
    }
  }
}

export type InjectionOutcome = 'absent' | 'no-webhook' | 'unchanged' | 'written';

type Webhook = NonNullable<V1ValidatingWebhookConfiguration['webhooks']>[number];

function namesService(webhook: Webhook, service: WebhookService): boolean {
  const target = webhook.clientConfig?.service;
  return target?.namespace === service.namespace && target.name === service.name;
}

/**
 * Writes `bundlePem` as the caBundle of every webhook in `configurationName` that names `service`.
 * Answers what it did and the configuration as it now stands (null when there is none), which
 * `configurationTrusts` judges without reading it again.
 */
export async function injectCaBundle(
  kubeConfig: KubeConfig,
  configurationName: string,
  service: WebhookService,
  bundlePem: string,
): Promise<{ outcome: InjectionOutcome; configuration: V1ValidatingWebhookConfiguration | null }> {
  const api = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const wanted = Buffer.from(bundlePem).toString('base64');
  for (let attempt = 1; ; attempt++) {
    const configuration = await api.readValidatingWebhookConfiguration({ name: configurationName }).catch((error: unknown) => {
      if (kubeStatus(error)?.code === 404) return null;
      throw error;
    });
    if (!configuration) return { outcome: 'absent', configuration };
    const ours = (configuration.webhooks ?? []).filter((webhook) => namesService(webhook, service));
    if (ours.length === 0) return { outcome: 'no-webhook', configuration };
    if (ours.every((webhook) => webhook.clientConfig.caBundle === wanted)) return { outcome: 'unchanged', configuration };
    for (const webhook of ours) webhook.clientConfig.caBundle = wanted;
    try {
      const written = await api.replaceValidatingWebhookConfiguration({ name: configurationName, body: configuration, fieldManager: FIELD_MANAGER });
      return { outcome: 'written', configuration: written };
    } catch (error) {
      if (kubeStatus(error)?.code !== 409 || attempt >= RACE_ATTEMPTS) throw error;
    }
  }
}

/**
 * Whether the API server would trust `certPem` when calling `service` through `configuration`:
 * every webhook naming the Service has a caBundle that verifies it. With no such webhook (or no
 * configuration) there is nothing to be trusted for, and the answer is `null`.
 */
export function configurationTrusts(configuration: V1ValidatingWebhookConfiguration | null, service: WebhookService, certPem: string, now: Date): boolean | null {
  const ours = (configuration?.webhooks ?? []).filter((webhook) => namesService(webhook, service));
  if (ours.length === 0) return null;
  return ours.every((webhook) => bundleTrusts(Buffer.from(webhook.clientConfig.caBundle ?? '', 'base64').toString('utf8'), certPem, now));
}
