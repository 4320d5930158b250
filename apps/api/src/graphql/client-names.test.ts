import fc from 'fast-check';
import { specifiedRules, ValuesOfCorrectTypeRule } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCanary } from '../test/canary.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { REWRITTEN_RULES } from './validation-messages.ts';

// P1 and P4 for the names a client writes: a document is built from one template whose every name
// position (operation, variable definition and use, variable type, alias, argument, field,
// directive and its argument, fragment spread and definition, both type conditions, enum literal,
// input-object field, type and directive definitions, a variables key, the operationName
// parameter) holds either a name of the schema or a canary, with duplicates, a fragment cycle, a
// cut or a stray character on top; it goes through the whole HTTP app, as a POST or a GET. Every
// error has a code, nothing answers 500, no message makes a suggestion from what the client wrote,
// and the canary (or its marker, should a cut shorten it) is in no answer and no log line.
// Aliases are response keys: GraphQL answers data under them and names them in an executed
// error's `path` (spec 7.1.2), so there, and only when the document ran, the alias may come back.
// A failure prints fast-check's seed: `FC_SEED=<seed> npx vitest run <this file>` replays it.

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const RUNS = process.env.FC_NUM_RUNS ? Number(process.env.FC_NUM_RUNS) : 300;
const MARKER = 'zzCanary';

const SLOTS = [
  'operationName',
  'variableDefinition',
  'variableUse',
  'variableType',
  'alias',
  'argument',
  'field',
  'directive',
  'directiveArgument',
  'fragmentSpread',
  'fragmentDefinition',
  'inlineTypeCondition',
  'fragmentTypeCondition',
  'enumLiteral',
  'inputField',
  'typeDefinition',
  'directiveDefinition',
  'variablesKey',
  'operationNameParameter',
] as const;
type Slot = (typeof SLOTS)[number];

const DUPLICATES = ['none', 'operation', 'fragment', 'argument', 'variable', 'inputField', 'aliasConflict', 'fragmentCycle'] as const;

interface Case {
  canary: string;
  slots: ReadonlySet<Slot>;
  operationType: 'query' | 'mutation' | 'subscription';
  duplicate: (typeof DUPLICATES)[number];
  variableValue: 'valid' | 'canary' | 'absent';
  /** Where to cut the document, in percent of its length; null leaves it whole. */
  cut: number | null;
  stray: { at: number; text: string } | null;
  transport: 'POST' | 'GET';
}

function documentFor(c: Case): { query: string; variables: Record<string, unknown>; operationName?: string } {
  const name = (slot: Slot, valid: string) => (c.slots.has(slot) ? c.canary : valid);
  const operationName = name('operationName', 'Probe');
  const defined = name('variableDefinition', 'n');
  const used = name('variableUse', 'n');
  const aliasName = name('alias', 'page');
  const argument = c.slots.has('argument') ? `, ${c.canary}: 1` : '';
  const argumentTwice = c.duplicate === 'argument' ? (argument || ', first: 2') : '';
  const directiveName = name('directive', 'include');
  const directiveArgument = c.slots.has('directiveArgument') ? `${c.canary}: true, ` : '';
  const field = c.slots.has('field') ? ` ${c.canary}` : '';
  const spread = name('fragmentSpread', 'Fields');
  const fragment = name('fragmentDefinition', 'Fields');
  const inputField = c.slots.has('inputField') ? `, ${c.canary}: 1` : '';
  const inputFieldTwice = c.duplicate === 'inputField' ? (inputField || ', outcome: FAILURE') : '';
  const variableTwice = c.duplicate === 'variable' ? `, $${defined}: Int` : '';
  const conflict = c.duplicate === 'aliasConflict' ? `\n  ${aliasName}: viewer { id }` : '';

  const operation = `${c.operationType} ${operationName}($${defined}: ${name('variableType', 'Int')}${variableTwice}) {
  ${aliasName}: namespaces(first: $${used}${argument}${argumentTwice}) @${directiveName}(${directiveArgument}if: true) {
    edges { node { id${field} ...${spread} ... on ${name('inlineTypeCondition', 'Namespace')} { name } } }
  }${conflict}
  auditEvents(first: 1, filter: { outcome: ${name('enumLiteral', 'SUCCESS')}${inputField}${inputFieldTwice} }) { totalCount }
}`;
  const fragmentBody = c.duplicate === 'fragmentCycle' ? `{ id ...${fragment} }` : '{ id }';
  const definition = `fragment ${fragment} on ${name('fragmentTypeCondition', 'Namespace')} ${fragmentBody}`;
  const parts = [operation, definition];
  if (c.duplicate === 'operation') parts.push(operation);
  if (c.duplicate === 'fragment') parts.push(definition);
  if (c.slots.has('typeDefinition')) parts.push(`type ${c.canary} { id: ID }`);
  if (c.slots.has('directiveDefinition')) parts.push(`directive @${c.canary} on FIELD`);
  let query = parts.join('\n');
  if (c.stray) {
    const at = Math.floor((query.length * c.stray.at) / 100);
    query = query.slice(0, at) + c.stray.text + query.slice(at);
  }
  if (c.cut !== null) query = query.slice(0, Math.floor((query.length * c.cut) / 100));

  const variables: Record<string, unknown> = {};
  if (c.variableValue !== 'absent') variables[defined] = c.variableValue === 'valid' ? 5 : c.canary;
  if (c.slots.has('variablesKey')) variables[c.canary] = 1;
  const chosen = c.slots.has('operationNameParameter') ? c.canary : c.duplicate === 'operation' ? undefined : operationName;
  return { query, variables, ...(chosen === undefined ? {} : { operationName: chosen }) };
}

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  canary: fc.stringMatching(/^[A-Za-z0-9_]{6,14}$/).map((suffix) => `${MARKER}${suffix}`),
  slots: fc.subarray([...SLOTS], { minLength: 1 }).map((s) => new Set(s)),
  operationType: fc.constantFrom('query', 'query', 'query', 'mutation', 'subscription'),
  duplicate: fc.constantFrom(...DUPLICATES),
  variableValue: fc.constantFrom('valid', 'valid', 'canary', 'absent'),
  cut: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 99 }) }),
  stray: fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.record({ at: fc.integer({ min: 0, max: 100 }), text: fc.constantFrom('"', '}', '(', ':', '$', '§', '\\u', '"""', '#') }) },
  ),
  transport: fc.constantFrom('POST', 'POST', 'GET'),
});

/** Each position alone, in an otherwise valid document: the cases fast-check always runs first. */
const EACH_SLOT_ALONE: Case[] = SLOTS.map((slot, i) => ({
  canary: `${MARKER}Alone${i}x${slot}`,
  slots: new Set([slot]),
  operationType: 'query',
  duplicate: slot === 'alias' ? 'aliasConflict' : 'none',
  variableValue: 'valid',
  cut: null,
  stray: null,
  transport: 'POST',
}));

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ worker: false });
});
afterAll(() => stack?.close());

interface Answer {
  data?: unknown;
  errors?: Array<{ message?: unknown; path?: unknown; extensions?: { code?: unknown } }>;
}

async function send(c: Case): Promise<{ status: number; text: string }> {
  const { query, variables, operationName } = documentFor(c);
  const headers: Record<string, string> = { authorization: `Bearer ${stack.bootstrapKey}`, accept: 'application/json' };
  if (c.transport === 'GET') {
    const params = new URLSearchParams({ query, variables: JSON.stringify(variables), ...(operationName === undefined ? {} : { operationName }) });
    const res = await stack.request(`/graphql?${params.toString()}`, { method: 'GET', headers });
    return { status: res.status, text: await res.text() };
  }
  headers['content-type'] = 'application/json';
  const res = await stack.request('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables, operationName }) });
  return { status: res.status, text: await res.text() };
}

/** What is wrong with one answer; empty when it keeps P1 and P4. */
async function violations(c: Case): Promise<string[]> {
  const logStart = stack.logs.length;
  const { status, text } = await send(c);
  const found: string[] = [];
  if (status >= 500) found.push(`HTTP ${status}: ${text.slice(0, 300)}`);
  let body: Answer = {};
  try {
    body = JSON.parse(text) as Answer;
  } catch {
    found.push(`HTTP ${status} answered a body that is not JSON: ${text.slice(0, 300)}`);
  }
  for (const error of body.errors ?? []) {
    const code = error.extensions?.code;
    if (typeof code !== 'string') found.push(`error without extensions.code: ${String(error.message)}`);
    else if (code === 'INTERNAL_SERVER_ERROR') found.push(`INTERNAL_SERVER_ERROR: ${String(error.message)}`);
    if (typeof error.message === 'string' && /did you mean/i.test(error.message)) found.push(`a suggestion drawn from the client's text: ${error.message}`);
  }
  // Only a document that ran has data and error paths; an alias may be there, and nowhere else.
  const ran = body.data !== undefined && body.data !== null;
  const visible = c.slots.has('alias') && ran ? JSON.stringify({ ...body, data: null, errors: body.errors?.map(({ path: _path, ...rest }) => rest) }) : text;
  for (const form of [c.canary, MARKER]) {
    if (findCanary([visible], form).length) found.push(`canary in the answer: ${visible.slice(0, 600)}`);
    for (const line of findCanary(stack.logs.slice(logStart), form)) found.push(`canary in a log line: ${line}`);
  }
  return [...new Set(found)];
}

const describeCase = (c: Case) => {
  const { query, variables, operationName } = documentFor(c);
  return `${c.transport} slots=${[...c.slots].join(',')} duplicate=${c.duplicate}\n${query}\nvariables=${JSON.stringify(variables)} operationName=${String(operationName)}`;
};

describe('P1 P4 names the client writes are never echoed', () => {
  it('P4 the template is a valid document when every position holds the schema name', async () => {
    const valid: Case = { ...EACH_SLOT_ALONE[0]!, slots: new Set(), duplicate: 'none' };
    const { status, text } = await send(valid);
    expect(status, text).toBe(200);
    const body = JSON.parse(text) as Answer;
    expect(body.errors, text).toBeUndefined();
    expect(body.data, text).toMatchObject({ page: { edges: expect.any(Array) }, auditEvents: { totalCount: expect.any(Number) } });
  });

  it('P1 P4 a canary in every name position of a document reaches no answer and no log line, and every error has a code', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(caseArbitrary, async (c) => {
        const found = await violations(c);
        expect(found, describeCase(c)).toEqual([]);
      }),
      { numRuns: RUNS, seed: SEED, examples: EACH_SLOT_ALONE.map((c) => [c] as [Case]) },
    );
  });
});

// What each rule answers instead of graphql-js' sentence, written out here rather than read from
// validation-messages.ts: a rewrite removed or changed shows up as a missing sentence.
const X = `${MARKER}Table`;
const SENTENCES: Array<[rule: string, query: string, expected: string, extra?: { variables?: Record<string, unknown>; operationName?: string }]> = [
  ['ExecutableDefinitions', `type ${X} { id: ID } { viewer { id } }`, 'A document holds only operations and fragments; this definition is not executable.'],
  ['UniqueOperationNames', `query ${X} { viewer { id } } query ${X} { viewer { id } }`, 'Two operations in the document have the same name.', { operationName: X }],
  ['LoneAnonymousOperation', `query ${X} { viewer { id } } { viewer { id } }`, 'An anonymous operation must be the only operation in the document.', { operationName: X }],
  ['KnownTypeNames', `{ viewer { ... on ${X} { id } } }`, 'Unknown type: the schema defines no type by that name.'],
  ['FragmentsOnCompositeTypes', `{ viewer { ...${X} } } fragment ${X} on String { id }`, 'A fragment cannot be on String: it is not an object, interface or union type.'],
  ['VariablesAreInputTypes', `query($${X}: Principal) { viewer { id } }`, 'A variable cannot be of type Principal: it is not an input type.'],
  ['ScalarLeafs (leaf)', `{ viewer { id { ${X} } } }`, 'Principal.id is of type ID!, which has no fields to select.'],
  ['ScalarLeafs (object)', `{ ${X}: viewer }`, 'Query.viewer is of type Principal: select at least one of its fields.'],
  ['FieldsOnCorrectType', `{ viewer { ${X} } }`, 'Principal has no such field.'],
  ['UniqueFragmentNames', `{ viewer { ...${X} } } fragment ${X} on Principal { id } fragment ${X} on Principal { id }`, 'Two fragments in the document have the same name.'],
  ['KnownFragmentNames', `{ viewer { ...${X} } }`, 'Unknown fragment: the document defines no fragment by that name.'],
  ['NoUnusedFragments', `{ viewer { id } } fragment ${X} on Principal { id }`, 'A fragment is defined but never used.'],
  ['PossibleFragmentSpreads', `{ viewer { ... on Namespace { id } } }`, 'A fragment on Namespace cannot be spread inside Principal: nothing can be both.'],
  ['NoFragmentCycles', `{ viewer { ...${X} } } fragment ${X} on Principal { ...${X} }`, 'A fragment cannot spread itself, directly or through other fragments.'],
  ['UniqueVariableNames', `query($${X}: Int, $${X}: Int) { namespaces(first: $${X}) { totalCount } }`, 'Two variables of the operation have the same name.'],
  ['NoUndefinedVariables', `{ namespaces(first: $${X}) { totalCount } }`, 'Unknown variable: the operation defines no variable by that name.'],
  ['NoUnusedVariables', `query($${X}: Int) { viewer { id } }`, 'A variable is defined but never used by its operation.'],
  ['KnownDirectives (unknown)', `{ viewer @${X} { id } }`, 'Unknown directive: the schema defines no directive by that name.'],
  ['KnownDirectives (location)', `query @include(if: true) { viewer { id } }`, 'Directive @include cannot be used at this location.'],
  ['UniqueDirectivesPerLocation', `{ viewer @include(if: true) @include(if: true) { id } }`, 'Directive @include can be used only once at this location.'],
  ['KnownArgumentNames (field)', `{ namespaces(${X}: 1) { totalCount } }`, 'Unknown argument on field Query.namespaces.'],
  ['KnownArgumentNames (directive)', `{ viewer @include(${X}: true, if: true) { id } }`, 'Unknown argument on directive @include.'],
  ['KnownArgumentNames (directive the document defines)', `directive @${X} on FIELD { viewer @${X}(${X}: true) { id } }`, 'Unknown argument on a directive the schema does not define.'],
  ['UniqueArgumentNames', `{ namespaces(${X}: 1, ${X}: 2) { totalCount } }`, 'Query.namespaces is given the same argument more than once.'],
  ['ValuesOfCorrectType (enum)', `{ auditEvents(filter: { outcome: ${X} }) { totalCount } }`, 'Argument "filter" has an invalid value at "filter.outcome": expected AuditOutcome.'],
  [
    'ValuesOfCorrectType (input field)',
    `{ auditEvents(filter: { ${X}: 1 }) { totalCount } }`,
    'Argument "filter" has an invalid value at "filter": AuditEventFilter has a field it does not define; its fields are action, actorId, from, namespaceId, outcome, resourceId, resourceKind, systemActor, to.',
  ],
  ['ProvidedRequiredArguments (field)', `{ ${X}: secret { id } }`, 'Query.secret requires id (ID!), which is not given.'],
  ['ProvidedRequiredArguments (directive)', `{ viewer @include { id } }`, '@include requires if (Boolean!), which is not given.'],
  ['VariablesInAllowedPosition', `query($${X}: String) { namespaces(first: $${X}) { totalCount } }`, 'A variable of type String is used where Int is expected.'],
  ['OverlappingFieldsCanBeMerged', `{ ${X}: viewer { id } ${X}: namespaces { totalCount } }`, 'Two selections on Query answer under the same name but differ in field, arguments or type; give one of them another alias.'],
  ['UniqueInputFieldNames', `{ auditEvents(filter: { ${X}: SUCCESS, ${X}: FAILURE }) { totalCount } }`, 'AuditEventFilter is given the same field more than once.'],
  ['variable coercion', `query($${X}: Int) { namespaces(first: $${X}) { totalCount } }`, 'Variable 1 of the operation has an invalid value: expected Int.', { variables: { [X]: X } }],
  ['variable default', `query($a: Int, $${X}: AuditEventFilter = { outcome: ${X} }) { namespaces(first: $a) { totalCount } auditEvents(filter: $${X}) { totalCount } }`, 'Variable 2 of the operation has an invalid value at "outcome": expected AuditOutcome.', { variables: { a: 1 } }],
];

describe('P1 P4 each validation error is a sentence of schema names and positions', () => {
  it('P1 every rule graphql-js validates with has a sentence of its own here (or is the value rule)', () => {
    const missing = specifiedRules.filter((rule) => rule !== ValuesOfCorrectTypeRule && !REWRITTEN_RULES.has(rule)).map((rule) => rule.name);
    expect(missing).toEqual([]);
  });

  for (const [rule, query, expected, extra] of SENTENCES) {
    it(`P1 P4 ${rule}: answers "${expected}" with a code, never the client's names`, async () => {
      const logStart = stack.logs.length;
      const res = await stack.request('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.bootstrapKey}` },
        body: JSON.stringify({ query, variables: extra?.variables ?? {}, operationName: extra?.operationName }),
      });
      const text = await res.text();
      const body = JSON.parse(text) as Answer;
      expect(body.errors?.map((e) => e.message), text).toContain(expected);
      for (const error of body.errors ?? []) expect(typeof error.extensions?.code, text).toBe('string');
      expect(findCanary([text, ...stack.logs.slice(logStart)], MARKER)).toEqual([]);
    });
  }
});

describe('P1 aliases in log lines', () => {
  it('P1 an error of a document that ran is logged with the path by field names, never by the alias the client chose', async () => {
    const alias = `${MARKER}Alias`;
    const logStart = stack.logs.length;
    const res = await stack.gql(`{ viewer { id } ${alias}: namespaces(first: -1) { edges { node { id } } } }`);
    // In the answer the path is the response key, as GraphQL defines it (the client's own alias).
    expect(res.body.errors?.map((e) => (e as { path?: unknown }).path), JSON.stringify(res.body)).toEqual([[alias]]);
    expect(typeof res.body.errors?.[0]?.extensions?.code).toBe('string');
    const lines = stack.logs.slice(logStart);
    expect(findCanary(lines, MARKER)).toEqual([]);
    const logged = lines.map((l) => JSON.parse(l) as { msg?: string; errors?: Array<{ path?: unknown }> }).find((l) => l.errors?.length);
    expect(logged?.errors?.map((e) => e.path), lines.join('\n')).toEqual([['namespaces']]);
  });
});
