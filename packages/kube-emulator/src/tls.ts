// TLS for the emulator (rule E5): a certificate authority made at first start and a serving
// certificate it signs at every start. client-go (kubectl, helm, every Go client) sends a bearer
// token only over TLS, so plain HTTP with insecure-skip-tls-verify leaves them unauthenticated;
// a CA in the kubeconfig's certificate-authority-data is what a real cluster's kubeconfig has.
//
// node:crypto makes keys and signatures but not X.509 certificates, so the few DER structures a
// certificate needs (RFC 5280) are written here: no native dependency, no openssl process.

import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';

export interface KeyPair {
  /** PEM certificate. */
  cert: string;
  /** PEM PKCS#8 private key. */
  key: string;
}

const CA_CERT_FILE = 'ca.crt';
const CA_KEY_FILE = 'ca.key';
const DAY_MS = 86_400_000;

// --- DER -------------------------------------------------------------------------------------

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...items: Buffer[]): Buffer => tlv(0x30, ...items);
const set = (...items: Buffer[]): Buffer => tlv(0x31, ...items);
const octets = (value: Buffer): Buffer => tlv(0x04, value);
const utf8 = (value: string): Buffer => tlv(0x0c, Buffer.from(value, 'utf8'));
const bitString = (value: Buffer, unusedBits = 0): Buffer => tlv(0x03, Buffer.from([unusedBits]), value);
const explicit = (n: number, content: Buffer): Buffer => tlv(0xa0 + n, content);

function integer(value: Buffer): Buffer {
  let bytes = value;
  while (bytes.length > 1 && bytes[0] === 0 && (bytes[1] ?? 0) < 0x80) bytes = bytes.subarray(1);
  if ((bytes[0] ?? 0) >= 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(0x02, bytes);
}

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const arc of rest) {
    const chunk: number[] = [];
    for (let v = arc; ; v = Math.floor(v / 128)) {
      chunk.unshift((v % 128) | (chunk.length > 0 ? 0x80 : 0));
      if (v < 128) break;
    }
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2))) : tlv(0x18, Buffer.from(iso));
}

function name(commonName: string): Buffer {
  return sequence(set(sequence(oid('2.5.4.3'), utf8(commonName))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), octets(value));
}

function ipBytes(address: string): Buffer {
  if (isIP(address) === 4) return Buffer.from(address.split('.').map(Number));
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = address.includes('::') ? groups(tail) : [];
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return Buffer.from(all.flatMap((g) => [g >> 8, g & 0xff]));
}

const ECDSA_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));

interface CertificateRequest {
  subject: string;
  publicKey: KeyObject;
  issuer: string;
  issuerKey: KeyObject;
  issuerPublicKey: KeyObject;
  days: number;
  ca: boolean;
  hosts?: string[];
}

function keyIdentifier(publicKey: KeyObject): Buffer {
  return createHash('sha1').update(publicKey.export({ type: 'spki', format: 'der' })).digest();
}

function certificate(request: CertificateRequest): string {
  const now = Date.now();
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40;
  const extensions = [
    // keyUsage: digitalSignature, keyCertSign, cRLSign for the CA; digitalSignature, keyEncipherment for the server.
    extension('2.5.29.15', true, request.ca ? bitString(Buffer.from([0x86]), 1) : bitString(Buffer.from([0xa0]), 5)),
    extension('2.5.29.19', true, request.ca ? sequence(tlv(0x01, Buffer.from([0xff]))) : sequence()),
    extension('2.5.29.14', false, octets(keyIdentifier(request.publicKey))),
  ];
  if (!request.ca) {
    extensions.push(extension('2.5.29.35', false, sequence(tlv(0x80, keyIdentifier(request.issuerPublicKey)))));
    extensions.push(extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))));
    // Go and Node check the host against subjectAltName only; the common name is not consulted.
    const names = (request.hosts ?? []).map((host) => (isIP(host) ? tlv(0x87, ipBytes(host)) : tlv(0x82, Buffer.from(host, 'ascii'))));
    extensions.push(extension('2.5.29.17', false, sequence(...names)));
  }
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ECDSA_SHA256,
    name(request.issuer),
    sequence(time(new Date(now - 3_600_000)), time(new Date(now + request.days * DAY_MS))),
    name(request.subject),
    request.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, request.issuerKey);
  const der = sequence(tbs, ECDSA_SHA256, bitString(signature));
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
}

function ecKeyPair(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

const CA_NAME = 'occ-kube-emulator-ca';

/** A new self-signed CA, valid ten years. */
export function createCertificateAuthority(): KeyPair {
  const { publicKey, privateKey } = ecKeyPair();
  const cert = certificate({ subject: CA_NAME, publicKey, issuer: CA_NAME, issuerKey: privateKey, issuerPublicKey: publicKey, days: 3650, ca: true });
  return { cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** A serving certificate for `hosts` (IP addresses and DNS names), signed by the CA, valid one year. */
export function issueServingCertificate(ca: KeyPair, hosts: string[]): KeyPair {
  const { publicKey, privateKey } = ecKeyPair();
  const caKey = createPrivateKey(ca.key);
  const caCert = new X509Certificate(ca.cert);
  const cert = certificate({
    subject: 'kube-apiserver',
    publicKey,
    issuer: CA_NAME,
    issuerKey: caKey,
    issuerPublicKey: caCert.publicKey,
    days: 365,
    ca: false,
    hosts,
  });
  return { cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

function usable(ca: KeyPair): boolean {
  try {
    const cert = new X509Certificate(ca.cert);
    // Renewed a month before it expires, so a kubeconfig written now stays good for a while.
    return cert.ca && Date.parse(cert.validTo) - Date.now() > 30 * DAY_MS && cert.checkPrivateKey(createPrivateKey(ca.key));
  } catch {
    return false;
  }
}

/**
 * The CA kept in `dir` (ca.crt, ca.key), made there at first start, so that a kubeconfig written
 * by an earlier run keeps working after a restart. Without `dir` the CA lives in memory only.
 */
export async function loadOrCreateCertificateAuthority(dir: string | undefined): Promise<KeyPair> {
  if (!dir) return createCertificateAuthority();
  const certFile = join(dir, CA_CERT_FILE);
  const keyFile = join(dir, CA_KEY_FILE);
  try {
    const stored = { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
    if (usable(stored)) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const ca = createCertificateAuthority();
  await mkdir(dir, { recursive: true });
  await writeFile(keyFile, ca.key, { mode: 0o600 });
  await chmod(keyFile, 0o600);
  await writeFile(certFile, ca.cert, { mode: 0o644 });
  return ca;
}
