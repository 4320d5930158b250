import type { Takeover } from './composition.ts';
import type { RenderRevision } from './revision-render.ts';

// The port through which the worker runs a revision on a compute backend (DESIGN.md §2: drivers
// are interfaces in the domain). The secret context (W3) is built by the worker from Secret
// metadata for each run, handed to the driver, and never persisted. A revision only ever writes its
// fields into the agent's one desired state (RC1); the reconciler makes the gateway follow.

export interface RevisionSource {
  secretId: string;
  namespaceId: string;
  /** The Kubernetes Secret's name and uid, as the Secret's metadata records them now. */
  name: string;
  uid: string;
  /**
   * RC4: the change made outside the product that the secret's current version records
   * (outsideChangeMarker), or null. A value changed outside the product otherwise is not delivered.
   */
  outsideChangeSeenAt: string | null;
}

export interface ComputeRevisionContext {
  installationId: string;
  k8sNamespace: string;
  revisionId: string;
  sources: readonly RevisionSource[];
}

export type GatewayReadiness =
  /** The instance reports this revision's generation running and Ready. */
  | { state: 'ready'; generation: number }
  | { state: 'progressing'; message: string }
  /** The gateway of this generation cannot start (a blocking Degraded reason), or the instance is gone. */
  | { state: 'failed'; reason: string; message: string }
  /** The instance no longer holds this revision's fields: a newer revision, or a stop, replaced them. */
  | { state: 'replaced'; message: string };

export interface AppliedRevision {
  /** The instance generation the apply produced (or found, when nothing changed). */
  generation: number;
  /** RC3: what the apply took from the agent. */
  takeovers: Takeover[];
}

export interface ComputeDriver {
  /**
   * D3 W4: checks that every source is the object recorded (present, labelled ours, same uid, its
   * value not changed outside the product since); throws BackendIdentityChanged or
   * BackendObjectMissing otherwise, having created nothing.
   */
  verifySources(context: ComputeRevisionContext): Promise<void>;
  /**
   * W4 D5: the revision-owned model-auth Secret, and a server-side dry run of the instance apply
   * (refused fields fail here, before activation). Changes nothing the gateway runs. Idempotent.
   */
  prepareRevision(revision: RenderRevision, context: ComputeRevisionContext): Promise<void>;
  /** RC3 explainDeploy: what applying the revision now would take from the agent; writes nothing. */
  previewTakeovers(revision: RenderRevision, context: ComputeRevisionContext): Promise<Takeover[]>;
  /**
   * RC1 RC3 W5: releases the agent's literals of the names the revision binds, then applies the
   * revision's fields to the instance as occ-controller (force), recording each takeover as an
   * event on the instance. Idempotent. With `yieldToAgent` (restoring the product's fields after
   * drift, RC4), the items the agent holds are left to it: nothing is taken.
   */
  applyRevision(revision: RenderRevision, context: ComputeRevisionContext, options?: { yieldToAgent?: boolean }): Promise<AppliedRevision>;
  /**
   * W5: waits, up to `timeoutMs` or until `signal` aborts, for the instance to report the
   * revision's `generation` (or a later one of the same revision) Ready, from the status the
   * reconciler writes; answers sooner when it fails or is replaced, and `progressing` when the
   * time is up (the caller owns the deadline).
   */
  awaitRevision(revision: RenderRevision, context: ComputeRevisionContext, generation: number, timeoutMs: number, signal: AbortSignal): Promise<GatewayReadiness>;
  /** D5: deletes the model-auth Secrets of the agent's revisions other than `keepNumber` (null: all). */
  retireModelAuth(agentId: string, k8sNamespace: string, keepNumber: number | null): Promise<void>;
}
