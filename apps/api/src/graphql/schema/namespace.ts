import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '@occ/domain/errors';
import { reprovisionNamespace, type ReprovisionResult } from '../../services/namespace-lost.ts';
import { createNamespace, listNamespaces, type NamespaceView } from '../../services/namespaces.ts';
import { listSecrets } from '../../services/secrets.ts';
import { actorOf, builder, kindNode } from '../builder.ts';
import { pageRequest, textFilter, toConnection, totalCount } from '../connections.ts';
import { NamespaceStatusEnum } from './namespace-status.ts';
import { SecretRef } from './secret.ts';
import { kinds } from '../../services/resource-kinds.ts';
import { ORDER_ARG } from './list-order.ts';

export const NamespaceRef = builder.objectRef<NamespaceView>('Namespace');

builder.node(NamespaceRef, {
  ...kindNode('namespace'),
  fields: (t) => ({
    name: t.exposeString('name'),
    status: t.field({ type: NamespaceStatusEnum, resolve: (ns) => ns.status }),
    statusMessage: t.exposeString('statusMessage', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    secrets: t.connection(
      {
        type: SecretRef,
        args: {
          namePrefix: t.arg.string(),
          used: t.arg.boolean({ description: "true: only secrets a configuration binds or an agent's harnessAuth uses; false: only unused ones." }),
          stale: t.arg.boolean({ description: 'true: only secrets some running revision holds at an older version (rotated, not yet redeployed); false: only the others.' }),
          order: t.arg(ORDER_ARG),
        },
        resolve: async (ns, args, ctx) =>
          toConnection(await listSecrets(ctx.deps, actorOf(ctx), ns.id, pageRequest(args), { namePrefix: textFilter(args.namePrefix, 'namePrefix'), used: args.used, stale: args.stale })),
      },
      { fields: (tc) => ({ totalCount: tc.int(totalCount) }) },
    ),
  }),
});

builder.queryFields((t) => ({
  namespaces: t.connection(
    {
      type: NamespaceRef,
      authScopes: { authenticated: true },
      args: { namePrefix: t.arg.string(), order: t.arg(ORDER_ARG) },
      resolve: async (_root, args, ctx) => toConnection(await listNamespaces(ctx.deps, actorOf(ctx), pageRequest(args), { namePrefix: textFilter(args.namePrefix, 'namePrefix') })),
    },
    { fields: (tc) => ({ totalCount: tc.int(totalCount) }) },
  ),
  namespace: t.field({
    type: NamespaceRef,
    nullable: true,
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => kinds.get(ctx.deps, actorOf(ctx), 'namespace', id),
  }),
}));

const CreateNamespaceInput = builder.inputType('CreateNamespaceInput', {
  fields: (t) => ({ name: t.string({ required: true }) }),
});

const CreateNamespaceSuccess = builder.objectRef<{ namespace: NamespaceView }>('CreateNamespaceSuccess').implement({
  fields: (t) => ({ namespace: t.field({ type: NamespaceRef, resolve: (r) => r.namespace }) }),
});

builder.mutationField('createNamespace', (t) =>
  t.field({
    type: CreateNamespaceSuccess,
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: CreateNamespaceInput, required: true }) },
    errors: { types: [ValidationError, ForbiddenError, ConflictError], union: { name: 'CreateNamespaceResult' } },
    resolve: async (_root, { input }, ctx) => {
      const namespace = await createNamespace(ctx.deps, actorOf(ctx), input);
      ctx.deps.kickWorker?.();
      return { namespace };
    },
  }),
);

const ReprovisionNamespaceInput = builder.inputType('ReprovisionNamespaceInput', {
  fields: (t) => ({ id: t.id({ required: true }) }),
});

const ReprovisionNamespaceSuccess = builder.objectRef<ReprovisionResult>('ReprovisionNamespaceSuccess').implement({
  fields: (t) => ({
    namespace: t.field({ type: NamespaceRef, resolve: (r) => r.namespace }),
    note: t.exposeString('note', { description: 'What re-provisioning cannot bring back: the secret values stored in the lost Kubernetes namespace.' }),
  }),
});

builder.mutationField('reprovisionNamespace', (t) =>
  t.field({
    type: ReprovisionNamespaceSuccess,
    description: 'RC5: makes the Kubernetes namespace of a LOST (or FAILED) namespace again. Needs administer on the namespace. The secret values that lived in the lost one are not restored.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: ReprovisionNamespaceInput, required: true }) },
    errors: { types: [NotFoundError, ForbiddenError, ConflictError], union: { name: 'ReprovisionNamespaceResult' } },
    resolve: (_root, { input }, ctx) => reprovisionNamespace(ctx.deps, actorOf(ctx), { id: String(input.id) }),
  }),
);
