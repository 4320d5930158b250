import type { Logger } from '../log.ts';
import { startRuntime, type Runtime, type RuntimeOptions } from '../runtime.ts';

// A process that cannot start says why in one JSON log line, as everything else
// it says (R6), not with Node's stack trace of an uncaught rejection. A refusal the product knows
// (the schema behind this build, state from a newer release, a bootstrap key it may not print) is
// logged with its message, which these errors build from migration names and fixed text only,
// its code and its fields; anything else as the logger serializes every error (class, code and
// frames, never the message: P1). Then the process exits 1, so the pod restarts and shows it.

const REFUSALS: Record<string, (error: Record<string, unknown>) => Record<string, unknown>> = {
  SCHEMA_BEHIND: (error) => ({ missingMigrations: error.missing }),
  STATE_FROM_NEWER_RELEASE: (error) => ({
    newerRelease: error.newerRelease,
    unknownDatabaseMigrations: error.unknownDatabaseMigrations,
    unknownKubernetesMigrations: error.unknownKubernetesMigrations,
  }),
  BOOTSTRAP_KEY_UNDELIVERABLE: () => ({}),
};

/** The code of a refusal this module logs with its message, or null. */
export function refusalCode(error: unknown): string | null {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code in REFUSALS ? code : null;
}

/** Logs why the start failed, as one line, and exits 1. */
export function exitRefused(logger: Logger, error: unknown): never {
  const code = refusalCode(error);
  if (code) logger.error((error as Error).message, { code, ...REFUSALS[code]!(error as unknown as Record<string, unknown>) });
  else logger.error('the start failed', { error });
  process.exit(1);
}

/** startRuntime, or exitRefused: what the commands (serve.ts, worker.ts) start with. */
export async function startRuntimeOrExit(options: RuntimeOptions & { logger: Logger }): Promise<Runtime> {
  try {
    return await startRuntime(options);
  } catch (error) {
    return exitRefused(options.logger, error);
  }
}
