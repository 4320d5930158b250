// The heavy clients of fairness.bench.ts, in a process of their own so that their requests and
// the parsing of their answers do not run on the event loop of the server they load (the bench
// measures the server's answers to somebody else). Not a bench itself (the runner takes only
// *.bench.ts). Configured by one JSON in OCC_FAIRNESS_CLIENTS; prints `started` when every loop is
// running, then one JSON line of counts per client when done.

export interface ClientsPlan {
  graphqlUrl: string;
  /** One API key per client. */
  keys: string[];
  query: string;
  variables: Record<string, unknown>;
  /** Loops per client, each sending the next request when its answer arrives. */
  parallel: number;
  seconds: number;
  /** At most this many requests per client, whatever the time. */
  maxRequests: number;
  /** true: a 429 waits its Retry-After before that loop sends again; false: it does not wait. */
  honorRetryAfter: boolean;
}

export interface ClientCounts {
  sent: number;
  ok: number;
  /** Answered 200 with errors (a field that failed under the load); still work the server did. */
  withErrors: number;
  rateLimited: number;
  concurrencyLimited: number;
  /** Answers that were neither (a bug in the bench or the product: the bench fails on any). */
  other: number;
  /** An answered (200) operation's own time, milliseconds, p50. */
  okP50Ms: number | null;
  /** The last X-RateLimit-Remaining answered. */
  lastRemaining: number | null;
}

async function run(plan: ClientsPlan): Promise<ClientCounts[]> {
  const until = performance.now() + plan.seconds * 1000;
  const body = JSON.stringify({ query: plan.query, variables: plan.variables });
  const counts = plan.keys.map(() => ({ sent: 0, ok: 0, withErrors: 0, rateLimited: 0, concurrencyLimited: 0, other: 0, okMs: [] as number[], lastRemaining: null as number | null }));
  const loop = async (client: number) => {
    const c = counts[client]!;
    while (performance.now() < until && c.sent < plan.maxRequests) {
      c.sent++;
      const began = performance.now();
      const res = await fetch(plan.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${plan.keys[client]}` }, body });
      const answer = (await res.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
      const remaining = res.headers.get('x-ratelimit-remaining');
      if (remaining !== null) c.lastRemaining = Number(remaining);
      const code = answer.errors?.[0]?.extensions?.code;
      if (res.status === 200) {
        if (answer.errors) {
          c.withErrors++;
          if (c.withErrors === 1) process.stderr.write(`fairness client ${client}: answered with ${answer.errors.length} errors, the first ${JSON.stringify(answer.errors[0]).slice(0, 200)}\n`);
        } else c.ok++;
        c.okMs.push(performance.now() - began);
      } else if (res.status === 429 && (code === 'RATE_LIMITED' || code === 'CONCURRENCY_LIMITED')) {
        if (code === 'RATE_LIMITED') c.rateLimited++;
        else c.concurrencyLimited++;
        if (plan.honorRetryAfter) {
          const wait = Number(res.headers.get('retry-after') ?? '1') * 1000;
          await new Promise((r) => setTimeout(r, Math.max(0, Math.min(wait, until - performance.now()))));
        }
      } else {
        c.other++;
        if (c.other === 1) process.stderr.write(`fairness client ${client}: HTTP ${res.status} ${JSON.stringify(answer.errors ?? answer).slice(0, 400)}\n`);
      }
    }
  };
  const loops: Array<Promise<void>> = [];
  for (let client = 0; client < plan.keys.length; client++) for (let i = 0; i < plan.parallel; i++) loops.push(loop(client));
  process.stdout.write('started\n');
  await Promise.all(loops);
  return counts.map(({ okMs, ...c }) => {
    const sorted = okMs.sort((a, b) => a - b);
    return { ...c, okP50Ms: sorted.length ? sorted[Math.floor(sorted.length / 2)]! : null };
  });
}

const plan = JSON.parse(process.env.OCC_FAIRNESS_CLIENTS ?? 'null') as ClientsPlan | null;
if (!plan) {
  process.stderr.write('fairness-clients.ts is started by fairness.bench.ts\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(await run(plan))}\n`);
