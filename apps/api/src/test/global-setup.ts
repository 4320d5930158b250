import { migrateDeploy } from '../db/migrate.ts';
import { recreateDatabase, TEMPLATE_DATABASE, testDatabaseMode } from './database.ts';

// With a real PostgreSQL, migrate one template database with the real `prisma migrate deploy`;
// every test file clones it (CREATE DATABASE … TEMPLATE), which takes milliseconds.
export default async function setup(): Promise<void> {
  if (testDatabaseMode() !== 'postgres') return;
  const url = await recreateDatabase(process.env.DATABASE_URL!, TEMPLATE_DATABASE);
  await migrateDeploy(url);
}
