import { GraphQLError } from 'graphql';
import { search, searchProblem, SEARCH_DEFAULT, SEARCH_KINDS, SEARCH_MAX, type SearchHit } from '../../services/search.ts';
import { actorOf, builder } from '../builder.ts';
import { NamespaceRef } from './namespace.ts';

// Search by name across kinds (the console's command palette): services/search.ts.

const SearchKindEnum = builder.enumType('SearchKind', {
  values: Object.fromEntries(SEARCH_KINDS.map((k) => [k.toUpperCase(), { value: k }])) as { [K in (typeof SEARCH_KINDS)[number] as Uppercase<K>]: { value: K } },
});

const SearchHitRef = builder.objectRef<SearchHit>('SearchHit').implement({
  description: 'An object whose name holds the searched text, one the viewer may read.',
  fields: (t) => ({
    kind: t.field({ type: SearchKindEnum, resolve: (h) => h.kind }),
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    match: t.string({
      description: 'EXACT (the whole name), PREFIX (its start) or CONTAINS (elsewhere in it), case ignored: the order hits come in.',
      resolve: (h) => (['EXACT', 'PREFIX', 'CONTAINS'] as const)[h.rank] ?? 'CONTAINS',
    }),
    namespaceId: t.exposeID('namespaceId', {
      nullable: true,
      description: 'The id of the namespace that holds it (null for namespaces and users); the object itself tells it (its reference), so it is given even where the namespace is not readable.',
    }),
    namespace: t.field({
      type: NamespaceRef,
      nullable: true,
      description: 'The namespace that holds it (null for namespaces and users, and for one the viewer may not read).',
      resolve: (h, _a, ctx) => (h.namespaceId ? ctx.loaders.namespace.load(h.namespaceId) : null),
    }),
  }),
});

builder.queryField('search', (t) =>
  t.field({
    type: [SearchHitRef],
    description: `Namespaces, secrets, configurations, agents and users whose name holds \`text\` (case ignored), among those the viewer may read: at most \`first\` in all (default ${SEARCH_DEFAULT}, at most ${SEARCH_MAX}): whole names first, then names that start with it, then the rest, each by name.`,
    authScopes: { authenticated: true },
    args: {
      text: t.arg.string({ required: true }),
      kinds: t.arg({ type: [SearchKindEnum], description: 'Only these kinds (all by default).' }),
      first: t.arg.int({ defaultValue: SEARCH_DEFAULT, description: `Hits in all (1 to ${SEARCH_MAX}).` }),
    },
    resolve: (_root, args, ctx) => {
      const problem = searchProblem(args);
      if (problem) throw new GraphQLError(problem.message, { extensions: { code: 'BAD_USER_INPUT', argument: problem.field } });
      return search(ctx.deps, actorOf(ctx), args);
    },
  }),
);
