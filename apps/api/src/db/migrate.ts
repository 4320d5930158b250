import { spawn } from 'node:child_process';
import { REPO_ROOT } from '../env.ts';

/**
 * Applies prisma/migrations with `prisma migrate deploy` (Prisma's Wasm schema engine through the
 * adapter in prisma.config.ts). Asynchronous on purpose: with the embedded database, the PGlite
 * socket server runs on this process's event loop and must keep answering while the CLI runs.
 */
export function migrateDeploy(databaseUrl: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${REPO_ROOT}/node_modules/prisma/build/index.js`, 'migrate', 'deploy'], {
      cwd: REPO_ROOT,
      // eslint-disable-next-line no-restricted-properties -- the CLI inherits this process's environment
      env: { ...process.env, DATABASE_URL: databaseUrl, CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`prisma migrate deploy exited with ${code}:\n${output}`));
    });
  });
}
