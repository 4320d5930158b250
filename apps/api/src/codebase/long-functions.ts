import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// The functions in the product's sources that are longer than a screen (LIMIT lines), by file and
// name, for long-functions.test.ts: a new one fails, a known one may only shrink.

export const LIMIT = 80;

/** Where the product's code is: sources only (no tests, no generated client). */
const ROOTS = ['apps/api/src', 'packages/domain/src', 'packages/kube-emulator/src', 'apps/console/app', 'apps/console/components', 'apps/console/lib'];

function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== 'generated' && entry.name !== 'test' && entry.name !== 'node_modules') out.push(...sourceFiles(root, rel));
    } else if (/\.tsx?$/.test(entry.name) && !/\.(test|spec)\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

function nameOf(node: ts.Node): string | null {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node)) && node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  return null;
}

/** Every function longer than LIMIT lines: `file › name` (an unnamed one as `(anonymous in <enclosing>)`) → its lines. */
export function longFunctions(root: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const file of ROOTS.flatMap((dir) => sourceFiles(root, dir))) {
    const source = ts.createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, enclosing: string): void => {
      let here = enclosing;
      if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node)) {
        const name = nameOf(node) ?? `(anonymous in ${enclosing})`;
        const lines = source.getLineAndCharacterOfPosition(node.end).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        if (lines > LIMIT) {
          const key = `${file} › ${name}`;
          found.set(key, Math.max(lines, found.get(key) ?? 0));
        }
        here = nameOf(node) ?? enclosing;
      }
      ts.forEachChild(node, (child) => visit(child, here));
    };
    visit(source, '(module)');
  }
  return found;
}
