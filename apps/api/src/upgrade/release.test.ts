import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedMigrations } from '../db/migrate.ts';
import { REPO_ROOT } from '../env.ts';
import { KUBE_MIGRATIONS } from './kube-migrations.ts';
import { RELEASE } from './release.ts';

// CHANGELOG.md names each change to stored state and what the upgrade does about it. A
// migration added without its entry, or a release bumped without its heading, fails here.
describe('release notes', () => {
  it('R2 the newest CHANGELOG heading is this build\'s release, and every database and Kubernetes migration is named in it', async () => {
    const changelog = await readFile(path.join(REPO_ROOT, 'CHANGELOG.md'), 'utf8');
    expect(/^## (\S+)/m.exec(changelog)?.[1]).toBe(RELEASE);
    const unnamed = [...(await committedMigrations()), ...KUBE_MIGRATIONS.map((m) => m.id)].filter((name) => !changelog.includes(`\`${name}\``));
    expect(unnamed).toEqual([]);
  });

  it('R2 Kubernetes migration ids are unique and sort in the order they were written', () => {
    const ids = KUBE_MIGRATIONS.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^\d{4}-\d{2}-\d{2}-[a-z0-9-]+$/);
  });
});
