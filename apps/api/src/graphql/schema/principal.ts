import type { Actor } from '../../services/deps.ts';
import { builder } from '../builder.ts';

export const PrincipalKindEnum = builder.enumType('PrincipalKind', { values: ['HUMAN', 'SERVICE'] as const });

export const PrincipalRef = builder.objectRef<Pick<Actor, 'principalId' | 'kind' | 'name'>>('Principal').implement({
  fields: (t) => ({
    id: t.exposeID('principalId'),
    kind: t.field({ type: PrincipalKindEnum, resolve: (p) => p.kind }),
    name: t.exposeString('name'),
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
