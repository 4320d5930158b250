// docs/rules.md, the index from a rule of DESIGN.md section 5 to the files that implement it (their
// comments cite its ID) and to the tests that prove it (their names carry its ID).
//
//   scripts/rules-index            rewrite docs/rules.md
//   scripts/rules-index --check    exit 1 when docs/rules.md is not what it would write
//
// The rule list (IDs, groups, one-line titles) comes from ../shared/DESIGN.md when that file is
// there (OCC_DESIGN_MD names another), else from the committed docs/rules.md itself: a clean clone
// has no DESIGN.md beside it, and its test (apps/api/src/repo/rules-index.test.ts) checks only the
// columns the repository decides, which files and which tests.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface Rule {
  id: string;
  group: string;
  title: string;
}

export interface TestName {
  file: string;
  name: string;
}

export const INDEX_PATH = 'docs/rules.md';
export const REGENERATE = 'scripts/rules-index';

const ID = /\b([A-Z]{1,2})(\d+)(?:\s*[–-]\s*(?:\1)?(\d+))?\b/g;
const TEST_FILE = /\.(test|spec)\.(ts|tsx|mts|js|mjs)$/;
// Files of tests and their support, and this generator (its comments give examples of IDs): what
// they say is not where a rule is implemented.
const NOT_IMPLEMENTATION = /(^|\/)(test|tests|e2e|bench)\/|\.(test|spec)\.|^scripts\/rules-index/;
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIP = /(^|\/)(node_modules|generated|dist|out|\.next|test-results[^/]*|playwright-report|docs)\//;

export function repositoryRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..');
}

/** The rule IDs a text cites: `S1`, `SC7`, and each of a range such as `D1–D3` or `RC1-RC8`. */
export function citedIds(text: string, known: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(ID)) {
    const [, prefix, from, to] = match;
    const first = Number(from);
    const last = to === undefined ? first : Number(to);
    if (last < first || last - first > 20) {
      for (const n of new Set([first, last])) if (known.has(`${prefix}${n}`)) found.add(`${prefix}${n}`);
      continue;
    }
    for (let n = first; n <= last; n++) if (known.has(`${prefix}${n}`)) found.add(`${prefix}${n}`);
  }
  return [...found];
}

/** Section 5 of DESIGN.md: `- S1 text` items (continued on indented lines) under plain group lines. */
export function rulesFromDesign(design: string): Rule[] {
  const start = design.search(/^## 5\./m);
  if (start < 0) throw new Error('DESIGN.md has no section "## 5."');
  const rest = design.slice(start).split('\n').slice(1);
  const end = rest.findIndex((line) => line.startsWith('## '));
  const lines = end < 0 ? rest : rest.slice(0, end);
  const rules: { id: string; group: string; text: string }[] = [];
  let group = '';
  for (const line of lines) {
    const item = /^- ([A-Z]{1,2}\d+) (.*)$/.exec(line);
    if (item) rules.push({ id: item[1]!, group, text: item[2]! });
    else if (/^\s+\S/.test(line) && rules.length > 0 && !line.startsWith('- ')) rules.at(-1)!.text += ` ${line.trim()}`;
    else if (line.trim() !== '' && !line.startsWith('- ')) group = line.trim();
  }
  return rules.map(({ id, group, text }) => ({ id, group, title: oneLine(text) }));
}

/** The first sentence, at most about 110 characters. */
function oneLine(text: string): string {
  const sentence = /^(.*?)\.(\s|$)/.exec(text)?.[1] ?? text;
  if (sentence.length <= 110) return sentence;
  const cut = sentence.slice(0, 110);
  return `${cut.slice(0, cut.lastIndexOf(' '))} …`;
}

/** The rule list as a committed docs/rules.md holds it. */
export function rulesFromIndex(index: string): Rule[] {
  const rules: Rule[] = [];
  let group = '';
  for (const line of index.split('\n')) {
    const heading = /^## (.*)$/.exec(line);
    if (heading) group = heading[1]!;
    const rule = /^### ([A-Z]{1,2}\d+) — (.*)$/.exec(line);
    if (rule) rules.push({ id: rule[1]!, group, title: rule[2]! });
  }
  return rules;
}

/** Tracked and new (not ignored) files, or a walk of the tree where there is no git. */
export function sourceFiles(root: string): string[] {
  let files: string[];
  try {
    files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .filter(Boolean);
  } catch {
    files = walk(root, '');
  }
  // A nested repository (another worktree inside this one) is listed as its directory: skipped.
  return files.filter((file) => !SKIP.test(file) && existsSync(join(root, file)) && statSync(join(root, file)).isFile()).sort();
}

function walk(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.name === '.git' || SKIP.test(`${path}/`)) continue;
    if (entry.isDirectory()) out.push(...walk(root, path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function scriptKind(file: string): ts.ScriptKind {
  if (file.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (/\.(js|mjs|cjs)$/.test(file)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

/** Every comment of a TypeScript or JavaScript file, found by its parser (so never inside a string). */
export function codeComments(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, scriptKind(file));
  const seen = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) seen.set(range.pos, text.slice(range.pos, range.end));
  };
  // Every comment is in the trivia before some token: on the line the trivia starts ("trailing"
  // for TypeScript) or on the lines after it ("leading"). JSX text is not trivia: `//` in it is text.
  const visit = (node: ts.Node) => {
    if (node.kind === ts.SyntaxKind.JsxText) return;
    collect(ts.getTrailingCommentRanges(text, node.pos));
    collect(ts.getLeadingCommentRanges(text, node.pos));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...seen.entries()].sort(([a], [b]) => a - b).map(([, comment]) => comment);
}

/** The comments of a file in another language: SQL, Prisma schema, YAML, shell, CSS. */
export function otherComments(file: string, text: string): string[] | undefined {
  const lines = (pattern: RegExp) =>
    text.split('\n').flatMap((line) => {
      const match = pattern.exec(line);
      return match ? [match[1]!] : [];
    });
  if (file.endsWith('.sql')) return lines(/--(.*)$/);
  if (file.endsWith('.prisma')) return lines(/\/\/(.*)$/);
  if (file.endsWith('.css')) return [...text.matchAll(/\/\*[\s\S]*?\*\//g)].map((match) => match[0]);
  const shell = /^#!.*\b(ba)?sh\b/.test(text);
  if (/\.(ya?ml|sh)$/.test(file) || /(^|\/)Containerfile$/.test(file) || shell) return lines(/(?:^|\s)#(?!!)(.*)$/);
  return undefined;
}

export function comments(file: string, text: string): string[] | undefined {
  return CODE.test(file) ? codeComments(file, text) : otherComments(file, text);
}

function titleOf(node: ts.Expression | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((span) => `…${span.literal.text}`).join('');
  return undefined;
}

const TEST_CALLS = new Set(['it', 'test', 'describe', 'suite']);
const NOT_TESTS = new Set(['step', 'beforeEach', 'beforeAll', 'afterEach', 'afterAll', 'use', 'extend', 'info', 'configure']);

/** The names of a file's tests (vitest, Playwright), each with the names of its enclosing describes. */
export function testNames(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(file));
  const names: string[] = [];
  const chain = (callee: ts.Expression): string[] => {
    if (ts.isIdentifier(callee)) return [callee.text];
    if (ts.isPropertyAccessExpression(callee)) return [...chain(callee.expression), callee.name.text];
    if (ts.isCallExpression(callee)) return chain(callee.expression);
    return [];
  };
  const visit = (node: ts.Node, within: string[]) => {
    if (ts.isCallExpression(node)) {
      const parts = chain(node.expression);
      const title = titleOf(node.arguments[0]);
      if (title !== undefined && TEST_CALLS.has(parts[0] ?? '') && !parts.some((part) => NOT_TESTS.has(part))) {
        const name = [...within, title];
        if (parts.includes('describe') || parts[0] === 'suite') {
          for (const argument of node.arguments.slice(1)) visit(argument, name);
          return;
        }
        names.push(name.join(' › '));
      }
    }
    ts.forEachChild(node, (child) => visit(child, within));
  };
  visit(source, []);
  return names;
}

export interface Index {
  rules: Rule[];
  files: Map<string, string[]>;
  tests: Map<string, TestName[]>;
}

export function buildIndex(root: string, rules: Rule[]): Index {
  const known = new Set(rules.map((rule) => rule.id));
  const files = new Map<string, string[]>(rules.map((rule) => [rule.id, []]));
  const tests = new Map<string, TestName[]>(rules.map((rule) => [rule.id, []]));
  for (const file of sourceFiles(root)) {
    const isTest = TEST_FILE.test(file);
    if (!isTest && NOT_IMPLEMENTATION.test(file)) continue;
    if (!isTest && !CODE.test(file) && otherComments(file, '') === undefined && !isShell(root, file)) continue;
    const text = readFileSync(join(root, file), 'utf8');
    if (isTest) {
      for (const name of testNames(file, text)) for (const id of citedIds(name, known)) tests.get(id)!.push({ file, name });
      continue;
    }
    const cited = new Set((comments(file, text) ?? []).flatMap((comment) => citedIds(comment, known)));
    for (const id of cited) files.get(id)!.push(file);
  }
  return { rules, files, tests };
}

function isShell(root: string, file: string): boolean {
  if (/\.[A-Za-z0-9]+$/.test(file.split('/').pop()!)) return false;
  const head = readFileSync(join(root, file)).subarray(0, 64).toString('latin1');
  return /^#!.*\b(ba)?sh\b/.test(head);
}

export function untested(index: Index): string[] {
  return index.rules.filter((rule) => index.tests.get(rule.id)!.length === 0).map((rule) => rule.id);
}

export function render(index: Index): string {
  const out: string[] = [
    '# Rules index',
    '',
    `Generated by \`${REGENERATE}\`: do not edit by hand. Each rule of DESIGN.md section 5, the source`,
    'files whose comments cite its ID (tests, test support and benches left out), and the tests whose',
    'names carry its ID (`*.test.ts`, `*.spec.ts`; a describe block\'s name counts for the tests inside it).',
    `\`apps/api/src/repo/rules-index.test.ts\` fails when this file is stale; \`${REGENERATE}\` rewrites it.`,
    '',
  ];
  const missing = untested(index);
  out.push(`Rules no test names (${missing.length} of ${index.rules.length}): ${missing.length ? missing.join(' ') : 'none'}.`, '');
  out.push('| Rule | Files | Tests |', '| --- | ---: | ---: |');
  for (const rule of index.rules) {
    out.push(`| [${rule.id}](#${anchor(rule)}) | ${index.files.get(rule.id)!.length} | ${index.tests.get(rule.id)!.length} |`);
  }
  let group: string | undefined;
  for (const rule of index.rules) {
    if (rule.group !== group) {
      group = rule.group;
      out.push('', `## ${group}`);
    }
    out.push('', `### ${rule.id} — ${rule.title}`, '');
    const files = index.files.get(rule.id)!;
    out.push(files.length ? `Implemented in: ${files.map((file) => `\`${file}\``).join(', ')}` : 'Implemented in: no comment cites it.');
    const tests = index.tests.get(rule.id)!;
    if (tests.length === 0) {
      out.push('', 'Proven by: no test names it.');
      continue;
    }
    out.push('', 'Proven by:');
    for (const test of tests) out.push(`- \`${test.file}\`: ${test.name.replace(/\s+/g, ' ').replace(/([<*`\\[\]])/g, '\\$1')}`);
  }
  return `${out.join('\n')}\n`;
}

/** GitHub's anchor for a `### S1 — title` heading. */
function anchor(rule: Rule): string {
  return `${rule.id} — ${rule.title}`
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

export function designPath(root: string): string {
  return process.env.OCC_DESIGN_MD ?? resolve(root, '..', 'shared', 'DESIGN.md');
}

/** The rules: from DESIGN.md when it is there, else from the committed index. */
export function currentRules(root: string, options: { design?: boolean } = {}): Rule[] {
  const design = designPath(root);
  if (options.design !== false && existsSync(design)) return rulesFromDesign(readFileSync(design, 'utf8'));
  const committed = join(root, INDEX_PATH);
  if (!existsSync(committed)) throw new Error(`no ${design} and no ${INDEX_PATH} to take the rule list from`);
  return rulesFromIndex(readFileSync(committed, 'utf8'));
}

function main(argv: string[]): number {
  const rootAt = argv.indexOf('--root');
  const root = rootAt >= 0 ? resolve(argv[rootAt + 1]!) : repositoryRoot();
  const index = buildIndex(root, currentRules(root));
  const wanted = render(index);
  const path = join(root, INDEX_PATH);
  if (argv.includes('--check')) {
    const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (current === wanted) return 0;
    console.error(`${INDEX_PATH} is stale: run ${REGENERATE}`);
    return 1;
  }
  writeFileSync(path, wanted);
  console.log(`${relative(process.cwd(), path) || path}: ${index.rules.length} rules; no test names ${untested(index).join(' ') || 'none'}`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(main(process.argv.slice(2)));
