import type { SelfConfigBudget } from '@occ/domain/selfconfig-budget';
import type { BindingView } from '@occ/domain/access';
import type { ComputeDriver } from '@occ/domain/compute-driver';
import type { SecretDriver } from '@occ/domain/secret-driver';
import type { Db } from '../db/client.ts';
import type { AgentObjectsDriver } from '../drivers/kubernetes-agent-objects.ts';
import type { NamespaceDriver } from '../drivers/kubernetes-namespaces.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Tracing } from '../observability/tracing.ts';
import type { SelfConfigCluster } from '../selfconfig/cluster.ts';

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
  /** R6: this process's Prometheus metrics (the HTTP layer and the GraphQL plugin record into them). */
  metrics?: Metrics;
  /** R6: OpenTelemetry tracing (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  tracing?: Tracing;
  /** Wakes the worker after work was queued (optional: the worker also polls). */
  kickWorker?: () => void;
  /** SelfConfig requests and instances in the cluster (requestSelfConfig, field ownership); absent where no cluster is wired. */
  selfConfigCluster?: SelfConfigCluster;
  /** SG4: the budget of an instance whose spec sets none (OCC_SELFCONFIG_*); DEFAULT_SELF_CONFIG_BUDGET when absent. */
  selfConfigBudgetDefaults?: SelfConfigBudget;
}

/** Who is calling: resolved from an API key or a console session. */
export interface Actor {
  principalId: string;
  kind: 'HUMAN' | 'SERVICE';
  name: string;
  apiKeyId: string;
  /** Set only on the actor of one request (authenticate.ts): what that request has read once. */
  memo?: ActorMemo;
}

export interface ActorMemo {
  bindings?: Promise<BindingView[]>;
}
