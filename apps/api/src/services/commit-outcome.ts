// S5 needs to tell a commit that is known to have failed from one whose outcome is unknown.
// Before COMMIT is sent, any failure means the transaction rolled back. After, a reply from the
// server with an SQLSTATE that says "rolled back" (integrity, serialization) is a known failure;
// a lost connection, an administrator shutdown or no SQLSTATE at all leaves the outcome unknown.

const KNOWN_ROLLBACK_CLASSES = ['23', '40', '22', '42', '25'];

function sqlState(error: unknown): string | null {
  let e: unknown = error;
  for (let depth = 0; e && depth < 5; depth++) {
    const candidate = e as { code?: unknown; originalCode?: unknown; cause?: unknown; meta?: { code?: unknown } };
    for (const code of [candidate.originalCode, candidate.meta?.code, candidate.code]) {
      if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('P')) return code;
    }
    e = candidate.cause;
  }
  return null;
}

export function commitOutcome() {
  let reached = false;
  return {
    /** Call as the last statement inside the transaction callback. */
    reachedCommit() {
      reached = true;
    },
    /** Whether a failure leaves the commit's outcome unknown. */
    unknown(error: unknown): boolean {
      if (!reached) return false;
      const state = sqlState(error);
      return state === null || !KNOWN_ROLLBACK_CLASSES.includes(state.slice(0, 2));
    },
  };
}
