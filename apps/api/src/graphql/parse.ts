import { MaxTokensParserWLexer } from '@escape.tech/graphql-armor-max-tokens';
import { GraphQLError, Lexer, Source, TokenKind, type DocumentNode, type ParseOptions } from 'graphql';
import { LIMITS, limitError } from './limits.ts';

// Rules P1 and P3 at the parser. graphql-js' syntax errors quote the offending token
// (`Expected ":", found String "sk-…"`), so a value written inline would come back in the answer;
// its errors are rebuilt here from the position and the kind of token only. The token limit is
// counted while lexing, so a deep document is refused before the recursive parser gets deep.

const PUNCTUATORS = new Set<string>([
  TokenKind.BANG,
  TokenKind.DOLLAR,
  TokenKind.AMP,
  TokenKind.PAREN_L,
  TokenKind.PAREN_R,
  TokenKind.SPREAD,
  TokenKind.COLON,
  TokenKind.EQUALS,
  TokenKind.AT,
  TokenKind.BRACKET_L,
  TokenKind.BRACKET_R,
  TokenKind.BRACE_L,
  TokenKind.PIPE,
  TokenKind.BRACE_R,
]);

function describeKind(kind: string): string {
  if (PUNCTUATORS.has(kind)) return `"${kind}"`;
  if (kind === TokenKind.EOF) return 'the end of the document';
  if (kind === TokenKind.NAME) return 'a name';
  if (kind === TokenKind.STRING || kind === TokenKind.BLOCK_STRING) return 'a string';
  if (kind === TokenKind.INT || kind === TokenKind.FLOAT) return 'a number';
  return 'a token';
}

function offsetOf(body: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = body.indexOf('\n', offset);
    if (next < 0) break;
    offset = next + 1;
  }
  return offset + column - 1;
}

/** What stands at `offset`, found by lexing again: the kind only, never the text. */
function tokenAt(source: Source, offset: number): string {
  const lexer = new Lexer(source);
  try {
    for (let token = lexer.advance(); ; token = lexer.advance()) {
      if (token.end > offset || token.kind === TokenKind.EOF) return describeKind(token.kind);
    }
  } catch {
    return 'a character sequence that is not GraphQL';
  }
}

export function syntaxError(source: Source, error: GraphQLError): GraphQLError {
  const at = error.locations?.[0];
  if (!at) return new GraphQLError('Syntax Error: the document is not valid GraphQL.', { extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
  const offset = offsetOf(source.body, at.line, at.column);
  return new GraphQLError(`Syntax Error at line ${at.line}, column ${at.column}: ${tokenAt(source, offset)} is not expected here.`, {
    source,
    positions: [offset],
    extensions: { code: 'GRAPHQL_PARSE_FAILED' },
  });
}

export function parseWithinLimits(document: string | Source, options?: ParseOptions): DocumentNode {
  const source = typeof document === 'string' ? new Source(document) : document;
  let overLimit = false;
  try {
    const parser = new MaxTokensParserWLexer(source, {
      ...options,
      n: LIMITS.tokens,
      onReject: [() => (overLimit = true)],
      propagateOnRejection: true,
    });
    return parser.parseDocument();
  } catch (error) {
    if (overLimit) throw limitError('tokens');
    if (error instanceof GraphQLError) throw syntaxError(source, error);
    // A RangeError here would mean the token limit no longer bounds the parser's recursion.
    if (error instanceof RangeError) throw limitError('depth');
    throw error;
  }
}
