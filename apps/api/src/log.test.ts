import { GraphQLError } from 'graphql';
import { ValidationError } from '@occ/domain/errors';
import { describe, expect, it } from 'vitest';
import { createLogger, safeErrorText } from './log.ts';

// Rule P1: an error's text may quote input (Prisma's invocation, client-node's body, JSON.parse's
// snippet, graphql-js' values); a log line carries what identifies an error, never its text.

const CANARY = 'CANARY_5f1e0c2a9b7d';

function logged(fields: Record<string, unknown>): string {
  const lines: string[] = [];
  createLogger((l) => lines.push(l), 'debug').error('failed', fields);
  return lines.join('');
}

describe('P1 error serialization in logs', () => {
  const quoting = (): Error[] => {
    const plain = new Error(`invalid value "${CANARY}"\n    at ${CANARY} (fake frame)`);
    const coded = Object.assign(new Error(`Invalid prisma.secret.create() invocation: { value: "${CANARY}" }`), { code: 'P2002', name: 'PrismaClientKnownRequestError' });
    const withCause = new Error('outer', { cause: new Error(`inner ${CANARY}`) });
    const located = new GraphQLError(`String cannot represent ${CANARY}`, { path: ['createSecret'], originalError: new Error(`body ${CANARY}`) });
    const httpish = Object.assign(new Error(`HTTP-Code: 500 Body: "${CANARY}"`), { code: 500, body: CANARY });
    return [plain, coded, withCause, located, httpish];
  };

  it('P1 no message, body or message-shaped frame of an error reaches the line, wherever the error sits in the fields', () => {
    for (const error of quoting()) {
      for (const fields of [{ error }, { errors: [error] }, { nested: { deeper: error } }]) {
        const line = logged(fields);
        expect(line, line).not.toContain(CANARY);
        expect(line).toContain('"name"');
      }
    }
  });

  it('P1 the class, code, response path and cause are kept; a DomainError keeps its own sentence', () => {
    const [, coded, withCause, located] = quoting();
    expect(JSON.parse(logged({ error: coded }))).toMatchObject({ error: { name: 'PrismaClientKnownRequestError', code: 'P2002' } });
    expect(JSON.parse(logged({ error: withCause }))).toMatchObject({ error: { name: 'Error', cause: { name: 'Error' } } });
    expect(JSON.parse(logged({ error: located }))).toMatchObject({ error: { name: 'GraphQLError', path: ['createSecret'], cause: { name: 'Error' } } });
    expect(JSON.parse(logged({ error: new ValidationError('NAME_INVALID', 'A name is lower-case letters.', 'name') }))).toMatchObject({ error: { code: 'NAME_INVALID', message: 'A name is lower-case letters.' } });
  });

  it('P1 safeErrorText, which a work item stores as its last error, quotes nothing an error carries', () => {
    for (const error of quoting()) expect(safeErrorText(error)).not.toContain(CANARY);
    expect(safeErrorText(quoting()[1])).toBe('PrismaClientKnownRequestError: P2002');
    expect(safeErrorText(new ValidationError('NAME_INVALID', 'A name is lower-case letters.', 'name'))).toBe('ValidationError: NAME_INVALID: A name is lower-case letters.');
  });
});
