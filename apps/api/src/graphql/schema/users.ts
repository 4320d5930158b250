import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '@occ/domain/errors';
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyView } from '../../services/api-keys-admin.ts';
import { createUser, disableUser, getBootstrapPrincipal, listUsers, type PrincipalView } from '../../services/users.ts';
import { actorOf, builder } from '../builder.ts';
import { pageRequest, textFilter, toConnection, totalCount } from '../connections.ts';
import { PrincipalRef } from './principal.ts';

// Human principals and API keys. A key's plaintext appears in exactly two answers, createUser's
// and createApiKey's; no type has a field for its hash.

export const ApiKeyRef = builder.objectRef<ApiKeyView>('ApiKey').implement({
  description: 'An API key as stored: a display prefix and dates, never the key or its hash.',
  fields: (t) => ({
    id: t.exposeID('id'),
    principalId: t.exposeID('principalId'),
    prefix: t.exposeString('prefix'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
  }),
});

builder.queryFields((t) => ({
  users: t.connection({
    type: PrincipalRef,
    description: 'Human principals: all of them with `read` on principals, otherwise only yourself.',
    authScopes: { authenticated: true },
    args: { namePrefix: t.arg.string() },
    resolve: async (_root, args, ctx) => toConnection(await listUsers(ctx.deps, actorOf(ctx), pageRequest(args), { namePrefix: textFilter(args.namePrefix, 'namePrefix') })),
  }, { fields: (tc) => ({ totalCount: tc.int(totalCount) }) }),
  bootstrapPrincipal: t.field({
    type: PrincipalRef,
    nullable: true,
    description: 'The bootstrap service principal, with `read` on principals (its keys: `apiKeys`); otherwise null.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => getBootstrapPrincipal(ctx.deps, actorOf(ctx)),
  }),
  apiKeys: t.field({
    type: [ApiKeyRef],
    description: "A principal's keys: your own, or anyone's with `read` on principals; otherwise empty.",
    authScopes: { authenticated: true },
    args: { principalId: t.arg.id({ required: true }) },
    resolve: (_root, { principalId }, ctx) => listApiKeys(ctx.deps, actorOf(ctx), principalId),
  }),
}));

const CreateUserInput = builder.inputType('CreateUserInput', { fields: (t) => ({ name: t.string({ required: true }) }) });
const DisableUserInput = builder.inputType('DisableUserInput', { fields: (t) => ({ id: t.id({ required: true }) }) });
const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', { fields: (t) => ({ principalId: t.id({ required: true }) }) });
const RevokeApiKeyInput = builder.inputType('RevokeApiKeyInput', { fields: (t) => ({ id: t.id({ required: true }) }) });

const CreateUserSuccess = builder.objectRef<{ principal: PrincipalView; apiKey: string; apiKeyView: ApiKeyView }>('CreateUserSuccess').implement({
  fields: (t) => ({
    principal: t.field({ type: PrincipalRef, resolve: (r) => r.principal }),
    apiKey: t.exposeString('apiKey', { description: 'The plaintext key, shown this once; only its hash is stored.' }),
    storedKey: t.field({ type: ApiKeyRef, description: 'What is kept of the key: prefix and dates.', resolve: (r) => r.apiKeyView }),
  }),
});

const DisableUserSuccess = builder.objectRef<{ principal: PrincipalView; changed: boolean }>('DisableUserSuccess').implement({
  fields: (t) => ({
    principal: t.field({ type: PrincipalRef, resolve: (r) => r.principal }),
    changed: t.exposeBoolean('changed', { description: 'False when the user was already disabled.' }),
  }),
});

const CreateApiKeySuccess = builder.objectRef<{ apiKey: ApiKeyView; key: string }>('CreateApiKeySuccess').implement({
  fields: (t) => ({
    apiKey: t.exposeString('key', { description: 'The plaintext key, shown this once; only its hash is stored.' }),
    storedKey: t.field({ type: ApiKeyRef, description: 'What is kept of the key: prefix and dates.', resolve: (r) => r.apiKey }),
  }),
});

const RevokeApiKeySuccess = builder.objectRef<{ apiKey: ApiKeyView; changed: boolean }>('RevokeApiKeySuccess').implement({
  fields: (t) => ({
    apiKey: t.field({ type: ApiKeyRef, resolve: (r) => r.apiKey }),
    changed: t.exposeBoolean('changed', { description: 'False when the key was already revoked.' }),
  }),
});

builder.mutationFields((t) => ({
  createUser: t.field({
    type: CreateUserSuccess,
    description: 'Needs `create` on principals (installation scope).',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: CreateUserInput, required: true }) },
    errors: { types: [ValidationError, ForbiddenError, ConflictError], union: { name: 'CreateUserResult' } },
    resolve: (_root, { input }, ctx) => createUser(ctx.deps, actorOf(ctx), input),
  }),
  disableUser: t.field({
    type: DisableUserSuccess,
    description: 'Needs `administer` on principals (installation scope).',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: DisableUserInput, required: true }) },
    errors: { types: [NotFoundError, ForbiddenError], union: { name: 'DisableUserResult' } },
    resolve: (_root, { input }, ctx) => disableUser(ctx.deps, actorOf(ctx), input),
  }),
  createApiKey: t.field({
    type: CreateApiKeySuccess,
    description: 'For yourself, or for anyone with `administer` on principals (installation scope).',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    errors: { types: [NotFoundError, ForbiddenError, ConflictError], union: { name: 'CreateApiKeyResult' } },
    resolve: (_root, { input }, ctx) => createApiKey(ctx.deps, actorOf(ctx), input),
  }),
  revokeApiKey: t.field({
    type: RevokeApiKeySuccess,
    description: 'Your own key, or anyone\'s with `administer` on principals (installation scope).',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: RevokeApiKeyInput, required: true }) },
    errors: { types: [NotFoundError, ForbiddenError], union: { name: 'RevokeApiKeyResult' } },
    resolve: (_root, { input }, ctx) => revokeApiKey(ctx.deps, actorOf(ctx), input),
  }),
}));
