import { describe, expect, it } from 'vitest';
import {
  ConfigurationInUseError,
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
import { BackendConflict, BackendFailure, BackendIdentityChanged, BackendNamespaceMissing, BackendObjectMissing, BackendOutcomeUnknown } from './secret-driver.ts';

describe('domain errors carry stable codes', () => {
  // Each made inside its test: an error built while the file is collected would not be the one a
  // mutation run changes (StrykerJS switches mutants per test).
  it.each([
    ['NotFoundError', 'NOT_FOUND', () => new NotFoundError('gone')],
    ['ForbiddenError', 'FORBIDDEN', () => new ForbiddenError()],
    ['ConflictError', 'CONFLICT', () => new ConflictError('stale')],
    ['ConflictError', 'NAME_TAKEN', () => new ConflictError('taken', 'NAME_TAKEN')],
    ['NamespaceNotReadyError', 'NAMESPACE_NOT_READY', () => new NamespaceNotReadyError('provisioning')],
    ['NamespaceNotReadyError', 'NAMESPACE_NOT_READY', () => NamespaceNotReadyError.lost('occ-a')],
    ['SecretInUseError', 'SECRET_IN_USE', () => new SecretInUseError({ total: 1, hiddenCount: 0, items: [] })],
    ['ConfigurationInUseError', 'CONFIGURATION_IN_USE', () => new ConfigurationInUseError({ total: 1, hiddenCount: 0, items: [] })],
    ['OutcomeUnknownError', 'OUTCOME_UNKNOWN', () => new OutcomeUnknownError('lost')],
    ['UnauthenticatedError', 'UNAUTHENTICATED', () => new UnauthenticatedError()],
    ['ValidationError', 'INVALID_NAME', () => new ValidationError('INVALID_NAME', 'bad', 'name')],
  ])('%s has code %s (case %#)', (name, code, make) => {
    const error = make();
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe(code);
    expect(error.name).toBe(name);
    expect(error.message).not.toBe('');
  });

  it.each([
    ['BackendOutcomeUnknown', 'm', () => new BackendOutcomeUnknown('m')],
    ['BackendConflict', 'm', () => new BackendConflict('m')],
    ['BackendNamespaceMissing', 'the Kubernetes namespace occ-a does not exist', () => new BackendNamespaceMissing('occ-a')],
    ['BackendObjectMissing', 'the Kubernetes Secret occ-a/s-1 does not exist', () => new BackendObjectMissing('occ-a', 's-1')],
    ['BackendIdentityChanged', 'the Kubernetes Secret is not the one recorded: its uid differs', () => new BackendIdentityChanged('its uid differs')],
    ['BackendIdentityChanged', 'the Kubernetes Secret is the recorded one but it has no managed label', () => new BackendIdentityChanged('it has no managed label', true)],
    ['BackendFailure', 'm', () => new BackendFailure('m')],
  ])("the secret driver's %s is named and says what happened (case %#)", (name, message, make) => {
    const error = make();
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.message).toBe(message);
  });

  it('RC5 a LOST namespace names its Kubernetes namespace and what to do; any other status, or LOST without a name, only the status', () => {
    const lost = NamespaceNotReadyError.of({ status: 'LOST', k8sName: 'occ-a' });
    expect(lost.namespaceStatus).toBe('LOST');
    expect(lost.message).toBe(NamespaceNotReadyError.lost('occ-a').message);
    expect(lost.message).toMatch(/^The namespace's Kubernetes namespace occ-a was deleted outside the control plane \(status LOST\).*reprovisionNamespace.*updateSecret/);
    for (const namespace of [{ status: 'LOST' }, { status: 'PROVISIONING', k8sName: 'occ-a' }, { status: 'DELETING', k8sName: 'occ-a' }]) {
      const error = NamespaceNotReadyError.of(namespace);
      expect(error.namespaceStatus).toBe(namespace.status);
      expect(error.message).toBe(`The namespace is not ready (status ${namespace.status}).`);
    }
  });

  it('deleteConfiguration in use counts the agents without naming them', () => {
    const error = new ConfigurationInUseError({ total: 2, hiddenCount: 1, items: [{ id: 'agt_1', name: 'support-bot' }] });
    expect(error.message).toBe('The configuration is selected by 2 agent(s); select another configuration for them, or delete them, first.');
    expect(error.agents.total).toBe(2);
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
