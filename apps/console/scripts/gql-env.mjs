// The console's GraphQL types come from lib/graphql-env.d.ts, gql.tada's introspection of the SDL the
// API commits (apps/api/schema.graphql; tsconfig.json's gql.tada plugin entry names both files).
//   node scripts/gql-env.mjs           regenerate it (`npm run gql:generate`)
//   node scripts/gql-env.mjs --check   fail when it no longer matches the SDL (run by `npm run typecheck`)
//   --project <dir>                     another copy of the console (test/schema-drift.test.ts)
// Without the check, a schema change would leave the console typed against the old schema and a
// document it breaks would still typecheck.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const project = args.includes('--project') ? args[args.indexOf('--project') + 1] : undefined;
const root = project ? path.resolve(project) : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const committed = path.join(root, 'lib/graphql-env.d.ts');
const check = args.includes('--check');
const cliPath = path.join(path.dirname(createRequire(import.meta.url).resolve('gql.tada/package.json')), 'bin/cli.js');

function generate(output) {
  const cli = ['generate', 'output', '--tsconfig', path.join(root, 'tsconfig.json'), ...(output ? ['--output', output] : [])];
  const run = spawnSync(process.execPath, [cliPath, ...cli], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) {
    process.stderr.write(run.stdout + run.stderr);
    process.exit(run.status ?? 1);
  }
}

if (!check) {
  generate(null);
  console.log(`Wrote ${path.relative(process.cwd(), committed)} from apps/api/schema.graphql.`);
} else {
  const dir = mkdtempSync(path.join(tmpdir(), 'gql-env-'));
  try {
    const fresh = path.join(dir, 'graphql-env.d.ts');
    generate(fresh);
    if (readFileSync(fresh, 'utf8') !== readFileSync(committed, 'utf8')) {
      console.error(
        'apps/console/lib/graphql-env.d.ts is stale: apps/api/schema.graphql changed since it was generated.\n' +
          'Run `npm run gql:generate -w @occ/console`, then fix the documents the typecheck flags.',
      );
      process.exit(1);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
