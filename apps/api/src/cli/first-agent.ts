import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { readFirstAgentEnv } from '../env.ts';
import { FirstAgentRefusal, runFirstAgent } from '../first-agent/run.ts';
import { unsupportedNodeMessage } from './node-version.ts';

// `npm run first-agent` (Q1): see first-agent/run.ts. Keys come from the environment, or are
// asked for in a terminal without echo; they are never printed.

const problem = unsupportedNodeMessage(process.versions.node);
if (problem) {
  process.stderr.write(problem + '\n');
  process.exit(1);
}

/** Asks on the terminal without echoing what is typed; null when there is no terminal to ask on. */
async function askHidden(question: string): Promise<string | null> {
  if (!process.stdin.isTTY) return null;
  process.stderr.write(question);
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
  const answer = await new Promise<string>((resolve) => rl.question('', resolve));
  rl.close();
  process.stderr.write('\n');
  return answer.trim() || null;
}

const env = readFirstAgentEnv();
try {
  const result = await runFirstAgent({
    dataDir: env.dataDir,
    modelOverride: env.modelOverride,
    bootstrapKey: async () => env.bootstrapKey ?? (await askHidden('Bootstrap API key (printed by the first `npm start`): ')) ?? '',
    modelKey: async (envName) => env.modelKey(envName) ?? (await askHidden(`${envName} (the model key; not echoed): `)) ?? '',
    out: (line) => process.stdout.write(line + '\n'),
  });
  process.stdout.write(`namespace ${result.namespaceId}, secret ${result.secretId}, configuration ${result.configurationId}, agent ${result.agentId}, revision ${result.revisionId}\n`);
} catch (error) {
  if (error instanceof FirstAgentRefusal) {
    process.stderr.write(`first-agent: ${error.code}: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
