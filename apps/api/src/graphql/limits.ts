import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';

// Rule P3: bounds on what one document may ask for, checked before execution (and before the
// request's context, so before any SQL). The console's largest document (measured by
// limits.test.ts over every document in apps/console/lib) has 112 tokens, depth 7, cost 5,305 with
// every page at 100 (cost.ts), and no alias or directive; the limits leave a script room for
// several times that, and no more.
// - tokens 1000 (armor's default): bounds the parser's recursion too; a list literal 2,000 deep already
//   overflowed the stack inside yoga. 1000 is nine times the console's largest document.
// - depth 12: the deepest real document is 7; graphql-armor's count follows fragments.
// - cost 10,000 (P7, cost.ts): each field counted once per item of the pages above it, object 2 and
//   scalar 1, every page at the size that will be read however it is given. About two of the
//   console's largest documents with every page at 100; twenty aliases of a page of 100 namespaces
//   (12,040) are over it. It needs the request's variables, so validation.ts checks it on every
//   request after the other limits, outside any cache.
// - aliases 20: the console uses none; 5,000 aliases of one expensive field was the attack.
// - directives 20: the console uses none.
export const LIMITS = { tokens: 1000, depth: 12, cost: 10_000, aliases: 20, directives: 20 } as const;

export const LIMIT_CODES = {
  tokens: 'TOKEN_LIMIT_EXCEEDED',
  depth: 'DEPTH_LIMIT_EXCEEDED',
  cost: 'COST_LIMIT_EXCEEDED',
  aliases: 'ALIAS_LIMIT_EXCEEDED',
  directives: 'DIRECTIVE_LIMIT_EXCEEDED',
} as const;

export type Limit = keyof typeof LIMITS;

const SENTENCE: Record<Limit, string> = {
  tokens: `The document has more than ${LIMITS.tokens} tokens; the limit is ${LIMITS.tokens}.`,
  depth: `The operation is nested too many levels deep; the limit is ${LIMITS.depth}.`,
  cost: `The operation costs more than the limit of ${LIMITS.cost}; ask for fewer or smaller pages.`,
  aliases: `The operation uses more than ${LIMITS.aliases} aliases; the limit is ${LIMITS.aliases}.`,
  directives: `The operation uses more than ${LIMITS.directives} directives; the limit is ${LIMITS.directives}.`,
};

export function limitError(limit: Limit): GraphQLError {
  return new GraphQLError(SENTENCE[limit], { extensions: { code: LIMIT_CODES[limit], limit: LIMITS[limit] } });
}

// armor's rules throw a message of their own by default; reporting through the validation context
// instead gives each limit its own code and keeps validation's other errors out of the way.
const report = (limit: Limit) => ({
  propagateOnRejection: false,
  onReject: [(context: ValidationContext | null) => context?.reportError(limitError(limit))],
});

/** Run alone, before the standard rules: those are quadratic in aliases (overlapping fields). */
export const limitRules: ValidationRule[] = [
  maxDepthRule({ n: LIMITS.depth, ...report('depth') }),
  maxAliasesRule({ n: LIMITS.aliases, ...report('aliases') }),
  maxDirectivesRule({ n: LIMITS.directives, ...report('directives') }),
];
