import { ValidationError } from './errors.ts';

// Rule P4: text that PostgreSQL cannot store answers a typed error, never an internal one. A text
// column refuses NUL bytes and jsonb refuses the \u0000 escape; a lone surrogate is not valid
// UTF-8 (jsonb refuses its escape, a text column would silently store U+FFFD). Messages never
// quote the text.

export type TextProblem = 'NUL' | 'LONE_SURROGATE';

export function textProblem(value: string): TextProblem | null {
  if (!value.isWellFormed()) return 'LONE_SURROGATE';
  if (value.includes('\u0000')) return 'NUL';
  return null;
}

export function describeTextProblem(problem: TextProblem): string {
  return problem === 'NUL' ? 'a NUL character (U+0000)' : 'a lone surrogate (not valid UTF-8)';
}

/** A typed refusal for text that cannot be stored, naming the field and the problem, never the text. */
export function validateText(value: string, field: string): ValidationError | null {
  const problem = textProblem(value);
  return problem ? new ValidationError('INVALID_UTF8', `${field} contains ${describeTextProblem(problem)}.`, field) : null;
}

const ID_SHAPE = /^[a-z]{2,4}_[A-Za-z0-9-]{1,100}$/;

/**
 * Whether a string can be one of our ids at all (a type prefix, then letters, digits and dashes).
 * Anything else names nothing, so lookups answer NOT_FOUND without asking the database.
 */
export function isIdShaped(value: string): boolean {
  return ID_SHAPE.test(value);
}
