import type { RenderRevision } from './revision-render.ts';

// The port through which the worker runs a revision on a compute backend (DESIGN.md §2: drivers
// are interfaces in the domain). The secret context (W3) is built by the worker from Secret
// metadata for each run, handed to the driver, and never persisted.

export interface RevisionSource {
  secretId: string;
  namespaceId: string;
  /** The Kubernetes Secret's name and uid, as the Secret's metadata records them now. */
  name: string;
  uid: string;
}

export interface ComputeRevisionContext {
  installationId: string;
  k8sNamespace: string;
  revisionId: string;
  sources: readonly RevisionSource[];
}

export type GatewayReadiness =
  | { state: 'ready' }
  | { state: 'progressing'; message: string }
  /** The gateway cannot start (a container waits on config it cannot get, or the deadline passed). */
  | { state: 'failed'; reason: string; message: string };

export interface ComputeDriver {
  /**
   * Checks that every source is the object recorded (present, labelled ours, same uid); throws
   * BackendIdentityChanged or BackendObjectMissing otherwise, having created nothing.
   */
  verifySources(context: ComputeRevisionContext): Promise<void>;
  /** ServiceAccount, OpenClawInstance, the immutable ConfigMap and the model-auth Secret (D5); idempotent. */
  prepareRevision(revision: RenderRevision, context: ComputeRevisionContext): Promise<void>;
  /** Applies the gateway Deployment of this revision (replacing the previous one's); idempotent. */
  activateRevision(revision: RenderRevision, context: ComputeRevisionContext): Promise<void>;
  /** Reads readiness as a cluster shows it: the Deployment's conditions and its Pods' container statuses. */
  gatewayReadiness(revision: RenderRevision, context: ComputeRevisionContext): Promise<GatewayReadiness>;
  /** D5: deletes the model-auth Secrets of the agent's revisions other than `keepNumber` (null: all). */
  retireModelAuth(agentId: string, k8sNamespace: string, keepNumber: number | null): Promise<void>;
}
