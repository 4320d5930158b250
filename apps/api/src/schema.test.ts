import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './env.ts';
import { printSdl } from './graphql/schema/index.ts';

describe('committed SDL', () => {
  it('apps/api/schema.graphql matches the schema the code builds (run `npm run schema:print -w @occ/api`)', async () => {
    const committed = await readFile(path.join(REPO_ROOT, 'apps/api/schema.graphql'), 'utf8');
    expect(printSdl()).toBe(committed);
  });

  it('S3 S4 no Secret field can return a value or a backend locator except the admin-only one', () => {
    const sdl = printSdl();
    const secretType = sdl.match(/type Secret implements Node \{([^}]*)\}/)?.[1] ?? '';
    expect(secretType).toContain('name: String!');
    expect(secretType).not.toMatch(/\bvalue\b|\bdata\b|stringData/);
    expect(secretType.match(/backendLocator/g)).toHaveLength(1);
  });
});
