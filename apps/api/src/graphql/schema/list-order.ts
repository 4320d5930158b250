import { builder } from '../builder.ts';

// The order of a list in creation order: oldest first (the default, as every list was before), or
// newest first, where people look for what they just made (the console's namespaces, secrets,
// configurations and agents). Read by pageRequest (connections.ts) from the `order` argument.

export const ListOrderEnum = builder.enumType('ListOrder', {
  values: {
    OLDEST_FIRST: { description: 'The order rows were created in (the default).' },
    NEWEST_FIRST: { description: 'The row created last first.' },
  } as const,
});

export const ORDER_ARG = {
  type: ListOrderEnum,
  defaultValue: 'OLDEST_FIRST',
  description: 'Oldest first (the default) or newest first. A cursor is a place in the list: after it means older rows newest first, newer rows oldest first.',
} as const;
