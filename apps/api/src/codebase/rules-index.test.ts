import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  INDEX_PATH,
  REGENERATE,
  buildIndex,
  citedIds,
  codeComments,
  render,
  repositoryRoot,
  rulesFromDesign,
  rulesFromIndex,
  testNames,
} from '../../../../scripts/rules-index.ts';

// docs/rules.md leads from a rule to the files that implement it and the tests that prove it.
// The rule list is the committed one (DESIGN.md is not in the repository); the files and tests
// columns are recomputed from the tree, so a comment or a test name added, moved or removed without
// `scripts/rules-index` fails here.

const root = repositoryRoot();

describe('rules index', () => {
  it('docs/rules.md is current: every rule lists the files whose comments cite it and the tests that name it', () => {
    const committed = readFileSync(path.join(root, INDEX_PATH), 'utf8');
    const rules = rulesFromIndex(committed);
    expect(rules.length).toBeGreaterThan(50);
    const wanted = render(buildIndex(root, rules));
    if (wanted !== committed) {
      const ours = committed.split('\n');
      const theirs = wanted.split('\n');
      const line = theirs.findIndex((text, i) => text !== ours[i]);
      expect.fail(
        `${INDEX_PATH} is stale: run ${REGENERATE} (from the repository root) and commit it.\n` +
          `first difference at line ${line + 1}:\n  committed: ${ours[line] ?? '(end of file)'}\n  current:   ${theirs[line] ?? '(end of file)'}`,
      );
    }
  });

  it('a range cites each rule in it; a word that only contains an ID cites nothing', () => {
    const known = new Set(['X1', 'X2', 'X3', 'X4', 'XY7', 'Z2']);
    expect(citedIds('checks (X1–X3) and XY7', known)).toEqual(['X1', 'X2', 'X3', 'XY7']);
    expect(citedIds('XY7-XY9, Z2-Z1, X4', known)).toEqual(['XY7', 'Z2', 'X4']);
    expect(citedIds('AX1 X12 X1a e2e X3E', known)).toEqual([]);
  });

  it('comments are read by the parser: an ID in a string or a template is not a citation', () => {
    const text = [
      "// cites X1",
      "const a = '// X2 is a string';",
      'const b = `/* X3 */ ${a}`; /* cites X4 */',
      'function f() { /** cites XY7 */ return /x\\/\\/X9/.test(a); }',
      'const el = <div>{/* cites Z2 */}// X8 is text</div>;',
    ].join('\n');
    const found = codeComments('sample.tsx', text).flatMap((comment) => citedIds(comment, new Set(['X1', 'X2', 'X3', 'X4', 'XY7', 'X8', 'X9', 'Z2'])));
    expect(found.sort()).toEqual(['X1', 'X4', 'XY7', 'Z2']);
  });

  it('test names carry their describe blocks; hooks, steps and non-literal names are not tests', () => {
    const text = `
      describe('outer X1', () => {
        it('inner', () => {});
        describe.sequential(\`nested \${mode}\`, () => { test.skipIf(slow)('deep', () => {}); });
        beforeEach(() => {});
      });
      test('top', async () => { await test.step('a step', async () => {}); });
      it.each([1, 2])('each %s', () => {});
      it(name, () => {});
    `;
    expect(testNames('sample.test.ts', text)).toEqual(['outer X1 › inner', 'outer X1 › nested … › deep', 'top', 'each %s']);
  });

  it('the rule list comes from DESIGN.md section 5 with groups and one-line titles, and reads back from the index it renders', () => {
    const design = [
      '## 4. Before', '- X9 not a rule of section 5.', '', '## 5. Rules', '', 'Widgets',
      '- X1 A widget is round. It rolls.', '- X2 A very long rule that goes on', '  over a second line.', '',
      'Gadgets (each one)', '- XY7 Gadgets hum.', '', '## 6. After', '- X8 not one either.',
    ].join('\n');
    const rules = rulesFromDesign(design);
    expect(rules).toEqual([
      { id: 'X1', group: 'Widgets', title: 'A widget is round' },
      { id: 'X2', group: 'Widgets', title: 'A very long rule that goes on over a second line' },
      { id: 'XY7', group: 'Gadgets (each one)', title: 'Gadgets hum' },
    ]);
    const index = render({ rules, files: new Map(rules.map((r) => [r.id, []])), tests: new Map(rules.map((r) => [r.id, []])) });
    expect(rulesFromIndex(index)).toEqual(rules);
    expect(index).toContain('Rules no test names (3 of 3): X1 X2 XY7.');
  });
});
