import { ConfigError, readEnv, type Env } from '../env.ts';

/** The commands' configuration, or every problem with it on stderr and exit status 2 (R1). */
export function readEnvOrExit(needs: { kubernetes: boolean } = { kubernetes: true }): Env {
  try {
    return readEnv(undefined, needs);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}
