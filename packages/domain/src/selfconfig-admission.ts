// SC5 for requests created in the cluster: the SelfConfig validating webhook's decision. An
// OpenClawSelfConfig may be created only by the service account of the instance it names
// (spec.instanceRef, in the request's namespace), and an update may not move it to another
// instance. Identity is the authenticated userInfo the API server sends; a label, an annotation
// or a name inside the object is not identity. Anything malformed is refused (fail closed). Pure:
// the caller reads the instance and passes what it found. SG5: a spec SC1 refuses (nesting,
// limits, a credential-like env name with a literal) is refused here too, so it is never stored.

import { parseSelfConfigSpec } from './selfconfig.ts';

export const SELFCONFIG_GROUP = 'openclaw.rocks';
export const SELFCONFIG_RESOURCE = 'openclawselfconfigs';
export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';

/** What the webhook needs of an AdmissionReview v1 request, read defensively. */
export interface SelfConfigAdmissionRequest {
  uid: string;
  operation: string;
  namespace: string;
  group: string;
  resource: string;
  subResource: string | null;
  username: string;
  instanceRef: string | null;
  oldInstanceRef: string | null;
  /** The object's spec, as sent (undefined when it has none). */
  spec: unknown;
}

export type ReviewParse = { ok: true; request: SelfConfigAdmissionRequest } | { ok: false; uid: string | null; message: string };

export type SelfConfigAdmissionDecision = { allowed: true } | { allowed: false; code: 400 | 403; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function instanceRefOf(object: unknown): string | null {
  return isRecord(object) && isRecord(object.spec) ? text(object.spec.instanceRef) : null;
}

/** Reads an AdmissionReview v1; anything else is a refusal with the reason. */
export function parseAdmissionReview(body: unknown): ReviewParse {
  if (!isRecord(body) || body.apiVersion !== 'admission.k8s.io/v1' || body.kind !== 'AdmissionReview') {
    return { ok: false, uid: null, message: 'expected an admission.k8s.io/v1 AdmissionReview' };
  }
  const request = body.request;
  const uid = isRecord(request) ? text(request.uid) : null;
  if (!isRecord(request) || uid === null) return { ok: false, uid: null, message: 'the AdmissionReview has no request.uid' };
  const resource = isRecord(request.resource) ? request.resource : {};
  const userInfo = isRecord(request.userInfo) ? request.userInfo : {};
  const operation = text(request.operation);
  const namespace = text(request.namespace);
  const username = text(userInfo.username);
  if (operation === null || namespace === null || username === null) {
    return { ok: false, uid, message: 'the AdmissionReview request lacks operation, namespace or userInfo.username' };
  }
  return {
    ok: true,
    request: {
      uid,
      operation,
      namespace,
      group: typeof resource.group === 'string' ? resource.group : '',
      resource: typeof resource.resource === 'string' ? resource.resource : '',
      subResource: text(request.subResource),
      username,
      instanceRef: instanceRefOf(request.object),
      oldInstanceRef: instanceRefOf(request.oldObject),
      spec: isRecord(request.object) ? request.object.spec : undefined,
    },
  };
}

/** The username the API server gives a ServiceAccount's tokens. */
export function serviceAccountUsername(namespace: string, serviceAccountName: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${serviceAccountName}`;
}

/**
 * The decision. `instanceServiceAccount` is the ServiceAccount name of the instance the request
 * names (undefined when no such instance exists); the webhook looks it up only for creates.
 */
export function decideSelfConfigAdmission(request: SelfConfigAdmissionRequest, instanceServiceAccount: string | undefined): SelfConfigAdmissionDecision {
  if (request.group !== SELFCONFIG_GROUP || request.resource !== SELFCONFIG_RESOURCE || request.subResource !== null) {
    return { allowed: false, code: 400, message: `this webhook judges ${SELFCONFIG_RESOURCE}.${SELFCONFIG_GROUP} only, not ${request.resource}.${request.group}` };
  }
  if (request.operation === 'UPDATE') {
    if (request.instanceRef === null || request.instanceRef !== request.oldInstanceRef) {
      return { allowed: false, code: 403, message: 'spec.instanceRef cannot be changed: a SelfConfig request stays with the instance it was created for' };
    }
    return specDecision(request.spec);
  }
  if (request.operation !== 'CREATE') return { allowed: true };
  if (request.instanceRef === null) return { allowed: false, code: 400, message: 'spec.instanceRef is required' };
  if (instanceServiceAccount === undefined) {
    return { allowed: false, code: 403, message: `OpenClawInstance ${JSON.stringify(request.instanceRef)} not found in namespace ${JSON.stringify(request.namespace)}` };
  }
  const expected = serviceAccountUsername(request.namespace, instanceServiceAccount);
  if (request.username !== expected) {
    return {
      allowed: false,
      code: 403,
      message: `SC5: a SelfConfig request may only target the requester's own instance; ${request.username} is not ${expected}, the service account of OpenClawInstance ${JSON.stringify(request.instanceRef)}`,
    };
  }
  return specDecision(request.spec);
}

/**
 * SG5: a spec SC1 refuses (nesting, limits, a credential-like env name with a literal) is never
 * stored. Protected and platform-injected names (SC4) are still the controller's to fail, with a
 * phase and an event the agent can read; refusing them here as well is SG5 work left open.
 */
function specDecision(spec: unknown): SelfConfigAdmissionDecision {
  const parsed = parseSelfConfigSpec(spec);
  if ('problem' in parsed) return { allowed: false, code: 400, message: `SG5: invalid request: ${parsed.problem.message}` };
  return { allowed: true };
}
