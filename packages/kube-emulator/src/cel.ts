// CEL for the validating admission policies (admission-policy.ts): @marcbachmann/cel-js with
// optional types and dynamic variables, each expression parsed once.

import { Environment } from '@marcbachmann/cel-js';

const cel = new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true, homogeneousAggregateLiterals: false });

export type Compiled = (context: Record<string, unknown>) => unknown;
const compiled = new Map<string, Compiled>();

/** Parses a CEL expression once (cached by its text); throws the parser's error. */
export function compileCel(expression: string): Compiled {
  let program = compiled.get(expression);
  if (!program) {
    program = cel.parse(expression) as unknown as Compiled;
    if (compiled.size > 1000) compiled.clear();
    compiled.set(expression, program);
  }
  return program;
}

/** Why an expression does not compile, or undefined when it does (the policy's validation uses it). */
export function celCompileError(expression: string): string | undefined {
  try {
    compileCel(expression);
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

