import { GraphQLError, getOperationAST, type ExecutionArgs, type ExecutionResult, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Actor } from '../services/deps.ts';
import type { GraphQLContext } from './builder.ts';
import { operationCost, resultCost } from './cost.ts';
import type { Admission, Allowance, PrincipalBudget } from './principal-budget.ts';

// Rule P7 at the request: after the caller is known and the operation's variables passed, and
// before anything of the operation runs, its cost (cost.ts, with this request's variables) is spent
// from the principal's budget and it takes one of the principal's execution slots
// (principal-budget.ts); once its result is ready, the slot is freed and what it spent beyond what
// its result cost is given back. Over either, the answer is 429 with Retry-After and a coded error, and
// nothing executes. Every answer to a request whose caller was authenticated carries what is left:
// X-RateLimit-Limit, -Remaining, and -Reset (Unix seconds when the budget is whole again). A
// document refused by P3's limits is refused before authentication, so that answer carries none
// and spends nothing.
//
// Anonymous callers get no budget here: beyond `viewer` (null), every field refuses them with
// UNAUTHENTICATED before its resolver runs, their refusals are audited coalesced and bad
// credentials spend P5's throttle (http/throttle.ts). A bucket per client address would be shared by
// everyone behind one proxy or NAT (the address is the TCP peer's), so one client could spend the
// others' signed-out console.

export const RATE_LIMITED = 'RATE_LIMITED';
export const CONCURRENCY_LIMITED = 'CONCURRENCY_LIMITED';

interface Held {
  actor: Actor;
  admission?: Admission;
  /** What resultCost needs to price the answer: the operation as admitted. */
  priced?: { args: ExecutionArgs; operation: OperationDefinitionNode; variables: Record<string, unknown> };
}

type Result = Parameters<NonNullable<Plugin<Context>['onExecutionResult']>>[0]['result'];

/** What the result cost; undefined (nothing given back) for a stream or no result. */
function actualCost(held: Held | undefined, result: Result): number | undefined {
  if (!held?.priced || !result || Symbol.asyncIterator in result) return undefined;
  const { args, operation, variables } = held.priced;
  return resultCost(args.schema, args.document, operation, variables, result.data);
}

type Context = GraphQLContext & { request?: Request };

function refusal(admission: Extract<Admission, { admitted: false }>, cost: number): GraphQLError {
  const { limits, allowance, retryAfterSeconds } = admission;
  const http = { status: 429, headers: { 'retry-after': String(retryAfterSeconds) } };
  if (admission.refusal === 'CONCURRENCY_LIMITED') {
    return new GraphQLError(`${limits.concurrency} of your requests are already running, the most allowed at once; retry when one has finished.`, {
      extensions: { code: CONCURRENCY_LIMITED, limit: limits.concurrency, retryAfterSeconds, http },
    });
  }
  const over = cost > limits.points ? ` It costs more than the whole budget and will not run; ask for fewer or smaller pages.` : '';
  return new GraphQLError(
    `The operation costs ${cost} points and ${allowance.remaining} of your ${limits.points} are left (the budget refills over ${limits.windowSeconds} seconds); retry after ${retryAfterSeconds} seconds.${over}`,
    { extensions: { code: RATE_LIMITED, cost, remaining: allowance.remaining, limit: limits.points, retryAfterSeconds, http } },
  );
}

function setHeaders(headers: Headers, allowance: Allowance): void {
  headers.set('x-ratelimit-limit', String(allowance.limit));
  headers.set('x-ratelimit-remaining', String(allowance.remaining));
  headers.set('x-ratelimit-reset', String(allowance.resetAt));
}

export function useRateLimits(budget: PrincipalBudget): Plugin<Context> {
  const requests = new WeakMap<Request, Held>();
  // Once the result is ready its slot is free; the answer's own hook is the fallback for a result
  // that never reached the first (a hook that threw).
  const release = (request: Request, result?: Result) => {
    const held = requests.get(request);
    if (held?.admission?.admitted) held.admission.release(actualCost(held, result));
  };

  const admit = (args: ExecutionArgs & { contextValue: Context }, stop: (result: ExecutionResult) => void) => {
    const context = args.contextValue;
    const held = context.request ? requests.get(context.request) : undefined;
    if (!held) return;
    const operation = getOperationAST(args.document, args.operationName);
    if (!operation) return; // answered by yoga, with nothing run
    const variables = (args.variableValues ?? {}) as Record<string, unknown>;
    const cost = operationCost(args.schema, args.document, operation, variables);
    held.admission = budget.admit(held.actor, cost);
    held.priced = { args, operation, variables };
    if (!held.admission.admitted) stop({ errors: [refusal(held.admission, Math.max(1, cost))] });
  };

  return {
    onContextBuilding: () => ({ context }) => {
      if (context.actor && context.request) requests.set(context.request, { actor: context.actor });
    },
    onExecute({ args, setResultAndStopExecution }) {
      admit(args, setResultAndStopExecution);
    },
    // A subscription spends its document's cost once, when it opens; its stream is bounded by the
    // streams' own caps (live.ts), not by the execution slots, which it frees at once.
    onSubscribe({ args, setResultAndStopExecution }) {
      admit(args, setResultAndStopExecution);
      const context = args.contextValue;
      if (context.request) release(context.request);
    },
    onExecutionResult({ request, result }) {
      release(request, result);
    },
    onResponse({ request, response }) {
      const held = requests.get(request);
      if (!held) return;
      release(request);
      // Read after the release: what an admitted request gave back is in what is left.
      setHeaders(response.headers, budget.peek(held.actor));
    },
  };
}
