import { ApiException } from '@kubernetes/client-node';

// client-node 1.4 throws ApiException with `code` and `body` as a JSON string (a Status).

export interface KubeStatus {
  code: number;
  reason: string;
  message: string;
}

export function kubeStatus(error: unknown): KubeStatus | null {
  if (!(error instanceof ApiException)) return null;
  let parsed: { reason?: string; message?: string } = {};
  try {
    parsed = typeof error.body === 'string' ? JSON.parse(error.body) : (error.body ?? {});
  } catch {
    parsed = {};
  }
  return { code: error.code, reason: parsed.reason ?? '', message: parsed.message ?? '' };
}

/**
 * A transport failure after the request may have been sent: the server may or may not have
 * applied it. (Connection refused happens before sending, so the outcome is known: nothing.)
 */
export function isOutcomeUnknown(error: unknown): boolean {
  if (error instanceof ApiException) return false;
  const code = (error as { code?: string; cause?: { code?: string } })?.code ?? (error as { cause?: { code?: string } })?.cause?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND') return false;
  return true;
}
