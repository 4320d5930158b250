import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideSelfConfigAdmission, parseAdmissionReview, serviceAccountUsername, type SelfConfigAdmissionRequest } from './selfconfig-admission.ts';

// Names as Kubernetes allows them (a DNS label ends alphanumeric): the spec is checked too (SG5).
const name = fc.stringMatching(/^[a-z]([a-z0-9-]{0,19}[a-z0-9])?$/);

function review(overrides: { username?: string; operation?: string; namespace?: string; instanceRef?: unknown; oldInstanceRef?: unknown; labels?: Record<string, string>; resource?: string; subResource?: string }) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      operation: overrides.operation ?? 'CREATE',
      namespace: overrides.namespace ?? 'ns',
      resource: { group: 'openclaw.rocks', version: 'v1alpha1', resource: overrides.resource ?? 'openclawselfconfigs' },
      ...(overrides.subResource ? { subResource: overrides.subResource } : {}),
      userInfo: { username: overrides.username ?? 'system:serviceaccount:ns:agent-a', groups: ['system:authenticated'] },
      object: { metadata: { name: 'r', labels: overrides.labels ?? {} }, spec: { instanceRef: overrides.instanceRef ?? 'agent-a' } },
      oldObject: overrides.oldInstanceRef === undefined ? null : { metadata: { name: 'r' }, spec: { instanceRef: overrides.oldInstanceRef } },
    },
  };
}

function parsed(body: unknown): SelfConfigAdmissionRequest {
  const result = parseAdmissionReview(body);
  if (!result.ok) throw new Error(result.message);
  return result.request;
}

describe('SC5 the SelfConfig admission decision', () => {
  it('SC5 a create is allowed exactly when the user is the service account of the named instance, whatever the labels say (generated)', () => {
    fc.assert(
      fc.property(name, name, name, name, fc.dictionary(name, name), (namespace, instance, userNamespace, userAccount, labels) => {
        const username = serviceAccountUsername(userNamespace, userAccount);
        const request = parsed(review({ namespace, instanceRef: instance, username, labels }));
        const decision = decideSelfConfigAdmission(request, instance);
        expect(decision.allowed).toBe(userNamespace === namespace && userAccount === instance);
      }),
    );
  });

  it('SC5 users that only resemble the service account are refused', () => {
    const instance = 'agent-a';
    for (const username of ['agent-a', 'system:serviceaccount:ns:agent-a:x', 'system:serviceaccount:other:agent-a', 'system:serviceaccounts:ns', 'kubernetes-admin', 'System:serviceaccount:ns:agent-a']) {
      expect(decideSelfConfigAdmission(parsed(review({ username })), instance)).toMatchObject({ allowed: false, code: 403 });
    }
    expect(decideSelfConfigAdmission(parsed(review({})), instance)).toEqual({ allowed: true });
  });

  it('SC5 a missing instance, a missing instanceRef, a subresource or another resource is refused; an update keeps its instanceRef', () => {
    expect(decideSelfConfigAdmission(parsed(review({})), undefined)).toMatchObject({ allowed: false, message: 'OpenClawInstance "agent-a" not found in namespace "ns"' });
    expect(decideSelfConfigAdmission(parsed(review({ instanceRef: '' })), 'agent-a')).toMatchObject({ allowed: false, code: 400 });
    expect(decideSelfConfigAdmission(parsed(review({ resource: 'openclawinstances' })), 'agent-a')).toMatchObject({ allowed: false, code: 400 });
    expect(decideSelfConfigAdmission(parsed(review({ subResource: 'status' })), 'agent-a')).toMatchObject({ allowed: false, code: 400 });
    expect(decideSelfConfigAdmission(parsed(review({ operation: 'UPDATE', instanceRef: 'agent-b', oldInstanceRef: 'agent-a' })), undefined)).toMatchObject({ allowed: false, code: 403 });
    expect(decideSelfConfigAdmission(parsed(review({ operation: 'UPDATE', username: 'kubernetes-admin', oldInstanceRef: 'agent-a' })), undefined)).toEqual({ allowed: true });
  });

  it('SC5 a review that is not a well-formed AdmissionReview v1 never parses as allowed input (generated)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        const result = parseAdmissionReview(body);
        expect(result.ok).toBe(false);
      }),
    );
    expect(parseAdmissionReview({ ...review({}), apiVersion: 'admission.k8s.io/v1beta1' })).toMatchObject({ ok: false, uid: null });
    const { userInfo: _dropped, ...withoutUser } = review({}).request;
    expect(parseAdmissionReview({ ...review({}), request: withoutUser })).toMatchObject({ ok: false, uid: 'uid-1' });
  });

  // Each field of a well-formed review taken away or mistyped on its own: the refusal names what is
  // missing and keeps the uid once there is one (the API server needs it to match the answer).
  const NOT_A_REVIEW = { ok: false, uid: null, message: 'expected an admission.k8s.io/v1 AdmissionReview' };
  const NO_UID = { ok: false, uid: null, message: 'the AdmissionReview has no request.uid' };
  const LACKS = { ok: false, uid: 'uid-1', message: 'the AdmissionReview request lacks operation, namespace or userInfo.username' };
  type Body = ReturnType<typeof review>;
  const CORRUPTIONS: Array<[string, (b: Body) => unknown, object]> = [
    ['no kind', ({ kind: _k, ...b }) => b, NOT_A_REVIEW],
    ['another kind', (b) => ({ ...b, kind: 'AdmissionResponse' }), NOT_A_REVIEW],
    ['an array', (b) => [b], NOT_A_REVIEW],
    ['no request', ({ request: _r, ...b }) => b, NO_UID],
    ['a request that is an array', (b) => ({ ...b, request: [b.request] }), NO_UID],
    ['no uid', (b) => ({ ...b, request: { ...b.request, uid: undefined } }), NO_UID],
    ['an empty uid', (b) => ({ ...b, request: { ...b.request, uid: '' } }), NO_UID],
    ['a numeric uid', (b) => ({ ...b, request: { ...b.request, uid: 7 } }), NO_UID],
    ['no operation', (b) => ({ ...b, request: { ...b.request, operation: undefined } }), LACKS],
    ['no namespace', (b) => ({ ...b, request: { ...b.request, namespace: '' } }), LACKS],
    ['no userInfo', (b) => ({ ...b, request: { ...b.request, userInfo: undefined } }), LACKS],
    ['a username that is not text', (b) => ({ ...b, request: { ...b.request, userInfo: { username: 1 } } }), LACKS],
  ];
  it.each(CORRUPTIONS)('SC5 a review with %s is refused, saying what is missing', (_what, corrupt, refusal) => {
    expect(parseAdmissionReview(corrupt(review({})))).toEqual(refusal);
  });

  it('SC5 a resource of the wrong types reads as no group and no resource, and is refused as another resource; other operations than create and update pass', () => {
    const body = review({});
    const odd = parsed({ ...body, request: { ...body.request, resource: { group: 1, resource: ['openclawselfconfigs'] } } });
    expect(odd).toMatchObject({ group: '', resource: '', subResource: null, uid: 'uid-1', operation: 'CREATE', namespace: 'ns', username: 'system:serviceaccount:ns:agent-a' });
    expect(decideSelfConfigAdmission(odd, 'agent-a')).toMatchObject({ allowed: false, code: 400, message: 'this webhook judges openclawselfconfigs.openclaw.rocks only, not .' });
    expect(parsed({ ...body, request: { ...body.request, resource: undefined } })).toMatchObject({ group: '', resource: '' });
    for (const operation of ['DELETE', 'CONNECT']) expect(decideSelfConfigAdmission(parsed(review({ operation, username: 'anyone' })), undefined)).toEqual({ allowed: true });
    expect(parsed(review({ instanceRef: '' }))).toMatchObject({ instanceRef: null });
  });

  it('SC5 each refusal of the decision says why: another group, an update without instanceRef on either side, a create without one, another user', () => {
    const body = review({});
    const otherGroup = parsed({ ...body, request: { ...body.request, resource: { group: 'example.com', resource: 'openclawselfconfigs' } } });
    expect(decideSelfConfigAdmission(otherGroup, 'agent-a')).toEqual({ allowed: false, code: 400, message: 'this webhook judges openclawselfconfigs.openclaw.rocks only, not openclawselfconfigs.example.com' });
    const noRef = (b: ReturnType<typeof review>) => ({ ...b, request: { ...b.request, object: { metadata: { name: 'r' }, spec: {} }, oldObject: { metadata: { name: 'r' }, spec: {} } } });
    const moved = { allowed: false, code: 403, message: 'spec.instanceRef cannot be changed: a SelfConfig request stays with the instance it was created for' };
    expect(decideSelfConfigAdmission(parsed(noRef(review({ operation: 'UPDATE' }))), 'agent-a')).toEqual(moved);
    expect(decideSelfConfigAdmission(parsed(noRef(review({}))), 'agent-a')).toEqual({ allowed: false, code: 400, message: 'spec.instanceRef is required' });
    expect(decideSelfConfigAdmission(parsed(review({ username: 'system:serviceaccount:ns:other' })), 'agent-a')).toEqual({
      allowed: false,
      code: 403,
      message: 'SC5: a SelfConfig request may only target the requester\'s own instance; system:serviceaccount:ns:other is not system:serviceaccount:ns:agent-a, the service account of OpenClawInstance "agent-a"',
    });
  });
});

