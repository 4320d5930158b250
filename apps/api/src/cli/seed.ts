import { readEnvOrExit } from './config.ts';
import { createLogger, safeErrorText } from '../log.ts';
import { startRuntime } from '../runtime.ts';
import { parseSeedArgs, SeedArgsError, SEED_USAGE } from '../seed/args.ts';
import { FillError, fillNamespace } from '../seed/fill.ts';

// `npm run seed`: fills a new namespace through the services, on the installation the environment
// names (embedded defaults, or DATABASE_URL and KUBECONFIG). On the embedded defaults, stop
// `npm start` first: the embedded database is one process's.
let args;
try {
  args = parseSeedArgs(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof SeedArgsError)) throw error;
  process.stderr.write(`${error.message}\n${SEED_USAGE}\n`);
  process.exit(2);
}
const env = readEnvOrExit();
const logger = createLogger((line) => process.stderr.write(line), 'warn');
const runtime = await startRuntime({ env, logger });
const started = Date.now();
try {
  const actor = { principalId: runtime.installation.bootstrapPrincipalId, kind: 'SERVICE' as const, name: 'seed', apiKeyId: 'seed' };
  const result = await fillNamespace(runtime.deps, actor, args, {
    parallel: args.parallel,
    onProgress: ({ phase, done, total }) => {
      const seconds = (Date.now() - started) / 1000;
      process.stderr.write(`${phase.padEnd(14)} ${String(done).padStart(9)}/${total}  (${seconds.toFixed(0)} s)\n`);
    },
  });
  process.stdout.write(
    `Seeded namespace ${args.namespace} (${result.namespaceId}): ${result.secretIds.length} secrets, ${result.configurationIds.length} configurations, ` +
      `${result.agentIds.length} agents, ${result.auditEvents} extra audit events, in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`,
  );
} catch (error) {
  // The seed's own refusals are fixed text; anything else is named by class and code only (P1).
  process.stderr.write(`seed failed: ${error instanceof FillError ? error.message : safeErrorText(error)}\n`);
  process.exitCode = 1;
} finally {
  await runtime.close();
}
