// A small certificate authority for local TLS: the embedded installation's webhook certificate
// (made at first start and kept with the emulator's state), tests' HTTPS servers, and in a cluster
// the webhook's CA and serving certificate when the product manages them itself
// (apps/api/src/kube/webhook-certificates.ts); certificates from files are the other way.
//
// node-forge encodes the X.509 structures (names, validity, extensions), which node:crypto cannot;
// keys are ECDSA P-256 and signatures are made by node:crypto. forge itself only knows RSA keys
// and signs in JavaScript (about a second per certificate on these machines, against a
// millisecond here), so its TBSCertificate gets our key and algorithm before it is signed.

import { createPublicKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

export interface ServerCertificateRequest {
  commonName: string;
  dnsNames?: string[];
  ipAddresses?: string[];
  /** 365 by default. */
  days?: number;
  /** When the validity starts (a minute before this); now by default. */
  now?: Date;
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const { asn1 } = forge;
// forge's TBSCertificate encoder wants an RSA key object; its SubjectPublicKeyInfo is replaced.
const PLACEHOLDER_KEY = forge.pki.setRsaPublicKey(new forge.jsbn.BigInteger('3'), new forge.jsbn.BigInteger('65537'));

function ecKeyPair(): { keyPem: string; spkiDer: Buffer } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    spkiDer: createPublicKey(privateKey).export({ type: 'spki', format: 'der' }),
  };
}

function serialNumber(): string {
  // Positive (high bit clear) and 16 bytes, as RFC 5280 asks.
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}

/** AlgorithmIdentifier for ecdsa-with-SHA256: parameters absent (RFC 5758), not NULL as forge writes them. */
function ecdsaAlgorithm(): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(ECDSA_WITH_SHA256).getBytes()),
  ]);
}

interface CertificateFields {
  subject: forge.pki.CertificateField[];
  issuer: forge.pki.CertificateField[];
  days: number;
  now: Date;
  extensions: unknown[];
  spkiDer: Buffer;
  signerKeyPem: string;
}

function certificatePem(fields: CertificateFields): string {
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = PLACEHOLDER_KEY;
  certificate.serialNumber = serialNumber();
  const now = fields.now.getTime();
  certificate.validity.notBefore = new Date(now - 60_000);
  certificate.validity.notAfter = new Date(now + fields.days * 86_400_000);
  certificate.setSubject(fields.subject);
  certificate.setIssuer(fields.issuer);
  certificate.setExtensions(fields.extensions);
  certificate.siginfo.algorithmOid = ECDSA_WITH_SHA256;
  const tbs = (forge.pki as unknown as { getTBSCertificate(c: forge.pki.Certificate): forge.asn1.Asn1 }).getTBSCertificate(certificate);
  // TBSCertificate: [0] version, serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, [3] extensions
  const parts = tbs.value as forge.asn1.Asn1[];
  parts[2] = ecdsaAlgorithm();
  parts[6] = asn1.fromDer(fields.spkiDer.toString('binary'));
  const tbsDer = Buffer.from(asn1.toDer(tbs).getBytes(), 'binary');
  const signature = sign('sha256', tbsDer, fields.signerKeyPem);
  const der = asn1.toDer(
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
      tbs,
      ecdsaAlgorithm(),
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, `\u0000${signature.toString('binary')}`),
    ]),
  ).getBytes();
  const base64 = Buffer.from(der, 'binary').toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${base64.replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
}

export function createCertificateAuthority(commonName: string, days = 3650, now = new Date()): KeyPairPem {
  const keys = ecKeyPair();
  const name = [{ name: 'commonName', value: commonName }];
  const certPem = certificatePem({
    subject: name,
    issuer: name,
    days,
    now,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
    spkiDer: keys.spkiDer,
    signerKeyPem: keys.keyPem,
  });
  return { certPem, keyPem: keys.keyPem };
}

/** A serving certificate signed by `ca`, valid for the given DNS names and IP addresses. */
export function issueServerCertificate(ca: KeyPairPem, request: ServerCertificateRequest): KeyPairPem {
  const issuer = issuerOf(ca.certPem);
  const keys = ecKeyPair();
  const altNames = [
    ...(request.dnsNames ?? []).map((value) => ({ type: 2, value })),
    ...(request.ipAddresses ?? []).map((ip) => {
      if (isIP(ip) === 0) throw new Error(`${ip} is not an IP address`);
      return { type: 7, ip };
    }),
  ];
  const certPem = certificatePem({
    subject: [{ name: 'commonName', value: request.commonName }],
    issuer,
    days: request.days ?? 365,
    now: request.now ?? new Date(),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
    spkiDer: keys.spkiDer,
    signerKeyPem: ca.keyPem,
  });
  return { certPem, keyPem: keys.keyPem };
}

/** The subject of a CA certificate made by createCertificateAuthority (a common name only), encoded the same way. */
function issuerOf(caPem: string): forge.pki.CertificateField[] {
  const match = /^CN=(.*)$/.exec(new X509Certificate(caPem).subject.trim());
  if (!match?.[1]) throw new Error('the CA certificate must have a subject of one common name');
  return [{ name: 'commonName', value: match[1] }];
}
