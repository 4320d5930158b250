// The port through which the product stores secret values (DESIGN.md §2: drivers are interfaces in
// the domain, implemented in apps/api). Only create and update ever see a value.

export interface SecretBackendRef {
  k8sNamespace: string;
  name: string;
  key: string;
  uid: string;
}

export interface CreateBackendSecret {
  namespaceId: string;
  secretId: string;
  k8sNamespace: string;
  value: string;
}

export type ResolveResult =
  | { state: 'present'; ref: SecretBackendRef; resourceVersion: string }
  | { state: 'missing' }
  | { state: 'mismatch'; reason: string };

export interface SecretDriver {
  readonly id: string;
  create(input: CreateBackendSecret): Promise<SecretBackendRef>;
  /** Replaces the value with optimistic concurrency on the live object. */
  update(ref: SecretBackendRef, expected: { namespaceId: string; secretId: string }, value: string): Promise<void>;
  /** Deletes exactly this object (uid precondition). A missing object counts as deleted. */
  delete(ref: SecretBackendRef): Promise<'deleted' | 'missing'>;
  /** Looks the object up and verifies its labels and uid. */
  resolve(ref: SecretBackendRef, expected: { namespaceId: string; secretId: string }): Promise<ResolveResult>;
  /** The objects this control plane labelled as its own in a Kubernetes namespace: metadata only. */
  listOwned(k8sNamespace: string): Promise<OwnedBackendObject[]>;
}

export interface OwnedBackendObject {
  name: string;
  uid: string;
  labels: Record<string, string>;
  createdAt: Date | null;
}

/** The driver could not tell whether its write happened (connection lost after sending). */
export class BackendOutcomeUnknown extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendOutcomeUnknown';
  }
}

/** The live object changed underneath (stale resourceVersion, uid or labels). */
export class BackendConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendConflict';
  }
}
