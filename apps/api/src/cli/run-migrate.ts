import { readEnvOrExit } from './config.ts';
import { migrateDatabase } from '../db/migrate.ts';

// `npm run db:migrate` (R2): the migration step of a deployment (a Job, or an operator before a
// rollout), run once, under the migration lock, against DATABASE_URL. `npm start` on the embedded
// database migrates at start through the same locked function. Loaded by migrate.ts after its
// preflight.
const env = readEnvOrExit({ kubernetes: false });
if (!env.databaseUrl) {
  process.stderr.write('db:migrate needs DATABASE_URL (the embedded database is migrated by `npm start` itself).\n');
  process.exit(2);
}
try {
  process.stdout.write(await migrateDatabase(env.databaseUrl));
} catch (error) {
  // Prisma's output names migrations and SQL states, not values: the schema holds no secrets.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
