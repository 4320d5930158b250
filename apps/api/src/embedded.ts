import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import type { BootingCluster } from '@occ/kube-emulator/thread';
import type { EmbeddedPostgres } from './db/embedded-postgres.ts';
import { ensurePrivateFolder, type PrivateFolderReport } from './db/private-folder.ts';
import type { Env } from './env.ts';

// The embedded parts of a start with a data folder (`npm start` with no DATABASE_URL or
// KUBECONFIG): the folder made private (P8), PGlite opened on it, and the embedded cluster's thread
// booted, waiting. They are started first and together: start.ts calls this before it loads the
// product's modules (most of a start's time), so PGlite opens and the cluster thread loads its own
// modules on the other core meanwhile. The cluster reads its data file only when startRuntime
// starts it, after the check that refuses state from a newer release. startRuntime calls this
// itself when it is not given one. This module and what it loads first are small on purpose.

export type EmbeddedEnv = Pick<Env, 'dataDir' | 'databaseUrl' | 'kubeconfig'> & Partial<Pick<Env, 'inCluster' | 'production'>>;

export interface EmbeddedStart {
  /** P8: what the folder check tightened. */
  folder: PrivateFolderReport;
  /** PGlite on the data folder's `pglite`, served on a Unix socket; null with DATABASE_URL. */
  postgres: Promise<EmbeddedPostgres> | null;
  /** The embedded cluster's thread, loaded and waiting for start(); null with a configured cluster. */
  cluster: BootingCluster | null;
  /** Stops both: the runtime's close, or a start that failed before it used them. */
  abandon(): Promise<void>;
}

/** Whether this environment runs any embedded part (then it has a data folder to keep private). */
export function runsEmbedded(env: EmbeddedEnv): { postgres: boolean; kubernetes: boolean } {
  return { postgres: !env.databaseUrl && !env.production, kubernetes: !env.kubeconfig && !env.inCluster && !env.production };
}

export async function startEmbedded(env: EmbeddedEnv): Promise<EmbeddedStart> {
  const runs = runsEmbedded(env);
  // P8: the embedded servers' data is this user's alone. Refused before anything is read from a
  // folder others may write; files made from here on are 0600 (the main thread's umask).
  if (isMainThread) process.umask(0o077);
  const folder = await ensurePrivateFolder(env.dataDir);
  // The modules are loaded before this returns (start.ts waits for it before it loads the product's):
  // every module load takes turns on one loader, so behind the product's hundreds of modules these
  // few would start the threads a second later.
  const [{ launchEmbeddedPostgres }, { OPENCLAW_CRD_DIR, OPENCLAW_RBAC_FILE, OPENCLAW_TENANT_POLICY_FILE }, { bootKubeEmulatorThread }] = await Promise.all([
    import('./db/embedded-postgres.ts'),
    import('@occ/kube-emulator/crds'),
    import('@occ/kube-emulator/thread'),
  ]);
  const postgres = runs.postgres ? (await launchEmbeddedPostgres({ dataDir: path.join(env.dataDir, 'pglite'), thread: true })).started : null;
  postgres?.catch(() => undefined); // reported where it is awaited (startRuntime)
  let cluster: BootingCluster | null = null;
  if (runs.kubernetes) {
    // The embedded cluster serves the product's CRDs (deploy/crds) and runs a kubelet simulator, so
    // gateway Deployments report availability from their secret references as on a cluster. Both
    // run on a thread of their own (thread.ts): a burst of cluster writes does not take turns of the
    // event loop GraphQL answers on. E9: the server authorizes; agents are bound to
    // deploy/rbac.yaml's occ-selfconfig-agent (SC5), which a platform team applies on a real cluster.
    cluster = bootKubeEmulatorThread({
      emulator: { crdDirs: [OPENCLAW_CRD_DIR], clusterRoleFiles: [OPENCLAW_RBAC_FILE], admissionPolicyFiles: [OPENCLAW_TENANT_POLICY_FILE], dataFile: path.join(env.dataDir, 'kube', 'objects.json') },
      kubelet: true,
      nice: 5,
    });
  }
  return {
    folder,
    postgres,
    cluster,
    async abandon() {
      await Promise.all([cluster?.cancel(), postgres?.then((pg) => pg.close(), () => undefined)]);
    },
  };
}
