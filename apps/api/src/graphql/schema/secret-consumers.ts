import type { SecretConsumer, SecretConsumers } from '@occ/domain/errors';
import { builder } from '../builder.ts';

const SecretConsumerRef = builder.objectRef<SecretConsumer>('SecretConsumer').implement({
  fields: (t) => ({
    kind: t.exposeString('kind'),
    id: t.exposeID('id'),
    name: t.exposeString('name'),
  }),
});

export const SecretConsumersRef = builder.objectRef<SecretConsumers>('SecretConsumers').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    hiddenCount: t.exposeInt('hiddenCount', { description: 'Consumers the caller may not read: counted, not named.' }),
    items: t.field({ type: [SecretConsumerRef], resolve: (c) => c.items }),
  }),
});
