import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../../../scripts/rules-index.ts';

// scripts/db-generate.mjs (`npm run db:generate`) skips `prisma generate` when the client is
// current. A stale client after a schema change would be worse than the 2.5 s it saves, so this
// runs it in a copy of the repository's Prisma layout (never on the tree's own client, which other
// suites import while they run) and changes one input at a time.

const root = repositoryRoot();
const work = mkdtempSync(path.join(tmpdir(), 'occ-db-generate-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const client = path.join(work, 'apps/api/src/generated/prisma');
const marker = path.join(client, 'models.ts');

function generate(env: Record<string, string> = {}): void {
  execFileSync(process.execPath, [path.join(work, 'scripts/db-generate.mjs')], { cwd: work, stdio: 'pipe', env: { ...process.env, ...env } });
}

describe('db:generate', () => {
  it('generates the client once, skips while schema and Prisma are unchanged, and generates again when the schema changes or when told to', () => {
    mkdirSync(path.join(work, 'scripts'));
    cpSync(path.join(root, 'scripts/db-generate.mjs'), path.join(work, 'scripts/db-generate.mjs'));
    cpSync(path.join(root, 'prisma'), path.join(work, 'prisma'), { recursive: true });
    cpSync(path.join(root, 'prisma.config.ts'), path.join(work, 'prisma.config.ts'));
    symlinkSync(path.join(root, 'node_modules'), path.join(work, 'node_modules'));

    generate();
    expect(existsSync(marker)).toBe(true);

    // Unchanged: nothing is generated (a file removed by hand stays removed).
    rmSync(marker);
    generate();
    expect(existsSync(marker)).toBe(false);

    // The schema changed: generated again.
    appendFileSync(path.join(work, 'prisma/schema.prisma'), '\n// changed\n');
    generate();
    expect(existsSync(marker)).toBe(true);

    // Current again, but asked for: generated.
    rmSync(marker);
    generate({ OCC_PRISMA_GENERATE: 'always' });
    expect(existsSync(marker)).toBe(true);

    // A client without its stamp (an interrupted generation, or an older tree's): generated.
    rmSync(path.join(client, '.generated-from'));
    rmSync(marker);
    generate();
    expect(existsSync(marker)).toBe(true);
  }, 120_000);
});
