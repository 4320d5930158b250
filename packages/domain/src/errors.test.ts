import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  NamespaceNotReadyError,
  NotFoundError,
  OutcomeUnknownError,
  SecretInUseError,
  UnauthenticatedError,
  ValidationError,
} from './errors.ts';

describe('domain errors carry stable codes', () => {
  it.each([
    [new NotFoundError('gone'), 'NOT_FOUND', 'NotFoundError'],
    [new ForbiddenError(), 'FORBIDDEN', 'ForbiddenError'],
    [new ConflictError('stale'), 'CONFLICT', 'ConflictError'],
    [new ConflictError('taken', 'NAME_TAKEN'), 'NAME_TAKEN', 'ConflictError'],
    [new NamespaceNotReadyError('provisioning'), 'NAMESPACE_NOT_READY', 'NamespaceNotReadyError'],
    [new SecretInUseError({ total: 1, hiddenCount: 0, items: [] }), 'SECRET_IN_USE', 'SecretInUseError'],
    [new OutcomeUnknownError('lost'), 'OUTCOME_UNKNOWN', 'OutcomeUnknownError'],
    [new UnauthenticatedError(), 'UNAUTHENTICATED', 'UnauthenticatedError'],
    [new ValidationError('INVALID_NAME', 'bad', 'name'), 'INVALID_NAME', 'ValidationError'],
  ])('%s has code %s', (error, code, name) => {
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe(code);
    expect(error.name).toBe(name);
  });

  it('A3 FORBIDDEN says nothing by default', () => {
    expect(new ForbiddenError().message).toBe('You are not allowed to do this.');
  });

  it('ValidationError has no field unless given one', () => {
    expect(new ValidationError('X', 'm').field).toBeNull();
    expect(new ValidationError('X', 'm', 'input.name').field).toBe('input.name');
  });

  it('NamespaceNotReadyError names the status', () => {
    const error = new NamespaceNotReadyError('deleting');
    expect(error.namespaceStatus).toBe('deleting');
    expect(error.message).toContain('deleting');
  });

  it('S7 SecretInUseError keeps its consumers and counts them without naming them in the message', () => {
    const consumers = {
      total: 3,
      hiddenCount: 1,
      items: [
        { kind: 'configuration' as const, id: 'cfg_1', name: 'prod-config' },
        { kind: 'agent' as const, id: 'agt_1', name: 'support-bot' },
      ],
    };
    const error = new SecretInUseError(consumers);
    expect(error.consumers).toBe(consumers);
    expect(error.message).toContain('3 consumer');
    expect(error.message).not.toContain('prod-config');
    expect(error.message).not.toContain('support-bot');
  });
});
