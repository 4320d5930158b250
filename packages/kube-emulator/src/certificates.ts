// A small certificate authority for local TLS: the embedded installation's webhook certificate
// (made at first start and kept with the emulator's state) and tests' HTTPS servers. Keys come
// from node:crypto; node-forge writes the X.509 structures, which node:crypto cannot. Production
// certificates come from files (cert-manager or the platform's CA), never from here.

import { generateKeyPairSync, randomBytes } from 'node:crypto';
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
  /** Start of validity; now by default (tests make expired certificates with it). */
  notBefore?: Date;
}

function rsaKeyPair(): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; keyPem: string } {
  // node:crypto makes the key in native code; forge would take seconds in JavaScript.
  const { privateKey: pem } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const privateKey = forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
  const publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  return { privateKey, publicKey, keyPem: pem };
}

function serialNumber(): string {
  // Positive (high bit clear) and 16 bytes, as RFC 5280 asks.
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}

function validity(certificate: forge.pki.Certificate, days: number, notBefore = new Date()): void {
  certificate.validity.notBefore = new Date(notBefore.getTime() - 60_000);
  certificate.validity.notAfter = new Date(notBefore.getTime() + days * 86_400_000);
}

export function createCertificateAuthority(commonName: string, days = 3650): KeyPairPem {
  const keys = rsaKeyPair();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = keys.publicKey;
  certificate.serialNumber = serialNumber();
  validity(certificate, days);
  const subject = [{ name: 'commonName', value: commonName }];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  certificate.sign(keys.privateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(certificate), keyPem: keys.keyPem };
}

/** A serving certificate signed by `ca`, valid for the given DNS names and IP addresses. */
export function issueServerCertificate(ca: KeyPairPem, request: ServerCertificateRequest): KeyPairPem {
  const caCertificate = forge.pki.certificateFromPem(ca.certPem);
  const caKey = forge.pki.privateKeyFromPem(ca.keyPem);
  const keys = rsaKeyPair();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = keys.publicKey;
  certificate.serialNumber = serialNumber();
  validity(certificate, request.days ?? 365, request.notBefore);
  certificate.setSubject([{ name: 'commonName', value: request.commonName }]);
  certificate.setIssuer(caCertificate.subject.attributes);
  const altNames = [
    ...(request.dnsNames ?? []).map((value) => ({ type: 2, value })),
    ...(request.ipAddresses ?? []).map((ip) => {
      if (isIP(ip) === 0) throw new Error(`${ip} is not an IP address`);
      return { type: 7, ip };
    }),
  ];
  certificate.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
  ]);
  certificate.sign(caKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(certificate), keyPem: keys.keyPem };
}
