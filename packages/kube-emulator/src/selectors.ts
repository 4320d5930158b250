// Label and field selectors, parsed with the grammar of k8s.io/apimachinery/pkg/labels and
// pkg/fields. Parse errors are 400 BadRequest, as the real server answers them.

import { badRequest } from './errors.ts';
import { labelValue, qualifiedName } from './validation.ts';

export type LabelOperator = 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export type LabelSelector = LabelRequirement[];

type Token =
  | { kind: 'id'; text: string }
  | { kind: 'op'; text: '!' | '=' | '==' | '!=' | '(' | ')' | ',' | '>' | '<' }
  | { kind: 'end' };

const SPECIAL = new Set([' ', '\t', '\r', '\n', '(', ')', ',', '!', '=', '<', '>']);

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i] ?? '';
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n') {
      i++;
    } else if (ch === '!' && input[i + 1] === '=') {
      tokens.push({ kind: 'op', text: '!=' });
      i += 2;
    } else if (ch === '=' && input[i + 1] === '=') {
      tokens.push({ kind: 'op', text: '==' });
      i += 2;
    } else if (ch === '!' || ch === '=' || ch === '(' || ch === ')' || ch === ',' || ch === '>' || ch === '<') {
      tokens.push({ kind: 'op', text: ch });
      i++;
    } else {
      let j = i;
      while (j < input.length && !SPECIAL.has(input[j] ?? '')) j++;
      tokens.push({ kind: 'id', text: input.slice(i, j) });
      i = j;
    }
  }
  tokens.push({ kind: 'end' });
  return tokens;
}

function describe(token: Token): string {
  return token.kind === 'end' ? 'EOS' : `'${token.text}'`;
}

/** Parses a labelSelector query value; an empty string selects everything. */
export function parseLabelSelector(input: string): LabelSelector {
  const tokens = tokenize(input);
  let pos = 0;
  const peek = (): Token => tokens[pos] ?? { kind: 'end' };
  const next = (): Token => tokens[pos++] ?? { kind: 'end' };
  const fail = (message: string): never => {
    throw badRequest(`unable to parse requirement: ${message}`);
  };
  const checkKey = (key: string): void => {
    const errors = qualifiedName(key);
    if (errors.length > 0) fail(`<nil>: Invalid value: ${JSON.stringify(key)}: ${errors.join('; ')}`);
  };
  const checkValue = (key: string, value: string): void => {
    const errors = labelValue(value);
    if (errors.length > 0) fail(`values[0][${key}]: Invalid value: ${JSON.stringify(value)}: ${errors.join('; ')}`);
  };

  const requirements: LabelSelector = [];
  if (peek().kind === 'end') return requirements;
  for (;;) {
    let token = next();
    let negated = false;
    if (token.kind === 'op' && token.text === '!') {
      negated = true;
      token = next();
    }
    if (token.kind !== 'id') return fail(`found ${describe(token)}, expected: !, identifier, or 'end of string'`);
    const key = token.text;
    checkKey(key);
    const after = peek();
    if (negated) {
      requirements.push({ key, operator: '!', values: [] });
    } else if (after.kind === 'end' || (after.kind === 'op' && after.text === ',')) {
      requirements.push({ key, operator: 'exists', values: [] });
    } else if (after.kind === 'op' && (after.text === '=' || after.text === '==' || after.text === '!=')) {
      next();
      const valueToken = peek();
      let value = '';
      if (valueToken.kind === 'id') {
        value = valueToken.text;
        next();
      }
      checkValue(key, value);
      requirements.push({ key, operator: after.text === '!=' ? '!=' : '=', values: [value] });
    } else if (after.kind === 'op' && (after.text === '>' || after.text === '<')) {
      next();
      const valueToken = next();
      if (valueToken.kind !== 'id' || !/^-?\d+$/.test(valueToken.text)) {
        return fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
      }
      requirements.push({ key, operator: after.text === '>' ? 'gt' : 'lt', values: [valueToken.text] });
    } else if (after.kind === 'id' && (after.text === 'in' || after.text === 'notin')) {
      next();
      const open = next();
      if (open.kind !== 'op' || open.text !== '(') return fail(`found ${describe(open)}, expected: '('`);
      const values: string[] = [];
      for (;;) {
        const valueToken = peek();
        let value = '';
        if (valueToken.kind === 'id') {
          value = valueToken.text;
          next();
        }
        checkValue(key, value);
        values.push(value);
        const separator = next();
        if (separator.kind === 'op' && separator.text === ')') break;
        if (separator.kind !== 'op' || separator.text !== ',') return fail(`found ${describe(separator)}, expected: ',' or ')'`);
      }
      requirements.push({ key, operator: after.text, values });
    } else {
      return fail(`found ${describe(after)}, expected: in, notin, =, ==, !=, gt, lt`);
    }
    const separator = next();
    if (separator.kind === 'end') break;
    if (separator.kind !== 'op' || separator.text !== ',') return fail(`found ${describe(separator)}, expected: ','`);
  }
  return requirements;
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const set = labels ?? {};
  return selector.every((req) => {
    const has = Object.prototype.hasOwnProperty.call(set, req.key);
    const value = set[req.key];
    switch (req.operator) {
      case 'exists':
        return has;
      case '!':
        return !has;
      case '=':
      case 'in':
        return has && req.values.includes(value ?? '');
      case '!=':
      case 'notin':
        return !has || !req.values.includes(value ?? '');
      case 'gt':
      case 'lt': {
        if (!has || !/^-?\d+$/.test(value ?? '')) return false;
        const n = Number(value);
        const bound = Number(req.values[0]);
        return req.operator === 'gt' ? n > bound : n < bound;
      }
    }
  });
}

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export type FieldSelector = FieldRequirement[];

function splitUnescaped(input: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const ch = input[i] ?? '';
    if (ch === '\\' && i + 1 < input.length) {
      current += ch + (input[i + 1] ?? '');
      i++;
    } else if (ch === separator) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

function unescapeFieldValue(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/** Parses a fieldSelector query value (terms `f=v`, `f==v`, `f!=v` joined by commas). */
export function parseFieldSelector(input: string): FieldSelector {
  if (input.trim() === '') return [];
  return splitUnescaped(input, ',').map((term) => {
    const match = /^([^=!]*?)(!=|==|=)(.*)$/s.exec(term);
    if (!match) throw badRequest(`invalid selector: '${input}'; can't understand '${term}'`);
    const [, field = '', op = '=', value = ''] = match;
    return { field: field.trim(), operator: op === '!=' ? '!=' : '=', value: unescapeFieldValue(value) };
  });
}

export type FieldGetter = (object: Record<string, unknown>) => string | undefined;

/**
 * Rejects fields the resource does not index, in the words `refusal` gives (the kind's conversion
 * function's, api.ts).
 */
export function checkFieldSelector(selector: FieldSelector, getters: Record<string, FieldGetter>, refusal: (field: string) => string): void {
  for (const req of selector) {
    if (!getters[req.field]) throw badRequest(refusal(req.field));
  }
}

export function matchesFields(
  selector: FieldSelector,
  getters: Record<string, FieldGetter>,
  object: Record<string, unknown>,
): boolean {
  return selector.every((req) => {
    const getter = getters[req.field];
    const actual = getter ? (getter(object) ?? '') : '';
    return req.operator === '=' ? actual === req.value : actual !== req.value;
  });
}
