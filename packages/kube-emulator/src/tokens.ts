// ServiceAccount tokens: the TokenRequest API (POST .../serviceaccounts/{name}/token) issues JWTs
// signed with the server's key, as a real kube-apiserver does (ES256 here; RS256 there, both are
// accepted by its verifier), carrying the claims it writes: iss, sub, aud, exp, iat, nbf, jti and
// kubernetes.io {namespace, serviceaccount {name, uid}}. The key is kept in a file beside the data
// file, so tokens survive a restart like the objects do.
//
// Not emulated: bound object references (pods, secrets, nodes), the extended expiration the
// kubelet asks for, and the OIDC discovery documents.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { badRequest, invalid, invalidValue, notFound, type FieldError } from './errors.ts';
import { isObject, kubeTimestamp, type JsonObject, type KubeObject } from './types.ts';

/** The issuer and default audience of a kubeadm cluster's tokens. */
export const TOKEN_ISSUER = 'https://kubernetes.default.svc.cluster.local';
export const API_AUDIENCES = [TOKEN_ISSUER];
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

export interface ServiceAccountClaims {
  namespace: string;
  name: string;
  uid: string;
  tokenId: string;
  audiences: string[];
  expiresAt: Date;
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function parseSegment(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export class ServiceAccountTokens {
  private readonly publicKey: KeyObject;
  private readonly keyId: string;

  constructor(
    private readonly privateKey: KeyObject,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.publicKey = createPublicKey(privateKey);
    // The apiserver's kid: a hash of the public key's DER, so verifiers can pick the key.
    this.keyId = createHash('sha256').update(this.publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
  }

  issue(request: { namespace: string; name: string; uid: string; audiences: string[]; expirationSeconds: number }): { token: string; expiresAt: Date } {
    const now = Math.floor(this.clock().getTime() / 1000);
    const exp = now + request.expirationSeconds;
    const header = { alg: 'ES256', kid: this.keyId };
    const payload = {
      aud: request.audiences,
      exp,
      iat: now,
      iss: TOKEN_ISSUER,
      jti: randomUUID(),
      'kubernetes.io': { namespace: request.namespace, serviceaccount: { name: request.name, uid: request.uid } },
      nbf: now,
      sub: `system:serviceaccount:${request.namespace}:${request.name}`,
    };
    const signingInput = `${base64url(header)}.${base64url(payload)}`;
    const signature = sign('sha256', Buffer.from(signingInput), { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
    return { token: `${signingInput}.${signature.toString('base64url')}`, expiresAt: new Date(exp * 1000) };
  }

  /** The claims of a token this server signed, still valid and meant for the API server; else undefined. */
  verify(token: string): ServiceAccountClaims | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [headerPart = '', payloadPart = '', signaturePart = ''] = parts;
    const header = parseSegment(headerPart);
    if (!isObject(header) || header.alg !== 'ES256') return undefined;
    const signed = verify(
      'sha256',
      Buffer.from(`${headerPart}.${payloadPart}`),
      { key: this.publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signaturePart, 'base64url'),
    );
    if (!signed) return undefined;
    const payload = parseSegment(payloadPart);
    if (!isObject(payload) || payload.iss !== TOKEN_ISSUER) return undefined;
    const now = this.clock().getTime() / 1000;
    if (typeof payload.exp !== 'number' || now >= payload.exp) return undefined;
    if (typeof payload.nbf === 'number' && now < payload.nbf) return undefined;
    const audiences = Array.isArray(payload.aud) ? payload.aud.filter((a): a is string => typeof a === 'string') : [];
    if (!audiences.some((a) => API_AUDIENCES.includes(a))) return undefined;
    const k8s = payload['kubernetes.io'];
    if (!isObject(k8s) || typeof k8s.namespace !== 'string' || !isObject(k8s.serviceaccount)) return undefined;
    const { name, uid } = k8s.serviceaccount;
    if (typeof name !== 'string' || typeof uid !== 'string') return undefined;
    return {
      namespace: k8s.namespace,
      name,
      uid,
      tokenId: typeof payload.jti === 'string' ? payload.jti : '',
      audiences,
      expiresAt: new Date(payload.exp * 1000),
    };
  }
}

/** The signing key in `file` (PKCS#8 PEM), made there on first use; in memory without a file. */
export async function loadOrCreateSigningKey(file?: string): Promise<KeyObject> {
  if (file) {
    try {
      return createPrivateKey(await readFile(file, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  if (file) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  }
  return privateKey;
}

const TOKEN_REQUEST_KIND = { group: 'authentication.k8s.io', kind: 'TokenRequest' };

/**
 * POST /api/v1/namespaces/{namespace}/serviceaccounts/{name}/token: validates the TokenRequest,
 * finds the ServiceAccount (404 as a real server names it) and answers the request with
 * status.token and status.expirationTimestamp.
 */
export function createTokenRequest(
  tokens: ServiceAccountTokens,
  serviceAccount: KubeObject | undefined,
  namespace: string,
  name: string,
  body: unknown,
): JsonObject {
  if (body !== undefined && !isObject(body)) {
    throw badRequest('TokenRequest in version "v1" cannot be handled as a TokenRequest: the object provided is not a JSON object');
  }
  const request = body ?? {};
  if (request.kind !== undefined && request.kind !== '' && request.kind !== 'TokenRequest') {
    throw badRequest(`${String(request.kind)} in version "v1" cannot be handled as a TokenRequest: no kind "${String(request.kind)}" is registered for version "authentication.k8s.io/v1"`);
  }
  const spec = isObject(request.spec) ? request.spec : {};
  const errors: FieldError[] = [];
  const expirationSeconds = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  if (typeof expirationSeconds !== 'number' || !Number.isInteger(expirationSeconds)) {
    throw badRequest('TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64');
  }
  if (expirationSeconds < MIN_EXPIRATION_SECONDS) {
    errors.push(invalidValue('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
  }
  if (expirationSeconds > MAX_EXPIRATION_SECONDS) {
    errors.push(invalidValue('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  }
  if (spec.boundObjectRef !== undefined && spec.boundObjectRef !== null) {
    throw badRequest('this emulator does not bind tokens to objects (spec.boundObjectRef)');
  }
  const requested = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
  if (errors.length > 0) throw invalid(TOKEN_REQUEST_KIND, name, errors);
  if (!serviceAccount) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
  const audiences = requested.length > 0 ? requested : API_AUDIENCES;
  const issued = tokens.issue({ namespace, name, uid: serviceAccount.metadata.uid ?? '', audiences, expirationSeconds });
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: null },
    spec: { audiences, expirationSeconds, boundObjectRef: null },
    status: { token: issued.token, expirationTimestamp: kubeTimestamp(issued.expiresAt) },
  };
}
