import {
  ConflictError,
  type DomainError,
  type MissingGrant,
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

export const MissingGrantRef = builder.objectRef<MissingGrant>('MissingGrant').implement({
  description: "The grant to add so that an Agent's service principal may do what it was refused (rule A3).",
  fields: (t) => ({
    subjectId: t.exposeID('subjectId'),
    action: t.exposeString('action'),
    resourceKind: t.exposeString('resourceKind'),
    resourceId: t.exposeID('resourceId'),
    namespaceId: t.exposeID('namespaceId', { nullable: true }),
    roleId: t.exposeID('roleId', { description: 'A built-in role carrying exactly this permission.' }),
  }),
});

builder.objectType(ForbiddenError, {
  name: 'ForbiddenError',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    missingGrant: t.field({
      type: MissingGrantRef,
      nullable: true,
      description: "Only when the missing grant is an Agent's service principal's; every other denial is bare.",
      resolve: (e) => e.missingGrant,
    }),
  }),
});

for (const [cls, name] of [
  [NotFoundError, 'NotFoundError'],
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
