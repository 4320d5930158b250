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

export class ForbiddenError extends DomainError {
  readonly code = 'FORBIDDEN';
  constructor(message = 'You are not allowed to do this.') {
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
