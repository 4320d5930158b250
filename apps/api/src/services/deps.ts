import type { ComputeDriver } from '@occ/domain/compute-driver';
import type { SecretDriver } from '@occ/domain/secret-driver';
import type { Db } from '../db/client.ts';
import type { NamespaceDriver } from '../drivers/kubernetes-namespaces.ts';
import type { Logger } from '../log.ts';

/** The ports every use case receives. Tests pass the real adapters against real servers. */
export interface Deps {
  db: Db;
  secretDriver: SecretDriver;
  namespaceDriver: NamespaceDriver;
  computeDriver: ComputeDriver;
  /** W5: how long an activated gateway may take to become ready. */
  gatewayReadyTimeoutMs: number;
  logger: Logger;
  installationId: string;
  /** Wakes the worker after work was queued (optional: the worker also polls). */
  kickWorker?: () => void;
}

/** Who is calling: resolved from an API key or a console session. */
export interface Actor {
  principalId: string;
  kind: 'HUMAN' | 'SERVICE';
  name: string;
  apiKeyId: string;
}
