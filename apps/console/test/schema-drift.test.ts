// A schema change that breaks a console document fails the console's typecheck (DESIGN §3: documents
// typed from the committed SDL). package.json's own `typecheck` script is run, step by step, on a copy
// of the console beside a copy of apps/api/schema.graphql; the copy sits inside apps/console so it
// resolves the same node_modules, and the real files are never touched.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sdl = readFileSync(path.resolve(consoleDir, '../api/schema.graphql'), 'utf8');
const typecheckScript: string = JSON.parse(readFileSync(path.join(consoleDir, 'package.json'), 'utf8')).scripts.typecheck;
const bin = [path.join(consoleDir, 'node_modules/.bin'), path.resolve(consoleDir, '../../node_modules/.bin')].join(path.delimiter);

type Step = { step: string; status: number | null; output: string };

/** One command of the typecheck script, pointed at the copy instead of the console itself. */
function retarget(command: string, dir: string): string {
  const tsconfig = path.join(dir, 'tsconfig.json');
  if (command.startsWith('node scripts/gql-env.mjs')) return `${command} --project ${dir}`;
  if (command.startsWith('gql-tada ')) return `${command} --tsconfig ${tsconfig}`;
  if (command.startsWith('tsc ')) return `${command} -p ${tsconfig}`;
  throw new Error(`schema-drift.test.ts does not know how to run "${command}" on a copy: teach retarget()`);
}

function run(command: string): { status: number | null; output: string } {
  const result = spawnSync(command, {
    cwd: consoleDir,
    shell: true,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The copy's typecheck, chained as `&&` chains it: the first failing step ends it. */
function typecheck(dir: string): Step[] {
  const steps: Step[] = [];
  for (const step of typecheckScript.split('&&').map((part) => part.trim())) {
    const result = run(retarget(step, dir));
    steps.push({ step, ...result });
    if (result.status !== 0) break;
  }
  return steps;
}

/** A copy of the console's sources typed against `schema` (the committed introspection copied as is). */
function copyConsole(name: string, schema: string): string {
  const dir = path.join(root, name);
  for (const sub of ['app', 'components', 'lib']) cpSync(path.join(consoleDir, sub), path.join(dir, sub), { recursive: true });
  writeFileSync(path.join(dir, 'schema.graphql'), schema);
  const config = {
    extends: path.join(consoleDir, 'tsconfig.json'),
    compilerOptions: {
      incremental: false,
      plugins: [{ name: 'gql.tada/ts-plugin', schema: path.join(dir, 'schema.graphql'), tadaOutputLocation: path.join(dir, 'lib/graphql-env.d.ts') }],
    },
    include: ['app', 'components', 'lib'],
  };
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config, null, 2));
  return dir;
}

/** Secret.version renamed: the secrets list, the rotate panel and the revisions select it. */
function renameSecretVersion(schema: string): string {
  const start = schema.indexOf('type Secret implements Node {');
  const end = schema.indexOf('\n}', start);
  expect(start, 'the SDL still has type Secret').toBeGreaterThan(-1);
  const block = schema.slice(start, end);
  expect(block, 'type Secret still has version: Int!').toContain('\n  version: Int!');
  return schema.slice(0, start) + block.replace('\n  version: Int!', '\n  currentVersionNumber: Int!') + schema.slice(end);
}

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(consoleDir, '.schema-drift-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('the console typecheck follows apps/api/schema.graphql', () => {
  test('DESIGN §3 the typecheck script validates the documents, then types them', () => {
    expect(typecheckScript.split('&&').map((part) => part.trim())).toEqual([
      'node scripts/gql-env.mjs --check',
      'gql-tada check --fail-on-warn',
      'tsc --noEmit',
    ]);
  });

  test('DESIGN §3 an unchanged copy of the console and its SDL typechecks (the control)', () => {
    const steps = typecheck(copyConsole('same', sdl));
    expect(steps.map(({ step, status }) => ({ step, status }))).toEqual([
      { step: 'node scripts/gql-env.mjs --check', status: 0 },
      { step: 'gql-tada check --fail-on-warn', status: 0 },
      { step: 'tsc --noEmit', status: 0 },
    ]);
  }, 240_000);

  test('DESIGN §3 renaming a field the documents select fails the typecheck: first as stale, then on the documents', () => {
    const dir = copyConsole('renamed', renameSecretVersion(sdl));

    const stale = typecheck(dir);
    expect(stale.map(({ step, status }) => ({ step, failed: status !== 0 }))).toEqual([{ step: 'node scripts/gql-env.mjs --check', failed: true }]);
    expect(stale[0]?.output).toContain('graphql-env.d.ts is stale');

    // What the developer does next: regenerate, and the documents that select the old name fail.
    expect(run(`node scripts/gql-env.mjs --project ${dir}`).status).toBe(0);
    const broken = typecheck(dir);
    expect(broken.map(({ step, status }) => ({ step, failed: status !== 0 }))).toEqual([
      { step: 'node scripts/gql-env.mjs --check', failed: false },
      { step: 'gql-tada check --fail-on-warn', failed: true },
    ]);
    expect(broken[1]?.output).toContain('Cannot query field "version" on type "Secret"');
    expect(broken[1]?.output).toContain('lib/secrets.ts');

    // tsc alone sees it too where a component uses the field as a number.
    const types = run(retarget('tsc --noEmit', dir));
    expect(types.status).not.toBe(0);
    expect(types.output).toMatch(/components\/\S+\.tsx\(\d+,\d+\): error TS/);
  }, 240_000);
});
