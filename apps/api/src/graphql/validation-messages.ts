import {
  ExecutableDefinitionsRule,
  FieldsOnCorrectTypeRule,
  FragmentsOnCompositeTypesRule,
  GraphQLError,
  KnownArgumentNamesRule,
  KnownDirectivesRule,
  KnownFragmentNamesRule,
  KnownTypeNamesRule,
  Kind,
  LoneAnonymousOperationRule,
  MaxIntrospectionDepthRule,
  NoFragmentCyclesRule,
  NoUndefinedVariablesRule,
  NoUnusedFragmentsRule,
  NoUnusedVariablesRule,
  OverlappingFieldsCanBeMergedRule,
  PossibleFragmentSpreadsRule,
  ProvidedRequiredArgumentsRule,
  ScalarLeafsRule,
  SingleFieldSubscriptionsRule,
  UniqueArgumentNamesRule,
  UniqueDirectivesPerLocationRule,
  UniqueFragmentNamesRule,
  UniqueInputFieldNamesRule,
  UniqueOperationNamesRule,
  UniqueVariableNamesRule,
  VariablesAreInputTypesRule,
  VariablesInAllowedPositionRule,
  getNamedType,
  isLeafType,
  isRequiredArgument,
  typeFromAST,
  visitInParallel,
  type ASTNode,
  type GraphQLType,
  type TypeNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

// Rule P1 for the names a client writes. graphql-js' validation messages quote them (`Unknown
// argument "sk_live_…" on field "Query.secrets"`, `Fragment "…" is never used`, `Variable "$…"`,
// `Fields "<alias>" conflict`) and add suggestions drawn from them ("Did you mean …"). Each rule
// still decides what is invalid; its errors are rebuilt here, at the moment it reports them, from
// the schema (the type, field, argument or directive the validator stands on, which exist) and the
// error's positions. A name is named only when the schema defines it; aliases, fragment,
// variable and operation names never are. A rule not listed answers a fixed sentence, unless its
// error already carries a code (ours, written to name nothing: the limits, the value rule).

/** `node` is the node the rule stood on when it reported, `parent` the one around it. */
type Rewrite = (error: GraphQLError, at: { context: ValidationContext; node: ASTNode | undefined; parent: ASTNode | undefined }) => string;

const schemaTypeName = (context: ValidationContext, node: TypeNode | undefined): string | null => {
  if (!node) return null;
  const type = typeFromAST(context.getSchema(), node as Parameters<typeof typeFromAST>[1]) as GraphQLType | undefined;
  return type ? String(type) : null;
};

const schemaDirective = (context: ValidationContext, node: ASTNode | undefined): string | null =>
  node?.kind === Kind.DIRECTIVE && context.getSchema().getDirective(node.name.value) ? `@${node.name.value}` : null;

/** The field the validator stands on, as Type.field, when the schema defines it. */
function schemaField(context: ValidationContext): string | null {
  const parent = context.getParentType();
  const field = context.getFieldDef();
  return parent && field ? `${parent.name}.${field.name}` : null;
}

const parentTypeName = (context: ValidationContext): string | null => context.getParentType()?.name ?? null;

const REWRITES = new Map<ValidationRule, Rewrite>([
  [ExecutableDefinitionsRule, () => 'A document holds only operations and fragments; this definition is not executable.'],
  [UniqueOperationNamesRule, () => 'Two operations in the document have the same name.'],
  [LoneAnonymousOperationRule, () => 'An anonymous operation must be the only operation in the document.'],
  [SingleFieldSubscriptionsRule, () => 'A subscription selects exactly one top-level field, and not an introspection field.'],
  [KnownTypeNamesRule, () => 'Unknown type: the schema defines no type by that name.'],
  [
    FragmentsOnCompositeTypesRule,
    (error, { context }) => {
      const type = schemaTypeName(context, error.nodes?.[0]?.kind === Kind.NAMED_TYPE ? (error.nodes[0] as TypeNode) : undefined);
      return type ? `A fragment cannot be on ${type}: it is not an object, interface or union type.` : 'A fragment must be on an object, interface or union type.';
    },
  ],
  [
    VariablesAreInputTypesRule,
    (error, { context }) => {
      const type = schemaTypeName(context, error.nodes?.[0] as TypeNode | undefined);
      return type ? `A variable cannot be of type ${type}: it is not an input type.` : 'A variable must be of an input type.';
    },
  ],
  [
    ScalarLeafsRule,
    (_error, { context }) => {
      const field = schemaField(context) ?? 'This field';
      const type = context.getType();
      if (type && isLeafType(getNamedType(type))) return `${field} is of type ${String(type)}, which has no fields to select.`;
      return type ? `${field} is of type ${String(type)}: select at least one of its fields.` : 'Select at least one field here.';
    },
  ],
  [
    FieldsOnCorrectTypeRule,
    (_error, { context }) => {
      const parent = parentTypeName(context);
      return parent ? `${parent} has no such field.` : 'Unknown field.';
    },
  ],
  [UniqueFragmentNamesRule, () => 'Two fragments in the document have the same name.'],
  [KnownFragmentNamesRule, () => 'Unknown fragment: the document defines no fragment by that name.'],
  [NoUnusedFragmentsRule, () => 'A fragment is defined but never used.'],
  [
    PossibleFragmentSpreadsRule,
    (_error, { context, node }) => {
      const parent = parentTypeName(context);
      let fragmentType: string | null = null;
      if (node?.kind === Kind.INLINE_FRAGMENT) fragmentType = schemaTypeName(context, node.typeCondition);
      else if (node?.kind === Kind.FRAGMENT_SPREAD) fragmentType = schemaTypeName(context, context.getFragment(node.name.value)?.typeCondition);
      return parent && fragmentType
        ? `A fragment on ${fragmentType} cannot be spread inside ${parent}: nothing can be both.`
        : 'A fragment is spread where its type can never match.';
    },
  ],
  [NoFragmentCyclesRule, () => 'A fragment cannot spread itself, directly or through other fragments.'],
  [UniqueVariableNamesRule, () => 'Two variables of the operation have the same name.'],
  [NoUndefinedVariablesRule, () => 'Unknown variable: the operation defines no variable by that name.'],
  [NoUnusedVariablesRule, () => 'A variable is defined but never used by its operation.'],
  [
    KnownDirectivesRule,
    (_error, { context, node }) => {
      const directive = schemaDirective(context, node);
      return directive ? `Directive ${directive} cannot be used at this location.` : 'Unknown directive: the schema defines no directive by that name.';
    },
  ],
  [
    UniqueDirectivesPerLocationRule,
    (error, { context }) => {
      const directive = schemaDirective(context, error.nodes?.[0]);
      return directive ? `Directive ${directive} can be used only once at this location.` : 'A directive is used more than once at one location.';
    },
  ],
  [
    KnownArgumentNamesRule,
    (_error, { context, node, parent }) => {
      // graphql-js reports an unknown directive argument twice, on the directive and on the
      // argument (as if it were the field's); both come out as the same sentence, once.
      const directive = context.getDirective();
      if (directive) return `Unknown argument on directive @${directive.name}.`;
      if (node?.kind === Kind.DIRECTIVE || parent?.kind === Kind.DIRECTIVE) return 'Unknown argument on a directive the schema does not define.';
      const field = schemaField(context);
      return field ? `Unknown argument on field ${field}.` : 'Unknown argument.';
    },
  ],
  [
    UniqueArgumentNamesRule,
    (_error, { context, node }) => {
      const on = node?.kind === Kind.DIRECTIVE ? schemaDirective(context, node) : schemaField(context);
      return on ? `${on} is given the same argument more than once.` : 'An argument is given more than once.';
    },
  ],
  [
    ProvidedRequiredArgumentsRule,
    (_error, { context, node }) => {
      // One sentence per field or directive, naming every missing argument (the wrapper drops repeats).
      const given = new Set((node?.kind === Kind.FIELD || node?.kind === Kind.DIRECTIVE ? (node.arguments ?? []) : []).map((a) => a.name.value));
      const definition = node?.kind === Kind.DIRECTIVE ? (schemaDirective(context, node) ? context.getDirective() : null) : context.getFieldDef();
      const label = node?.kind === Kind.DIRECTIVE ? schemaDirective(context, node) : schemaField(context);
      const missing = definition?.args.filter((a) => isRequiredArgument(a) && !given.has(a.name)).map((a) => `${a.name} (${String(a.type)})`) ?? [];
      return label && missing.length ? `${label} requires ${missing.join(', ')}, which is not given.` : 'A required argument is not given.';
    },
  ],
  [
    VariablesInAllowedPositionRule,
    (error, { context, node }) => {
      const [definition, usage] = error.nodes ?? [];
      const declared = definition?.kind === Kind.VARIABLE_DEFINITION ? schemaTypeName(context, definition.type) : null;
      const expected =
        node?.kind === Kind.OPERATION_DEFINITION ? context.getRecursiveVariableUsages(node).find((u) => u.node === usage)?.type : undefined;
      return declared && expected ? `A variable of type ${declared} is used where ${String(expected)} is expected.` : 'A variable is used where its type is not allowed.';
    },
  ],
  [
    OverlappingFieldsCanBeMergedRule,
    (_error, { context }) => {
      const parent = parentTypeName(context);
      return `Two selections${parent ? ` on ${parent}` : ''} answer under the same name but differ in field, arguments or type; give one of them another alias.`;
    },
  ],
  [
    UniqueInputFieldNamesRule,
    (_error, { context }) => {
      const parent = context.getParentInputType();
      return parent ? `${getNamedType(parent).name} is given the same field more than once.` : 'An input object is given the same field more than once.';
    },
  ],
  [MaxIntrospectionDepthRule, () => 'The introspection query is nested too deeply.'],
]);

/** The rules whose errors are rebuilt one by one; any other rule's answer FALLBACK. */
export const REWRITTEN_RULES: ReadonlySet<ValidationRule> = new Set(REWRITES.keys());

const FALLBACK = 'The document is not valid against the schema.';

const safeRules = new WeakMap<ValidationRule, ValidationRule>();

/**
 * `rule` with its errors rebuilt as above. A stack of the nodes being visited is kept around it
 * (pushed before the rule enters a node, popped after it leaves), so a rewrite knows where the
 * rule stood when it reported: on a field or a directive, at an operation's end.
 */
export function withSchemaNamesOnly(rule: ValidationRule): ValidationRule {
  const known = safeRules.get(rule);
  if (known) return known;
  const rewrite = REWRITES.get(rule);
  const safe: ValidationRule = (context) => {
    const visiting: ASTNode[] = [];
    const reported = new Set<string>();
    const proxy = Object.create(context) as ValidationContext;
    proxy.reportError = (error: GraphQLError) => {
      const coded = typeof error.extensions?.code === 'string';
      const message = rewrite ? rewrite(error, { context, node: visiting.at(-1), parent: visiting.at(-2) }) : coded ? error.message : FALLBACK;
      const key = `${message}@${error.locations?.map((l) => `${l.line}:${l.column}`).join(',')}`;
      if (reported.has(key)) return;
      reported.add(key);
      context.reportError(
        new GraphQLError(message, {
          nodes: error.nodes,
          extensions: coded && !rewrite ? error.extensions : { code: 'GRAPHQL_VALIDATION_FAILED' },
        }),
      );
    };
    return visitInParallel([
      { enter: (node) => void visiting.push(node) },
      rule(proxy),
      { leave: () => void visiting.pop() },
    ]);
  };
  Object.defineProperty(safe, 'name', { value: rule.name });
  safeRules.set(rule, safe);
  return safe;
}
