import {
  ConflictError,
  type DomainError,
  ForbiddenError,
  NamespaceNotReadyError,
  NotFoundError,
  OutcomeUnknownError,
  SecretInUseError,
  ValidationError,
} from '@occ/domain/errors';
import { builder } from '../builder.ts';
import { NamespaceStatusEnum } from './namespace-status.ts';
import { SecretConsumersRef } from './secret-consumers.ts';

// Expected failures as the members of each mutation's result union (DESIGN.md §6).
export const ErrorInterface = builder.interfaceRef<DomainError>('Error').implement({
  fields: (t) => ({
    code: t.exposeString('code'),
    message: t.exposeString('message'),
  }),
});

builder.objectType(ValidationError, {
  name: 'ValidationError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ field: t.string({ nullable: true, resolve: (e) => e.field }) }),
});

for (const [cls, name] of [
  [NotFoundError, 'NotFoundError'],
  [ForbiddenError, 'ForbiddenError'],
  [ConflictError, 'ConflictError'],
  [OutcomeUnknownError, 'OutcomeUnknownError'],
] as const) {
  builder.objectType(cls as typeof NotFoundError, { name, interfaces: [ErrorInterface], fields: () => ({}) });
}

builder.objectType(NamespaceNotReadyError, {
  name: 'NamespaceNotReadyError',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    namespaceStatus: t.field({ type: NamespaceStatusEnum, resolve: (e) => e.namespaceStatus as 'PROVISIONING' }),
  }),
});

builder.objectType(SecretInUseError, {
  name: 'SecretInUseError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ consumers: t.field({ type: SecretConsumersRef, resolve: (e) => e.consumers }) }),
});
