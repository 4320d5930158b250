import { ApiException } from '@kubernetes/client-node';

// client-node 2 throws ApiException with `code` and `body` as a JSON string (a Status). Its
// `message` quotes the whole body, and a Status message may quote what was sent (a 422 names the
// invalid value): neither ever leaves this file. What does is the class of failure, the code and
// reason, and the kind and name the Status's details point at.

export interface KubeStatus {
  code: number;
  reason: string;
  message: string;
  /** `details.kind` and `details.name`: the resource the Status is about (`namespaces`, `secrets` …). */
  kind: string;
  name: string;
  /** A 403 NamespaceTerminating cause: the namespace that is being deleted. */
  terminatingNamespace?: string;
}

export function kubeStatus(error: unknown): KubeStatus | null {
  if (!(error instanceof ApiException)) return null;
  let parsed: { reason?: string; message?: string; details?: { kind?: string; name?: string; causes?: { reason?: string; message?: string }[] } } = {};
  try {
    parsed = typeof error.body === 'string' ? JSON.parse(error.body) : (error.body ?? {});
  } catch {
    parsed = {};
  }
  // NamespaceLifecycle's refusal of a create in a namespace being deleted names it in a cause.
  const terminating = parsed.details?.causes?.find((c) => c.reason === 'NamespaceTerminating');
  const terminatingNamespace = /^namespace (\S+) is being terminated$/.exec(terminating?.message ?? '')?.[1];
  return {
    code: error.code,
    reason: parsed.reason ?? '',
    message: parsed.message ?? '',
    kind: parsed.details?.kind ?? '',
    name: parsed.details?.name ?? '',
    ...(terminatingNamespace ? { terminatingNamespace } : {}),
  };
}

export type KubeFailure =
  /** 404 for the object itself. */
  | { kind: 'object-not-found'; code: 404 }
  /**
   * The namespace the object lives in is gone: 404 when it no longer exists, 403 with the cause
   * NamespaceTerminating while it is being deleted (a real cluster's window until its namespace
   * controller has emptied it; the embedded server deletes a namespace at once).
   */
  | { kind: 'namespace-not-found'; code: 404 | 403; namespace: string }
  /** 409 AlreadyExists: the name is taken. */
  | { kind: 'already-exists'; code: 409 }
  /** 409 Conflict: a stale resourceVersion or a failed precondition. */
  | { kind: 'conflict'; code: 409; precondition: boolean }
  /** Any other answer from the server: it refused, and nothing was applied. */
  | { kind: 'refused'; code: number; reason: string }
  /** No connection was made: nothing was sent, so nothing was applied. */
  | { kind: 'unreachable'; code: null }
  /** The request may have been sent and applied: the outcome is unknown. */
  | { kind: 'outcome-unknown'; code: null };

/**
 * Connection errors raised before a byte of the request left this process. client-node 2 fetches
 * through undici: its errors are TypeError('fetch failed') with the code on `cause`, and a
 * connection that never opened within undici's connect timeout is UND_ERR_CONNECT_TIMEOUT. A
 * connection closed under a sent request (UND_ERR_SOCKET, "other side closed") is not here.
 */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

function transportCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  return code;
}

/** One exact class for every client-node failure; see KubeFailure. */
export function classifyKubeError(error: unknown): KubeFailure {
  const status = kubeStatus(error);
  if (status) {
    if (status.code === 404) {
      // A real API server and the embedded one both name the missing namespace in details.kind
      // when the namespace, not the object, is what is missing (creates in a deleted namespace).
      return status.kind === 'namespaces' ? { kind: 'namespace-not-found', code: 404, namespace: status.name } : { kind: 'object-not-found', code: 404 };
    }
    if (status.code === 403 && status.terminatingNamespace) return { kind: 'namespace-not-found', code: 403, namespace: status.terminatingNamespace };
    if (status.code === 409) {
      return status.reason === 'AlreadyExists'
        ? { kind: 'already-exists', code: 409 }
        : { kind: 'conflict', code: 409, precondition: /precondition/i.test(status.message) };
    }
    return { kind: 'refused', code: status.code, reason: status.reason };
  }
  const code = transportCode(error);
  if (code && NOT_SENT.has(code)) return { kind: 'unreachable', code: null };
  return { kind: 'outcome-unknown', code: null };
}

/** What may be said about a failure: its class, code and reason, never the Status message. */
export function describeKubeFailure(failure: KubeFailure): string {
  switch (failure.kind) {
    case 'object-not-found':
      return 'Kubernetes answered 404: the object does not exist';
    case 'namespace-not-found':
      return failure.code === 404 ? `Kubernetes answered 404: the namespace ${failure.namespace} does not exist` : `Kubernetes answered 403: the namespace ${failure.namespace} is being deleted`;
    case 'already-exists':
      return 'Kubernetes answered 409 AlreadyExists';
    case 'conflict':
      return failure.precondition ? 'Kubernetes answered 409: a precondition failed' : 'Kubernetes answered 409: the object was modified';
    case 'refused':
      return `Kubernetes answered ${failure.code}${failure.reason ? ` ${failure.reason}` : ''}`;
    case 'unreachable':
      return 'Kubernetes is unreachable';
    case 'outcome-unknown':
      return 'the connection to Kubernetes failed after sending';
  }
}
