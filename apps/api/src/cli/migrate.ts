import { preflight } from './preflight.ts';

// The migration step's entry (`npm run db:migrate`, the image's migrate Job): the Node and the built
// product's export condition are checked first (preflight.ts), as start.ts does; without the check
// the built command run without `--conditions=occ-dist` died inside the configuration's imports
// with ERR_MODULE_NOT_FOUND instead of saying what to run.
preflight('apps/api/dist/cli/migrate.js');
await import('./run-migrate.ts');
