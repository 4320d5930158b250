import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from '../env.ts';
import { printSdl } from '../graphql/schema/index.ts';

// Writes the committed SDL; schema.test.ts fails when the two differ.
await writeFile(path.join(REPO_ROOT, 'apps/api/schema.graphql'), printSdl());
console.log('wrote apps/api/schema.graphql');
