import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { DEFAULT_DATABASE_URL, migrationAdapter } from './prisma/migration-adapter.ts';

// The workarounds this needs are explained in prisma/migration-adapter.ts.
// The schema's datasource reads DATABASE_URL; without a value there, `prisma generate` fails to
// read the schema and falls back to downloading an engine.
process.env.DATABASE_URL ||= DEFAULT_DATABASE_URL;
const url = process.env.DATABASE_URL;

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  adapter: async () => migrationAdapter(url),
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
});
