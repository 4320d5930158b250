import { open, unlink } from 'node:fs/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { FIELD_MANAGER, installationLabels } from '@occ/domain/kubernetes-names';
import type { Env } from '../env.ts';
import { classifyKubeError, describeKubeFailure } from '../kube/errors.ts';

/**
 * R3: where the bootstrap API key goes. Development prints it once on stdout; production never
 * does: it goes to a Kubernetes Secret or a file (mode 0600) named by configuration, and a
 * production start with neither refuses to bootstrap.
 */
export type BootstrapKeyDelivery =
  | { kind: 'print' }
  | { kind: 'refuse'; reason: string }
  | {
      kind: 'deliver';
      /** Names the place (never the key) for the start message. */
      target: string;
      /** Writes the key; answers how to take it back if the bootstrap does not commit. */
      deliver(key: string, installationId: string): Promise<() => Promise<void>>;
    };

export const BOOTSTRAP_SECRET_KEY = 'apiKey';

export function bootstrapKeyDelivery(
  env: Pick<Env, 'production' | 'bootstrapSecret' | 'bootstrapKeyFile'>,
  kubeConfig: KubeConfig,
): BootstrapKeyDelivery {
  if (env.bootstrapSecret) return toSecret(kubeConfig, env.bootstrapSecret);
  if (env.bootstrapKeyFile) return toFile(env.bootstrapKeyFile);
  if (env.production) {
    return {
      kind: 'refuse',
      reason: 'NODE_ENV=production never prints the bootstrap API key: set OCC_BOOTSTRAP_SECRET=namespace/name or OCC_BOOTSTRAP_KEY_FILE',
    };
  }
  return { kind: 'print' };
}

function toSecret(kubeConfig: KubeConfig, ref: { namespace: string; name: string }): BootstrapKeyDelivery {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const target = `Kubernetes Secret ${ref.namespace}/${ref.name} (key ${BOOTSTRAP_SECRET_KEY})`;
  return {
    kind: 'deliver',
    target,
    async deliver(key, installationId) {
      let uid: string | undefined;
      try {
        const created = await core.createNamespacedSecret({
          namespace: ref.namespace,
          fieldManager: FIELD_MANAGER,
          body: {
            metadata: { name: ref.name, labels: installationLabels(installationId) },
            type: 'Opaque',
            data: { [BOOTSTRAP_SECRET_KEY]: Buffer.from(key, 'utf8').toString('base64') },
          },
        });
        uid = created.metadata?.uid;
      } catch (error) {
        // Never overwritten: an existing Secret may be another installation's key.
        const failure = classifyKubeError(error);
        throw new Error(`could not write the bootstrap key to ${target}: ${failure.kind === 'already-exists' ? 'it exists already; delete it or name another' : describeKubeFailure(failure)}`);
      }
      return async () => {
        await core.deleteNamespacedSecret({ name: ref.name, namespace: ref.namespace, body: uid ? { preconditions: { uid } } : {} });
      };
    },
  };
}

function toFile(file: string): BootstrapKeyDelivery {
  return {
    kind: 'deliver',
    target: `file ${file}`,
    async deliver(key) {
      // 'wx': never overwrite an existing file (it may hold another installation's key).
      const handle = await open(file, 'wx', 0o600).catch((error: NodeJS.ErrnoException) => {
        throw new Error(`could not write the bootstrap key to ${file}: ${error.code ?? 'error'}`);
      });
      try {
        await handle.writeFile(key + '\n');
        await handle.chmod(0o600);
      } finally {
        await handle.close();
      }
      return () => unlink(file);
    },
  };
}
