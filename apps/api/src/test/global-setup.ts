import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrateDeploy } from '../db/migrate.ts';
import { dropDatabase, migratedPgliteImage, recreateDatabase, templateDatabaseName, testDatabaseMode } from './database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
    /** PGlite runs: the file holding a migrated data-folder image every test file starts from. */
    pgliteImage: string;
  }
}

// With a real PostgreSQL, migrate one template database with the real `prisma migrate deploy`;
// every test file clones it (CREATE DATABASE … TEMPLATE), which takes milliseconds. The name is
// this run's own, so runs on the same server do not disturb each other.
//
// With embedded PGlite, the same idea: migrate one in-memory database, keep its data-folder image in
// a file, and start every test file's PGlite from it. A fresh PGlite runs initdb in Wasm (4-7 s on
// these machines, once per file); loading an image takes about half of that.
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  if (testDatabaseMode() !== 'postgres') {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'occ-pglite-image-')), 'migrated.tar');
    await writeFile(file, Buffer.from(await (await migratedPgliteImage()).arrayBuffer()), { mode: 0o600 });
    project.provide('pgliteImage', file);
    return () => rm(path.dirname(file), { recursive: true, force: true });
  }
  const server = process.env.DATABASE_URL!;
  const name = templateDatabaseName(randomBytes(4).toString('hex'));
  await migrateDeploy(await recreateDatabase(server, name));
  project.provide('templateDatabase', name);
  return () => dropDatabase(server, name);
}
