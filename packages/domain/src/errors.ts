// Expected failures of the product's rules. Each has a stable `code`; the GraphQL layer maps the
// classes to the members of a mutation's result union (DESIGN.md §6). Messages never carry a
// secret value.

export abstract class DomainError extends Error {
  abstract readonly code: string;
}

export class ValidationError extends DomainError {
  constructor(
    readonly code: string,
    message: string,
    readonly field: string | null = null,
  ) {
    super(message);
    this.name = 'ValidationError';
  }
}

export class NotFoundError extends DomainError {
  readonly code = 'NOT_FOUND';
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

/** The exact grant that would allow a request: named only when it is an Agent's (rule A3). */
export interface MissingGrant {
  subjectId: string;
  action: string;
  resourceKind: string;
  resourceId: string;
  namespaceId: string | null;
  /** A built-in role that carries exactly this permission. */
  roleId: string;
}

export class ForbiddenError extends DomainError {
  readonly code = 'FORBIDDEN';
  constructor(
    message = 'You are not allowed to do this.',
    /** Set only when the missing grant is an Agent's service principal's (A3); otherwise the answer is bare. */
    readonly missingGrant: MissingGrant | null = null,
  ) {
    super(message);
    this.name = 'ForbiddenError';
  }
}

export class ConflictError extends DomainError {
  readonly code: string;
  constructor(message: string, code = 'CONFLICT') {
    super(message);
    this.code = code;
    this.name = 'ConflictError';
  }
}

export class NamespaceNotReadyError extends DomainError {
  readonly code = 'NAMESPACE_NOT_READY';
  constructor(
    readonly namespaceStatus: string,
    message = `The namespace is not ready (status ${namespaceStatus}).`,
  ) {
    super(message);
    this.name = 'NamespaceNotReadyError';
  }

  /**
   * RC5: the namespace is LOST: its Kubernetes namespace was deleted outside the control plane
   * (named, as when the loss is found by a write), and what to do about it.
   */
  static lost(k8sNamespace: string): NamespaceNotReadyError {
    return new NamespaceNotReadyError(
      'LOST',
      `The namespace's Kubernetes namespace ${k8sNamespace} was deleted outside the control plane (status LOST), and the values stored there with it: re-provision the namespace (reprovisionNamespace), then store each secret's value again (updateSecret).`,
    );
  }

  /** Not ready, in words for its status. */
  static of(namespace: { status: string; k8sName?: string }): NamespaceNotReadyError {
    return namespace.status === 'LOST' && namespace.k8sName ? NamespaceNotReadyError.lost(namespace.k8sName) : new NamespaceNotReadyError(namespace.status);
  }
}

export interface SecretConsumer {
  kind: 'configuration' | 'agent' | 'revision' | 'work';
  id: string;
  name: string;
}

export interface SecretConsumers {
  total: number;
  /** Consumers the caller may not read are counted, not named. */
  hiddenCount: number;
  items: SecretConsumer[];
}

export class SecretInUseError extends DomainError {
  readonly code = 'SECRET_IN_USE';
  constructor(readonly consumers: SecretConsumers) {
    super(`The secret is in use by ${consumers.total} consumer(s); remove those references first.`);
    this.name = 'SecretInUseError';
  }
}

/** The database outcome of a change is unknown: nothing was compensated (rule S5). */
export class OutcomeUnknownError extends DomainError {
  readonly code = 'OUTCOME_UNKNOWN';
  constructor(message: string) {
    super(message);
    this.name = 'OutcomeUnknownError';
  }
}

export class UnauthenticatedError extends DomainError {
  readonly code = 'UNAUTHENTICATED';
  constructor(message = 'A valid API key or session is required.') {
    super(message);
    this.name = 'UnauthenticatedError';
  }
}

export interface ConfigurationConsumers {
  total: number;
  /** Agents the caller may not read are counted, not named. */
  hiddenCount: number;
  items: Array<{ id: string; name: string }>;
}

/** deleteConfiguration while agents select it: deleting it would leave them nothing to deploy. */
export class ConfigurationInUseError extends DomainError {
  readonly code = 'CONFIGURATION_IN_USE';
  constructor(readonly agents: ConfigurationConsumers) {
    super(`The configuration is selected by ${agents.total} agent(s); select another configuration for them, or delete them, first.`);
    this.name = 'ConfigurationInUseError';
  }
}
