import type { Actor } from '../../services/deps.ts';
import { builder, type GraphQLContext } from '../builder.ts';

export const PrincipalKindEnum = builder.enumType('PrincipalKind', { values: ['HUMAN', 'SERVICE'] as const });

/** The viewer arrives as an Actor; listed principals carry their row's dates. */
type PrincipalShape = Pick<Actor, 'principalId' | 'kind' | 'name'> & { disabledAt?: Date | null; createdAt?: Date };

async function row(p: PrincipalShape, ctx: GraphQLContext): Promise<{ disabledAt: Date | null; createdAt: Date }> {
  if (p.createdAt !== undefined && p.disabledAt !== undefined) return { disabledAt: p.disabledAt, createdAt: p.createdAt };
  // Through the request's loader: a page of principals costs one statement, not one each.
  const loaded = await ctx.loaders.principal.load(p.principalId);
  if (!loaded) throw new Error('principal vanished while the request was answered');
  return loaded;
}

export const PrincipalRef = builder.objectRef<PrincipalShape>('Principal').implement({
  fields: (t) => ({
    id: t.exposeID('principalId'),
    kind: t.field({ type: PrincipalKindEnum, resolve: (p) => p.kind }),
    name: t.exposeString('name'),
    disabled: t.boolean({ description: 'A disabled principal cannot authenticate.', resolve: async (p, _args, ctx) => (await row(p, ctx)).disabledAt !== null }),
    createdAt: t.field({ type: 'DateTime', resolve: async (p, _args, ctx) => (await row(p, ctx)).createdAt }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: PrincipalRef,
    nullable: true,
    description: 'The signed-in principal, or null.',
    resolve: (_root, _args, ctx) => ctx.actor,
  }),
);
