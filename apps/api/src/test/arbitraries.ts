import fc from 'fast-check';
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLInputType,
} from 'graphql';

// Hostile values for generated input tests (P1, P4). A recipe is small plain data, so a failing
// case prints short and replays from its seed; `materialize` turns it into the value sent, with a
// canary planted inside wherever the kind of value can hold text.

/** JSON text too deep for JSON.stringify (and its GraphQL literal twin): sent as written. */
export class RawValue {
  constructor(
    readonly json: string,
    readonly literal: string,
  ) {}
}

export const SPECIALS = {
  NUL: '\u0000',
  LONE_HIGH_SURROGATE: '\ud800',
  LONE_LOW_SURROGATE: '\udc00',
  RIGHT_TO_LEFT_OVERRIDE: '\u202e',
  LEFT_TO_RIGHT_ISOLATE: '\u2066',
  ZERO_WIDTH_SPACE: '\u200b',
  ZERO_WIDTH_JOINER: '\u200d',
  BOM: '\ufeff',
  LINE_SEPARATOR: '\u2028',
  REPLACEMENT: '\ufffd',
  NONCHARACTER: '\uffff',
  // graphql-js joins the parts of a coercion message with "; " (the old redaction stopped there).
  MESSAGE_SEPARATOR: '; ',
  QUOTE: '"',
  BACKSLASH: '\\',
  NEWLINE: '\n',
  PERCENT: '%E0%A4%A',
} as const;
export type Special = keyof typeof SPECIALS;
const SPECIAL_NAMES = Object.keys(SPECIALS) as Special[];

const ID_PREFIXES = ['ns_', 'sec_', 'cfg_', 'agt_', 'rev_', 'prn_', 'spn_', 'key_', 'bnd_', 'aud_', 'rol_', 'wrk_'];
const CREDENTIAL_KEYS = ['apiKey', 'token', 'password', 'key', 'secret', 'credentials', 'privateKey', 'clientSecret', 'authorization'];

export type Recipe =
  | { kind: 'text'; before: Special[]; after: Special[] }
  | { kind: 'long-text'; chars: number }
  | { kind: 'malformed-id'; form: 'prefix+canary' | 'canary' | 'prefix-only' | 'empty' | 'other-prefix' | 'spaces' }
  | { kind: 'wrong-type'; as: 'string' | 'int' | 'float' | 'boolean' | 'array' | 'object' | 'null' }
  | { kind: 'int-range'; value: number }
  | { kind: 'enum'; form: 'lowercase' | 'canary' }
  | { kind: 'deep-json'; depth: number; shape: 'array' | 'object' }
  | { kind: 'json-text'; where: 'key' | 'value'; special: Special }
  | { kind: 'json-credential'; key: string; as: 'string' | 'array' | 'object' }
  | { kind: 'unknown-field' }
  | { kind: 'list'; form: 'null-element' | 'many'; count: number };

const text = fc.record({
  kind: fc.constant('text' as const),
  before: fc.array(fc.constantFrom(...SPECIAL_NAMES), { maxLength: 3 }),
  after: fc.array(fc.constantFrom(...SPECIAL_NAMES), { minLength: 1, maxLength: 3 }),
});
// Up to the 1 MiB body limit, and just over it.
const longText = fc.record({ kind: fc.constant('long-text' as const), chars: fc.constantFrom(70_000, 300_000, 1_000_000, 1_100_000) });
const wrongType = (...as: Array<Extract<Recipe, { kind: 'wrong-type' }>['as']>) =>
  fc.record({ kind: fc.constant('wrong-type' as const), as: fc.constantFrom(...as) });
const malformedId = fc.record({
  kind: fc.constant('malformed-id' as const),
  form: fc.constantFrom('prefix+canary' as const, 'canary' as const, 'prefix-only' as const, 'empty' as const, 'other-prefix' as const, 'spaces' as const),
});
const deepJson = fc.record({
  kind: fc.constant('deep-json' as const),
  depth: fc.constantFrom(200, 1_000, 5_000, 20_000, 60_000),
  shape: fc.constantFrom('array' as const, 'object' as const),
});
const badJsonText = fc.record({
  kind: fc.constant('json-text' as const),
  where: fc.constantFrom('key' as const, 'value' as const),
  special: fc.constantFrom<Special>('NUL', 'LONE_HIGH_SURROGATE', 'LONE_LOW_SURROGATE', 'RIGHT_TO_LEFT_OVERRIDE', 'REPLACEMENT', 'MESSAGE_SEPARATOR'),
});
const jsonCredential = fc.record({
  kind: fc.constant('json-credential' as const),
  key: fc.constantFrom(...CREDENTIAL_KEYS),
  as: fc.constantFrom('string' as const, 'array' as const, 'object' as const),
});

/** The hostile recipes that fit a position of this input type. */
export function recipesFor(type: GraphQLInputType): fc.Arbitrary<Recipe> {
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    return fc.oneof(
      fc.record({ kind: fc.constant('list' as const), form: fc.constant('null-element' as const), count: fc.constant(1) }),
      fc.record({ kind: fc.constant('list' as const), form: fc.constant('many' as const), count: fc.constantFrom(65, 1_000, 20_000) }),
      wrongType('string', 'object', 'int', 'null'),
    );
  }
  if (isInputObjectType(nullable)) {
    return fc.oneof(fc.constant({ kind: 'unknown-field' as const }), wrongType('string', 'int', 'array', 'boolean', 'null'));
  }
  if (isEnumType(nullable)) {
    return fc.oneof(
      fc.record({ kind: fc.constant('enum' as const), form: fc.constantFrom('lowercase' as const, 'canary' as const) }),
      wrongType('int', 'array', 'object', 'null'),
    );
  }
  switch (nullable.name) {
    case 'ID':
      return fc.oneof(malformedId, text, longText, wrongType('int', 'float', 'boolean', 'array', 'object', 'null'));
    case 'String':
      return fc.oneof(text, longText, wrongType('int', 'float', 'boolean', 'array', 'object', 'null'));
    case 'Int':
    case 'Float':
      return fc.oneof(
        fc.record({ kind: fc.constant('int-range' as const), value: fc.constantFrom(-1, 0, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 1.5, 1e300) }),
        wrongType('string', 'boolean', 'array', 'object', 'null'),
      );
    case 'Boolean':
      return wrongType('string', 'int', 'array', 'object', 'null');
    case 'JSON':
      return fc.oneof(deepJson, badJsonText, jsonCredential, longText, text, wrongType('null', 'string'));
    default:
      return fc.oneof(text, longText, wrongType('int', 'boolean', 'array', 'object', 'null'));
  }
}

function deep(depth: number, shape: 'array' | 'object', leaf: string): RawValue {
  const json = JSON.stringify(leaf);
  // The outermost level is an object so that fields documented as objects see the depth inside.
  if (shape === 'array') return new RawValue(`{"a":${'['.repeat(depth)}${json}${']'.repeat(depth)}}`, `{a:${'['.repeat(depth)}${json}${']'.repeat(depth)}}`);
  return new RawValue(`${'{"a":'.repeat(depth)}${json}${'}'.repeat(depth)}`, `${'{a:'.repeat(depth)}${json}${'}'.repeat(depth)}`);
}

/**
 * The value a recipe stands for. `base` is the valid value it replaces (kept around an unknown
 * field, repeated in a long list); `type` is the position's input type.
 */
export function materialize(recipe: Recipe, base: unknown, type: GraphQLInputType, canary: string): unknown {
  switch (recipe.kind) {
    case 'text':
      return recipe.before.map((s) => SPECIALS[s]).join('') + canary + recipe.after.map((s) => SPECIALS[s]).join('');
    case 'long-text':
      return canary + 'x'.repeat(Math.max(0, recipe.chars - 2 * canary.length)) + canary;
    case 'malformed-id': {
      const prefix = typeof base === 'string' && base.includes('_') ? base.slice(0, base.indexOf('_') + 1) : 'sec_';
      const other = ID_PREFIXES.find((p) => p !== prefix)!;
      switch (recipe.form) {
        case 'prefix+canary':
          return prefix + canary;
        case 'canary':
          return canary;
        case 'prefix-only':
          return prefix;
        case 'empty':
          return '';
        case 'other-prefix':
          return other + (typeof base === 'string' ? base.slice(prefix.length) : canary) + canary;
        case 'spaces':
          return ` ${prefix}${canary} `;
      }
      break;
    }
    case 'wrong-type':
      switch (recipe.as) {
        case 'string':
          return canary;
        case 'int':
          return 42;
        case 'float':
          return 4.2;
        case 'boolean':
          return true;
        case 'array':
          return [canary];
        case 'object':
          return { value: canary };
        case 'null':
          return null;
      }
      break;
    case 'int-range':
      return recipe.value;
    case 'enum': {
      const named = getNamedType(type);
      const first = isEnumType(named) ? (named.getValues()[0]?.name ?? 'X') : 'X';
      return recipe.form === 'lowercase' ? first.toLowerCase() : canary;
    }
    case 'deep-json':
      return deep(recipe.depth, recipe.shape, canary);
    case 'json-text':
      return recipe.where === 'key' ? { [`k${SPECIALS[recipe.special]}${canary}`]: 1 } : { a: `x${SPECIALS[recipe.special]}${canary}` };
    case 'json-credential': {
      const value = recipe.as === 'string' ? canary : recipe.as === 'array' ? [canary] : { value: canary };
      return { channels: { main: { enabled: true, [recipe.key]: value } } };
    }
    case 'unknown-field':
      return { ...(base && typeof base === 'object' ? base : {}), hostileExtra: canary };
    case 'list': {
      if (recipe.form === 'null-element') return [null];
      const element = Array.isArray(base) ? base[0] : base;
      const ofObjects = isInputObjectType(getNamedType(type));
      return Array.from({ length: recipe.count }, (_, i) => (ofObjects ? element : `${canary}-${i}`));
    }
  }
  throw new Error(`unknown recipe ${JSON.stringify(recipe)}`);
}

/** JSON text of a value that may hold RawValues (too deep for JSON.stringify). */
export function jsonText(value: unknown): string {
  if (value instanceof RawValue) return value.json;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * A value printed as a GraphQL literal, guided by its input type where it has one: enum values
 * print bare, everything else as the client would write it. A key that is not a GraphQL name is
 * printed quoted, which is a syntax error, as it would be for a client.
 */
export function graphqlLiteral(value: unknown, type: GraphQLInputType | undefined): string {
  if (value instanceof RawValue) return value.literal;
  if (value === null || value === undefined) return 'null';
  const nullable = type && isNonNullType(type) ? type.ofType : type;
  if (Array.isArray(value)) {
    const element = nullable && isListType(nullable) ? (nullable.ofType as GraphQLInputType) : undefined;
    return `[${value.map((v) => graphqlLiteral(v, element)).join(', ')}]`;
  }
  if (typeof value === 'object') {
    const fields = nullable && isInputObjectType(nullable) ? nullable.getFields() : undefined;
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${NAME.test(k) ? k : JSON.stringify(k)}: ${graphqlLiteral(v, fields?.[k]?.type)}`).join(', ')}}`;
  }
  if (typeof value === 'string') {
    const named = nullable && isListType(nullable) ? getNamedType(nullable) : nullable;
    if (named && isEnumType(named) && NAME.test(value)) return value;
    // JSON's string escapes are GraphQL's too (a lone surrogate's \uD800 is then a syntax error).
    return JSON.stringify(value);
  }
  return String(value);
}
