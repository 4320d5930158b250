import type { ComputeDriver } from '@occ/domain/compute-driver';
import type { SecretDriver } from '@occ/domain/secret-driver';
import type { Db } from '../db/client.ts';
import type { AgentObjectsDriver } from '../drivers/kubernetes-agent-objects.ts';
import type { NamespaceDriver } from '../drivers/kubernetes-namespaces.ts';
import type { Logger } from '../log.ts';

/** The ports every use case receives. Tests pass the real adapters against real servers. */
export interface Deps {
  db: Db;
  secretDriver: SecretDriver;
  namespaceDriver: NamespaceDriver;
  /** Stop and delete on an agent's Kubernetes objects (W6, deleteAgent). */
  agentObjects: AgentObjectsDriver;
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
