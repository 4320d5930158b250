import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, sourceFiles } from '../../../../scripts/rules-index.ts';

// What nothing uses goes: a dependency no file of its package imports (it is still installed,
// audited and upgraded), and an export no file mentions (it reads as an API someone relies on).

const root = repositoryRoot();
const files = sourceFiles(root).filter((file) => /\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(file));
const texts = new Map(files.map((file) => [file, readFileSync(path.join(root, file), 'utf8')]));

// Used without an import: type packages, command-line tools, and what a framework or generated
// code loads (react-dom by Next, @prisma/client by the client prisma generates).
const USED_WITHOUT_IMPORT = /^(@types\/.*|@stryker-mutator\/.*|typescript|eslint|prisma|tsx|turbo|vite|react-dom|@prisma\/client)$/;

function workspaces(): string[] {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  const dirs = new Set(sourceFiles(root).filter((file) => file.endsWith('/package.json')).map((file) => path.dirname(file)));
  return ['.', ...[...dirs].filter((dir) => manifest.workspaces.some((glob) => new RegExp(`^${glob.replace('*', '[^/]+')}$`).test(dir)))];
}

function imported(dir: string): Set<string> {
  const names = new Set<string>();
  for (const [file, text] of texts) {
    if (dir !== '.' && !file.startsWith(`${dir}/`)) continue;
    for (const match of text.matchAll(/(?:\bfrom|\bimport|\brequire\(|\bimport\()\s*['"]((?:@[^/'"]+\/)?[^/'"]+)[^'"]*['"]/g)) names.add(match[1]!);
  }
  return names;
}

/** Each identifier of each file, with how often it occurs (comments and strings included). */
const identifiers = new Map(
  [...texts].map(([file, text]) => {
    const counts = new Map<string, number>();
    for (const [word] of text.matchAll(/[A-Za-z_$][\w$]*/g)) counts.set(word, (counts.get(word) ?? 0) + 1);
    return [file, counts];
  }),
);

function exportedNames(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  return source.statements.flatMap((statement) => {
    const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
    if (!modifiers.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) || modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)) return [];
    if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
    const named = statement as ts.Statement & { name?: ts.Node };
    return named.name && ts.isIdentifier(named.name) ? [named.name.text] : [];
  });
}

describe('nothing unused', () => {
  it('every dependency of a package.json is imported by a file of that package (the root: of the repository)', () => {
    const unused: string[] = [];
    for (const dir of workspaces()) {
      const manifest = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
      const used = imported(dir);
      for (const name of [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]) {
        if (!used.has(name) && !USED_WITHOUT_IMPORT.test(name)) unused.push(`${dir}/package.json: ${name}`);
      }
    }
    expect(unused, 'remove them (and run npm install to update package-lock.json)').toEqual([]);
  });

  it('every export is used: its name occurs in another file, or again in its own', () => {
    const unused: string[] = [];
    for (const [file, text] of texts) {
      if (/\.(test|spec)\.|(^|\/)(test|e2e|bench)\/|\.d\.ts$/.test(file)) continue;
      for (const name of exportedNames(file, text)) {
        const elsewhere = [...identifiers].some(([other, counts]) => other !== file && counts.has(name));
        if (!elsewhere && identifiers.get(file)!.get(name) === 1) unused.push(`${file}: ${name}`);
      }
    }
    expect(unused, 'delete what nothing uses').toEqual([]);
  });
});
