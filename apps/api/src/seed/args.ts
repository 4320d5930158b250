import { parseArgs } from 'node:util';
import { validateNamespaceName } from '@occ/domain/validation';
import type { FillPlan } from './fill.ts';

// `npm run seed -- --secrets 10000 --agents 1000 --audit 1000000`: every problem is listed at once
// (as readEnv does), and nothing is started until the arguments are all valid.

export const SEED_USAGE = `usage: npm run seed -- [--namespace NAME] [--secrets N] [--configurations N] [--agents N] [--audit N] [--parallel N]
  --namespace       a new namespace to fill (default: seed); an existing one is refused
  --secrets         secrets to store (default 100)
  --configurations  configurations, each binding one secret (default: agents / 10, at least 1 with agents)
  --agents          agents, each selecting a configuration and using a model key (default 10)
  --audit           extra audit events spread over 30 days (default 0)
  --parallel        service calls in flight (default 4)`;

const LIMITS = { secrets: 1_000_000, configurations: 1_000_000, agents: 1_000_000, audit: 100_000_000, parallel: 64 } as const;

export type SeedArgs = FillPlan & { parallel: number };

export class SeedArgsError extends Error {
  override name = 'SeedArgsError';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

function count(name: keyof typeof LIMITS, raw: string | undefined, fallback: number, problems: string[]): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) > LIMITS[name]) {
    problems.push(`--${name} takes a whole number from 0 to ${LIMITS[name]}`);
    return fallback;
  }
  if (name === 'parallel' && Number(raw) === 0) {
    problems.push('--parallel takes a whole number from 1 to 64');
    return fallback;
  }
  return Number(raw);
}

export function parseSeedArgs(argv: readonly string[]): SeedArgs {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        namespace: { type: 'string' },
        secrets: { type: 'string' },
        configurations: { type: 'string' },
        agents: { type: 'string' },
        audit: { type: 'string' },
        parallel: { type: 'string' },
      },
    }) as { values: Record<string, string | undefined> });
  } catch (error) {
    // parseArgs names the option or argument it refused; it holds no secret (the seed takes none).
    throw new SeedArgsError([(error as Error).message.split('\n')[0]!.slice(0, 200)]);
  }
  const problems: string[] = [];
  const namespace = values.namespace ?? 'seed';
  if (validateNamespaceName(namespace)) problems.push('--namespace takes 1 to 40 lowercase letters, digits and hyphens, starting and ending with a letter or digit');
  const secrets = count('secrets', values.secrets, 100, problems);
  const agents = count('agents', values.agents, 10, problems);
  const configurations = count('configurations', values.configurations, agents > 0 ? Math.max(1, Math.ceil(agents / 10)) : 0, problems);
  const audit = count('audit', values.audit, 0, problems);
  const parallel = count('parallel', values.parallel, 4, problems);
  if (agents > 0 && configurations === 0) problems.push('--agents needs at least one configuration');
  if ((configurations > 0 || agents > 0) && secrets === 0) problems.push('configurations and agents bind secrets: --secrets must be at least 1');
  if (problems.length > 0) throw new SeedArgsError(problems);
  return { namespace, secrets, configurations, agents, audit, parallel };
}
