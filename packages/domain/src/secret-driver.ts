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
  /** V1: the version this object holds (a label); each version is its own immutable object. */
  version: number;
}

/** RC4: a manager other than the product's that changed the value after the product last wrote it. */
export interface OutsideWriter {
  manager: string;
  operation: 'Apply' | 'Update';
  time: string | null;
}

export type ResolveResult =
  /** `outsideWriters` non-empty: the value was changed outside the product after the product last wrote it. */
  | { state: 'present'; ref: SecretBackendRef; resourceVersion: string; outsideWriters: OutsideWriter[] }
  | { state: 'missing' }
  /** `notMigrated`: the recorded object as an earlier release wrote it (backendNotMigrated). */
  | { state: 'mismatch'; reason: string; notMigrated?: boolean };

export interface SecretDriver {
  readonly id: string;
  create(input: CreateBackendSecret): Promise<SecretBackendRef>;
  /** Replaces the value with optimistic concurrency on the live object. */
  update(ref: SecretBackendRef, expected: { namespaceId: string; secretId: string }, value: string): Promise<void>;
  /** Deletes exactly this object (uid precondition). A missing object counts as deleted. */
  delete(ref: SecretBackendRef): Promise<'deleted' | 'missing'>;
  /**
   * Looks the object up and verifies its labels and uid. `cached`: a watch cache may answer when it
   * confirms the object as expected (present, same uid, labels ours, the key there); every other
   * answer still comes from a live read.
   */
  resolve(ref: SecretBackendRef, expected: { namespaceId: string; secretId: string }, options?: { cached?: boolean }): Promise<ResolveResult>;
  /** The objects this control plane labelled as its own in a Kubernetes namespace: metadata only. */
  listOwned(k8sNamespace: string): Promise<OwnedBackendObject[]>;
}

export interface OwnedBackendObject {
  name: string;
  uid: string;
  labels: Record<string, string>;
  createdAt: Date | null;
  /** RC4: managers other than the product's that changed the value since the product last wrote it. */
  outsideWriters: OutsideWriter[];
}

/** The driver could not tell whether its write happened (connection lost after sending). */
export class BackendOutcomeUnknown extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendOutcomeUnknown';
  }
}

/** A concurrent writer changed the live object (409 on a stale resourceVersion). */
export class BackendConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendConflict';
  }
}

/** The backend namespace the object lives in (or would be created in) does not exist. */
export class BackendNamespaceMissing extends Error {
  constructor(readonly k8sNamespace: string) {
    super(`the Kubernetes namespace ${k8sNamespace} does not exist`);
    this.name = 'BackendNamespaceMissing';
  }
}

/** The recorded object is gone while its namespace is there (deleted outside the control plane). */
export class BackendObjectMissing extends Error {
  constructor(readonly k8sNamespace: string, readonly objectName: string) {
    super(`the Kubernetes Secret ${k8sNamespace}/${objectName} does not exist`);
    this.name = 'BackendObjectMissing';
  }
}

/**
 * An object of the recorded name exists but is not the one recorded (uid or labels differ), or, with
 * `notMigrated`, is the recorded one as an earlier release wrote it (backendNotMigrated).
 */
export class BackendIdentityChanged extends Error {
  constructor(
    readonly reason: string,
    readonly notMigrated = false,
  ) {
    super(notMigrated ? `the Kubernetes Secret is the recorded one but ${reason}` : `the Kubernetes Secret is not the one recorded: ${reason}`);
    this.name = 'BackendIdentityChanged';
  }
}

/** Kubernetes refused or could not be reached; nothing was applied. The message never quotes the request. */
export class BackendFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendFailure';
  }
}
