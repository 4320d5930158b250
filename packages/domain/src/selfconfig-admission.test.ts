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
});
