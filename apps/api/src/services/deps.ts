import type { SecretDriver } from '@occ/domain/secret-driver';
import type { Db } from '../db/client.ts';
import type { NamespaceDriver } from '../drivers/kubernetes-namespaces.ts';
import type { Logger } from '../log.ts';
import type { SelfConfigCluster } from '../selfconfig/cluster.ts';

/** The ports every use case receives. Tests pass the real adapters against real servers. */
export interface Deps {
  db: Db;
  secretDriver: SecretDriver;
  namespaceDriver: NamespaceDriver;
  logger: Logger;
  installationId: string;
  /** Wakes the worker after work was queued (optional: the worker also polls). */
  kickWorker?: () => void;
  /** SelfConfig requests and instances in the cluster (requestSelfConfig, field ownership); absent where no cluster is wired. */
  selfConfigCluster?: SelfConfigCluster;
}

/** Who is calling: resolved from an API key or a console session. */
export interface Actor {
  principalId: string;
  kind: 'HUMAN' | 'SERVICE';
  name: string;
  apiKeyId: string;
}
