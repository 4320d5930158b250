import {
  GraphQLError,
  Kind,
  ValuesOfCorrectTypeRule,
  specifiedRules,
  typeFromAST,
  validate,
  visitInParallel,
  type ASTNode,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from 'graphql';
import { documentCost } from './cost.ts';
import { codedCause, invalidInput, objectProblem, unknownFieldProblem, walkType, type InputPath, type InputSubject } from './input-errors.ts';
import { LIMITS, limitError, limitRules } from './limits.ts';
import { withSchemaNamesOnly } from './validation-messages.ts';

// Rule P1 for values written inline: graphql-js' ValuesOfCorrectTypeRule prints the literal
// (`Expected value of type "String!", found ["sk-…"]`). It still decides what is invalid; only its
// errors are rebuilt, from the argument, the path to the node and the type expected there.

function pathTo(value: ValueNode, target: ASTNode, path: Array<string | number> = []): Array<string | number> | null {
  if (value === target) return path;
  if (value.kind === Kind.LIST) {
    for (const [i, item] of value.values.entries()) {
      const found = pathTo(item, target, [...path, i]);
      if (found) return found;
    }
  } else if (value.kind === Kind.OBJECT) {
    for (const field of value.fields) {
      if (field === target) return path; // an unknown field: its parent is the place, its name is the client's
      const found = pathTo(field.value, target, [...path, field.name.value]);
      if (found) return found;
    }
  }
  return null;
}

export const SafeValuesOfCorrectTypeRule: ValidationRule = (context) => {
  let root: { subject: InputSubject; value: ValueNode; type: GraphQLInputType | undefined } | null = null;
  const reported = new Set<string>();

  const rebuild = (error: GraphQLError): GraphQLError => {
    const node = error.nodes?.[0];
    const found = root && node ? pathTo(root.value, node) : null;
    if (!root || !node || !found || !root.type) {
      return new GraphQLError('An argument has an invalid value.', { nodes: error.nodes, extensions: { code: 'BAD_USER_INPUT' } });
    }
    const { type, path } = walkType(root.type, found as InputPath);
    let problem: string;
    if (node.kind === Kind.OBJECT_FIELD) problem = unknownFieldProblem(type);
    else if (node.kind === Kind.OBJECT) problem = objectProblem(type, node.fields.map((f) => f.name.value));
    else problem = `expected ${String(type)}`; // TypeInfo is already inside a list literal here
    return invalidInput(root.subject, path, problem, node, codedCause(error));
  };

  const proxy = Object.create(context) as ValidationContext;
  proxy.reportError = (error: GraphQLError) => {
    const safe = rebuild(error);
    const key = `${safe.message}@${safe.locations?.map((l) => `${l.line}:${l.column}`).join(',')}`;
    if (!reported.has(key)) {
      reported.add(key);
      context.reportError(safe);
    }
  };

  return visitInParallel([
    {
      Argument: {
        enter: (node) => void (root = { subject: { kind: 'Argument', name: node.name.value }, value: node.value, type: context.getArgument()?.type }),
        leave: () => void (root = null),
      },
      VariableDefinition: {
        // The key is the definition's index among the operation's variables: a variable is named by
        // its position, never by the name the client gave it (P1).
        enter: (node, key) => {
          const type = typeFromAST(context.getSchema(), node.type) as GraphQLInputType | undefined;
          root = node.defaultValue && typeof key === 'number' ? { subject: { kind: 'Variable', position: key + 1 }, value: node.defaultValue, type } : null;
        },
        leave: () => void (root = null),
      },
    },
    ValuesOfCorrectTypeRule(proxy),
  ]);
};

/** What validation answers for a document whatever the variables: kept per schema, document and rules. */
const answered = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, ReadonlyArray<GraphQLError>>>>();

function remembered(schema: GraphQLSchema, document: DocumentNode, key: string, run: () => ReadonlyArray<GraphQLError>): ReadonlyArray<GraphQLError> {
  let bySchema = answered.get(schema);
  if (!bySchema) answered.set(schema, (bySchema = new WeakMap()));
  let byDocument = bySchema.get(document);
  if (!byDocument) bySchema.set(document, (byDocument = new Map()));
  let errors = byDocument.get(key);
  if (!errors) byDocument.set(key, (errors = run()));
  return errors;
}

/** Every rule as it runs here: the value rule above, and each other with messages that name only the schema. */
function safeRule(rule: ValidationRule): ValidationRule {
  return rule === ValuesOfCorrectTypeRule ? SafeValuesOfCorrectTypeRule : withSchemaNamesOnly(rule);
}

/**
 * Validation as yoga runs it, with four changes: the limits run first and alone (a document over a
 * limit is refused before the standard rules, some of which are quadratic in its size); the cost
 * (P7) is counted with the request's variables, so it is checked on every request and never cached
 * (yoga's own validation cache is off for that reason, yoga.ts); the value rule is the one above;
 * and no error names what the client wrote (P1, validation-messages.ts), suggestions included.
 */
export function validateWithinLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  rules?: ReadonlyArray<ValidationRule>,
  variables?: Readonly<Record<string, unknown>>,
): ReadonlyArray<GraphQLError> {
  const refused = remembered(schema, document, 'limits', () => validate(schema, document, limitRules));
  if (refused.length) return refused;
  if (documentCost(schema, document, variables) > LIMITS.cost) return [limitError('cost')];
  const chosen = (rules ?? specifiedRules).map(safeRule);
  return remembered(schema, document, chosen.map((rule) => rule.name).join(','), () => validate(schema, document, chosen, { hideSuggestions: true }));
}
