import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { classifyKubeError, describeKubeFailure } from './errors.ts';

// Status bodies as a real kube-apiserver answers them (the E8 lane's 1.20, read with curl), each
// with the class the drivers act on. The namespace ones decide NAMESPACE_NOT_READY (P4 S1).
const failure = (code: number, body: object) => new ApiException(code, 'ignored', JSON.stringify(body), {});

describe('classifyKubeError', () => {
  it.each([
    [
      'a create in a namespace being deleted (403, NamespaceTerminating)',
      failure(403, {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
        message: 'secrets "s" is forbidden: unable to create new content in namespace term-x because it is being terminated',
        details: { name: 's', kind: 'secrets', causes: [{ reason: 'NamespaceTerminating', message: 'namespace term-x is being terminated', field: 'metadata.namespace' }] },
      }),
      { kind: 'namespace-not-found', code: 403, namespace: 'term-x' },
    ],
    [
      'a create in a namespace that does not exist (404, details.kind namespaces)',
      failure(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'namespaces "gone" not found', details: { name: 'gone', kind: 'namespaces' } }),
      { kind: 'namespace-not-found', code: 404, namespace: 'gone' },
    ],
    [
      'an RBAC refusal (403 without the cause) stays a refusal',
      failure(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: 'secrets is forbidden: User "x" cannot create resource "secrets"', details: { kind: 'secrets' } }),
      { kind: 'refused', code: 403, reason: 'Forbidden' },
    ],
    [
      'a missing object (404, details.kind of the object)',
      failure(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'secrets "s" not found', details: { name: 's', kind: 'secrets' } }),
      { kind: 'object-not-found', code: 404 },
    ],
  ])('P4 S1 %s', (_what, error, expected) => {
    expect(classifyKubeError(error)).toEqual(expected);
  });

  it('P4 S3 the description names the namespace and never the Status message', () => {
    const error = failure(403, {
      reason: 'Forbidden',
      message: 'secrets "canary-value-name" is forbidden: unable to create new content in namespace term-x because it is being terminated',
      details: { name: 'canary-value-name', kind: 'secrets', causes: [{ reason: 'NamespaceTerminating', message: 'namespace term-x is being terminated' }] },
    });
    const text = describeKubeFailure(classifyKubeError(error));
    expect(text).toBe('Kubernetes answered 403: the namespace term-x is being deleted');
    expect(text).not.toContain('canary');
  });
});
