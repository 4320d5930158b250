import { builder } from '../builder.ts';

// The order of a list: creation order, oldest first (the default, as every list was before) or
// newest first, where people look for what they just made; or by name, either way, where they look
// for one they know (the console's namespaces, secrets, configurations and agents sort by either).
// Read by pageRequest (connections.ts) from the `order` argument.

export const ListOrderEnum = builder.enumType('ListOrder', {
  values: {
    OLDEST_FIRST: { description: 'The order rows were created in (the default).' },
    NEWEST_FIRST: { description: 'The row created last first.' },
    NAME_A_TO_Z: { description: 'By name, ascending in the database’s collation; the id breaks ties between namespaces.' },
    NAME_Z_TO_A: { description: 'By name, descending.' },
  } as const,
});

export const ORDER_ARG = {
  type: ListOrderEnum,
  defaultValue: 'OLDEST_FIRST',
  description:
    'Oldest first (the default), newest first, or by name. A cursor is a place in the list in the order it was given out for (another order refuses it): after it means the rows that follow in that order.',
} as const;
