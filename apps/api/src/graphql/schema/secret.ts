import {
  ConflictError,
  ForbiddenError,
  NamespaceNotReadyError,
  NotFoundError,
  OutcomeUnknownError,
  SecretInUseError,
  ValidationError,
} from '@occ/domain/errors';
import type { SecretBackendRef } from '@occ/domain/secret-driver';

import { deleteOrphanedSecretBackend, type OrphanTarget } from '../../services/delete-orphaned-secret-backend.ts';
import { listOrphanedSecretBackends, type OrphanedSecretBackend } from '../../services/orphans.ts';
import { createSecret, deleteSecret, isInstallationAdmin, SECRET_COLUMNS, secretReference, updateSecret, type SecretRow, type SecretUpdateResult, type SecretView } from '../../services/secrets.ts';
import { actorOf, builder, kindNode } from '../builder.ts';
import { NamespaceRef } from './namespace.ts';
import { SecretConsumersRef } from './secret-consumers.ts';
import { kinds } from '../../services/resource-kinds.ts';

// A Secret's GraphQL shape has no value field and no way to get one (S3, S4).

export const SecretReferenceRef = builder.objectRef<{ kind: 'secret'; namespaceId: string; id: string }>('SecretReference').implement({
  description: 'The public reference to a secret: what configurations and revisions hold.',
  fields: (t) => ({ kind: t.exposeString('kind'), namespaceId: t.exposeID('namespaceId'), id: t.exposeID('id') }),
});

const SecretBackendLocatorRef = builder.objectRef<SecretBackendRef>('SecretBackendLocator').implement({
  description: 'Where the value lives in Kubernetes. Installation administrators only, for audit.',
  fields: (t) => ({
    k8sNamespace: t.exposeString('k8sNamespace'),
    name: t.exposeString('name'),
    key: t.exposeString('key'),
    uid: t.exposeString('uid'),
  }),
});

export const SecretRef = builder.objectRef<SecretView>('Secret');

/**
 * The columns of its row each field of Secret needs (besides id and namespaceId, always read), for
 * a list that reads secrets with only the columns its selection needs (an agents page's joined
 * secrets). A field not named here needs the whole row: a field added later is safe by default.
 */
const SECRET_FIELD_COLUMNS: Record<string, ReadonlyArray<keyof SecretRow>> = {
  __typename: [],
  id: [],
  name: ['name'],
  version: ['version'],
  createdAt: ['createdAt'],
  updatedAt: ['updatedAt'],
  reference: [],
  namespace: [],
  consumers: [],
  staleConsumers: [],
  versions: [],
  exposure: [],
};

/** The columns a selection of Secret's fields needs (fieldsAt), or null for none selected. */
export function secretColumnsFor(fields: ReadonlySet<string>): ReadonlyArray<keyof SecretRow> | null {
  if (fields.size === 0) return null;
  const columns = new Set<keyof SecretRow>();
  for (const field of fields) {
    const needs = SECRET_FIELD_COLUMNS[field];
    if (!needs) return SECRET_COLUMNS;
    for (const c of needs) columns.add(c);
  }
  return [...columns];
}

builder.node(SecretRef, {
  ...kindNode('secret'),
  fields: (t) => ({
    name: t.exposeString('name'),
    version: t.exposeInt('version'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    reference: t.field({ type: SecretReferenceRef, resolve: (s) => secretReference(s) }),
    // Through the request's loader, so a page of secrets reads their namespaces in one statement;
    // one the caller may not read answers as requireNamespace does (NOT_FOUND, P6).
    namespace: t.field({
      type: NamespaceRef,
      resolve: async (s, _args, ctx) => (await ctx.loaders.namespace.load(s.namespaceId)) ?? kinds.require(ctx.deps, actorOf(ctx), 'namespace', s.namespaceId),
    }),
    consumers: t.field({ type: SecretConsumersRef, resolve: (s, _args, ctx) => ctx.loaders.secretConsumers.load(s.id) }),
    backendLocator: t.field({
      type: SecretBackendLocatorRef,
      nullable: true,
      resolve: async (s, _args, ctx) => ((await isInstallationAdmin(ctx.deps, actorOf(ctx))) ? s.backend : null),
    }),
  }),
});

builder.queryField('secret', (t) =>
  t.field({
    type: SecretRef,
    nullable: true,
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => kinds.get(ctx.deps, actorOf(ctx), 'secret', id),
  }),
);

const CreateSecretInput = builder.inputType('CreateSecretInput', {
  fields: (t) => ({
    namespaceId: t.id({ required: true }),
    name: t.string({ required: true }),
    value: t.string({ required: true, description: 'Stored only in the namespace-owned Kubernetes Secret; never returned.' }),
  }),
});
const UpdateSecretInput = builder.inputType('UpdateSecretInput', {
  fields: (t) => ({ id: t.id({ required: true }), value: t.string({ required: true }) }),
});
const DeleteSecretInput = builder.inputType('DeleteSecretInput', { fields: (t) => ({ id: t.id({ required: true }) }) });

const CreateSecretSuccess = builder.objectRef<{ secret: SecretView }>('CreateSecretSuccess').implement({
  fields: (t) => ({ secret: t.field({ type: SecretRef, resolve: (r) => r.secret }) }),
});

export const SecretDeliveryRef = builder.objectRef<SecretUpdateResult['delivery']>('SecretDelivery').implement({
  description: 'An update stores the value; running gateways keep the bytes they started with until redeployed.',
  fields: (t) => ({
    stored: t.exposeBoolean('stored'),
    delivered: t.exposeBoolean('delivered'),
    message: t.exposeString('message'),
    staleRevisionIds: t.exposeIDList('staleRevisionIds'),
  }),
});

const UpdateSecretSuccess = builder.objectRef<SecretUpdateResult>('UpdateSecretSuccess').implement({
  fields: (t) => ({
    secret: t.field({ type: SecretRef, resolve: (r) => r.secret }),
    delivery: t.field({ type: SecretDeliveryRef, resolve: (r) => r.delivery }),
  }),
});

const DeleteSecretSuccess = builder.objectRef<{ deletedSecretId: string }>('DeleteSecretSuccess').implement({
  fields: (t) => ({ deletedSecretId: t.exposeID('deletedSecretId') }),
});

builder.mutationFields((t) => ({
  createSecret: t.field({
    type: CreateSecretSuccess,
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: CreateSecretInput, required: true }) },
    errors: {
      types: [ValidationError, NotFoundError, ForbiddenError, ConflictError, NamespaceNotReadyError, OutcomeUnknownError],
      union: { name: 'CreateSecretResult' },
    },
    resolve: async (_root, { input }, ctx) => ({ secret: await createSecret(ctx.deps, actorOf(ctx), input) }),
  }),
  updateSecret: t.field({
    type: UpdateSecretSuccess,
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: UpdateSecretInput, required: true }) },
    errors: {
      types: [ValidationError, NotFoundError, ForbiddenError, ConflictError, NamespaceNotReadyError, OutcomeUnknownError],
      union: { name: 'UpdateSecretResult' },
    },
    resolve: (_root, { input }, ctx) => updateSecret(ctx.deps, actorOf(ctx), input),
  }),
  deleteSecret: t.field({
    type: DeleteSecretSuccess,
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: DeleteSecretInput, required: true }) },
    errors: {
      types: [NotFoundError, ForbiddenError, ConflictError, SecretInUseError, OutcomeUnknownError],
      union: { name: 'DeleteSecretResult' },
    },
    resolve: (_root, { input }, ctx) => deleteSecret(ctx.deps, actorOf(ctx), input),
  }),
}));

const OrphanedSecretBackendRef = builder.objectRef<OrphanedSecretBackend>('OrphanedSecretBackend').implement({
  description: 'A Kubernetes Secret labelled as ours that no secret points at (S5): recover or delete it.',
  fields: (t) => ({
    k8sNamespace: t.exposeString('k8sNamespace'),
    name: t.exposeString('name'),
    uid: t.exposeString('uid'),
    namespaceId: t.exposeID('namespaceId', { nullable: true }),
    secretId: t.exposeID('secretId', { nullable: true, description: 'The id it was created for; no secret has it.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: true }),
  }),
});

const OrphanedSecretBackends = builder.objectRef<{ items: OrphanedSecretBackend[] }>('OrphanedSecretBackends').implement({
  fields: (t) => ({ items: t.field({ type: [OrphanedSecretBackendRef], resolve: (r) => r.items }) }),
});

builder.queryField('orphanedSecretBackends', (t) =>
  t.field({
    type: OrphanedSecretBackends,
    description: 'Installation administrators: backend objects left by unknown outcomes (S5).',
    authScopes: { authenticated: true },
    errors: { types: [ForbiddenError], union: { name: 'OrphanedSecretBackendsResult' } },
    resolve: async (_root, _args, ctx) => ({ items: await listOrphanedSecretBackends(ctx.deps, actorOf(ctx)) }),
  }),
);

const DeleteOrphanedSecretBackendInput = builder.inputType('DeleteOrphanedSecretBackendInput', {
  description: 'One entry of orphanedSecretBackends, as listed.',
  fields: (t) => ({
    k8sNamespace: t.string({ required: true }),
    name: t.string({ required: true }),
    uid: t.string({ required: true, description: 'Deleted only while the object still has this uid.' }),
  }),
});

const DeleteOrphanedSecretBackendSuccess = builder.objectRef<{ deleted: OrphanTarget; result: 'deleted' | 'missing' }>('DeleteOrphanedSecretBackendSuccess').implement({
  fields: (t) => ({
    k8sNamespace: t.string({ resolve: (r) => r.deleted.k8sNamespace }),
    name: t.string({ resolve: (r) => r.deleted.name }),
    uid: t.string({ resolve: (r) => r.deleted.uid }),
    alreadyGone: t.boolean({ description: 'Kubernetes had deleted it already.', resolve: (r) => r.result === 'missing' }),
  }),
});

builder.mutationField('deleteOrphanedSecretBackend', (t) =>
  t.field({
    type: DeleteOrphanedSecretBackendSuccess,
    description: "Installation administrators: deletes one orphaned backend object (S5). Never another installation's object, nor a secret's live backend.",
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: DeleteOrphanedSecretBackendInput, required: true }) },
    errors: { types: [NotFoundError, ForbiddenError, ConflictError, OutcomeUnknownError], union: { name: 'DeleteOrphanedSecretBackendResult' } },
    resolve: (_root, { input }, ctx) => deleteOrphanedSecretBackend(ctx.deps, actorOf(ctx), input),
  }),
);
