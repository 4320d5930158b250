import { readFirstAgentEnv } from '../env.ts';
import { FirstAgentRefusal, keyReader, runFirstAgent } from '../first-agent/run.ts';
import { unsupportedNodeMessage } from './node-version.ts';

// `npm run first-agent` (Q1): see first-agent/run.ts. Keys come from the environment, or are
// asked for in a terminal without echo; they are never printed.

const problem = unsupportedNodeMessage(process.versions.node);
if (problem) {
  process.stderr.write(problem + '\n');
  process.exit(1);
}

const env = readFirstAgentEnv();
try {
  const result = await runFirstAgent({
    dataDir: env.dataDir,
    modelOverride: env.modelOverride,
    readKey: keyReader((envName) => (envName === 'OCC_BOOTSTRAP_KEY' ? env.bootstrapKey : env.modelKey(envName)), { input: process.stdin, output: process.stderr }),
    out: (line) => process.stdout.write(line + '\n'),
  });
  process.stdout.write(
    `namespace ${result.namespaceId}, secret ${result.secretId} (version ${result.modelKey.version}), configuration ${result.configurationId}, agent ${result.agentId}, revision ${result.revisionId}\n`,
  );
} catch (error) {
  if (error instanceof FirstAgentRefusal) {
    process.stderr.write(`first-agent: ${error.code}: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
