import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { migrateDeploy } from '../db/migrate.ts';
import { dropDatabase, recreateDatabase, templateDatabaseName, testDatabaseMode } from './database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

// With a real PostgreSQL, migrate one template database with the real `prisma migrate deploy`;
// every test file clones it (CREATE DATABASE … TEMPLATE), which takes milliseconds. The name is
// this run's own, so runs on the same server do not disturb each other.
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  if (testDatabaseMode() !== 'postgres') return;
  const server = process.env.DATABASE_URL!;
  const name = templateDatabaseName(randomBytes(4).toString('hex'));
  await migrateDeploy(await recreateDatabase(server, name));
  project.provide('templateDatabase', name);
  return () => dropDatabase(server, name);
}
