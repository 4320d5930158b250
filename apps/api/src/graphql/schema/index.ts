import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from '../builder.ts';
import './errors.ts';
import './principal.ts';
import './namespace.ts';
import './secret.ts';
import './access.ts';
import './users.ts';
import './configuration.ts';
import './agent.ts';
import './agent-lifecycle.ts';
import './deploy.ts';
import './agent-runtime.ts';
import './secret-drift.ts';
import './secret-references.ts';
import './secret-versions.ts';
import './blast-radius.ts';
import './rollback.ts';
import './secret-rollouts.ts';
import './audit.ts';
import './selfconfig.ts';
import './viewer-can.ts';
import './search.ts';
import './namespace-health.ts';
import './namespace-references.ts';

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

export const schema = builder.toSchema();

/** The committed SDL (apps/api/schema.graphql) is this, sorted so diffs stay readable. */
export function printSdl(): string {
  return printSchema(lexicographicSortSchema(schema)) + '\n';
}
