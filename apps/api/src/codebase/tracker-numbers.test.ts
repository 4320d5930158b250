import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { comments, repositoryRoot, sourceFiles, testNames } from '../../../../scripts/rules-index.ts';

// A comment or a test name says what it means, not which tracker entry asked for it: the tracker
// is not in the repository, so `issue 13` or `#13` tells a reader nothing. Another project's
// tracker (`owner/name#123`) is a real reference and stays.

const TRACKER = /\b(?:issues?|items?\s+\d+(?:\.\d+)?\s+of\s+issues?)\s*#?\d+\b|(?<![\w/.#-])#\d+\b/i;

// Left as they are, with why: an applied migration's file is part of its checksum, so its comment
// cannot change.
const FROZEN = /^prisma\/migrations\//;

/** The first citation of a tracker number in a text, code spans (`…`) aside. */
export function trackerCitation(text: string): string | undefined {
  return TRACKER.exec(text.replace(/`[^`\n]*`/g, ''))?.[0];
}

describe('no tracker numbers', () => {
  it('no comment and no test name cites an issue number of a tracker outside the repository', () => {
    const root = repositoryRoot();
    const found: string[] = [];
    for (const file of sourceFiles(root)) {
      if (FROZEN.test(file)) continue;
      const text = readFileSync(path.join(root, file), 'utf8');
      const texts = [...(comments(file, text) ?? []), ...(/\.(test|spec)\.tsx?$/.test(file) ? testNames(file, text) : [])];
      for (const comment of texts) {
        const citation = trackerCitation(comment);
        if (citation) found.push(`${file}: "${citation}" in ${comment.trim().split('\n')[0]!.slice(0, 100)}`);
      }
    }
    expect(found, 'say what the change means instead of its issue number').toEqual([]);
  });

  it('what counts as a tracker number, and what does not', () => {
    for (const text of ['// Issue 13: lists', '(issue 30)', 'item 9 of issue 9', 'Item 7 of issues 10', 'see #12.', '(#4)', 'issues #3'])
      expect(trackerCitation(text), text).toBeDefined();
    for (const text of ['prisma/orm#27403', 'structured-merge-diff#306', 'PKCS#8', '`[key #2]`', 'docs/contract-issue-2.md', 'the issue\'s example', 'color #fff', 'tissue 3'])
      expect(trackerCitation(text), text).toBeUndefined();
  });
});
