import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { sourceFiles } from '../../../../scripts/rules-index.ts';

// The functions in the product's sources that are longer than a screen (LIMIT lines), by file and
// name, for long-functions.test.ts: a new one fails, a known one may only shrink.

export const LIMIT = 80;

/** Where the product's code is: sources only (no tests, no generated client: rules-index's sourceFiles skips that). */
const ROOTS = ['apps/api/src/', 'packages/domain/src/', 'packages/kube-emulator/src/', 'apps/console/app/', 'apps/console/components/', 'apps/console/lib/'];

function productSources(root: string): string[] {
  return sourceFiles(root).filter(
    (file) => ROOTS.some((dir) => file.startsWith(dir)) && /\.tsx?$/.test(file) && !/\.(test|spec)\.tsx?$|\.d\.ts$/.test(file) && !file.includes('/test/'),
  );
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
  for (const file of productSources(root)) {
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
