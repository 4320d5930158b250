// A default import: a named one that an older Node lacks would fail before preflight could say why.
import nodeModule from 'node:module';
import path from 'node:path';
import { preflight } from './preflight.ts';

// `npm start`'s entry, and the image's: the running Node and the built product's export condition
// are checked first (preflight.ts), and the product (serve.ts) is loaded only after that.
preflight('apps/api/dist/cli/start.js');
// R1: the configuration is checked before the product's modules load, so a refused start says so at
// once (serve.ts reads it again, at no cost).
const env = (await import('./config.ts')).readEnvOrExit();
// The embedded parts (PGlite and the cluster, each on a thread of its own) start now, while the
// product's modules load: those take most of a start. Its threads exist before the product's
// modules load (embedded.ts says why); a failure is awaited, and reported, by startRuntime.
const { runsEmbedded, startEmbedded } = await import('../embedded.ts');
const runs = runsEmbedded(env);
const embedded = runs.postgres || runs.kubernetes ? startEmbedded(env) : undefined;
const folderChecked = embedded ? await embedded.then(() => true, () => false) : false;
// Loading the product's modules is most of a start; V8's compiled code for them is kept between
// starts. With a data folder that passed P8's check, in it (another user must not be able to hand
// this process compiled code); a production replica keeps none.
if (folderChecked) nodeModule.enableCompileCache(path.join(env.dataDir, 'cache', 'compiled'));
const { serve } = await import('./serve.ts');
await serve(embedded);
