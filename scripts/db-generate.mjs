#!/usr/bin/env node
// `npm run db:generate`: runs `prisma generate` only when what the client is generated from changed
// since the client in apps/api/src/generated/prisma was written: prisma/schema.prisma (the
// generator's settings are in it) and the versions of prisma and @prisma/client. A stamp with their
// hash is written after a successful generation and removed before one, so an interrupted run
// generates again. `npm test`, typecheck and the builds call it each time, and `npm start` calls
// ensurePrismaClient in its own process (scripts/start.ts: one Node start fewer); a current client
// costs a file read instead of about 2.5 s of Prisma's CLI. OCC_PRISMA_GENERATE=always
// generates whatever the stamp says.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Generates the Prisma client under `root` when it is not current; returns its exit status (0 when
 * current or generated, Prisma's status when its generation failed). `args` go to `prisma generate`.
 */
export function ensurePrismaClient(root = ROOT, args = []) {
  const out = path.join(root, 'apps/api/src/generated/prisma');
  const stamp = path.join(out, '.generated-from');
  const version = (name) => JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
  const hash = createHash('sha256')
    .update(readFileSync(path.join(root, 'prisma/schema.prisma')))
    .update(`\0prisma ${version('prisma')}\0@prisma/client ${version('@prisma/client')}`)
    .digest('hex');
  const current = existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === hash && existsSync(path.join(out, 'client.ts'));
  if (current && process.env.OCC_PRISMA_GENERATE !== 'always') return 0;
  rmSync(stamp, { force: true });
  const run = spawnSync(process.execPath, [path.join(root, 'node_modules/prisma/build/index.js'), 'generate', '--no-hints', ...args], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) return run.status ?? 1;
  writeFileSync(stamp, `${hash}\n`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit(ensurePrismaClient(ROOT, process.argv.slice(2)));
