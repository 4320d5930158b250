import { builder } from '../builder.ts';

export const NamespaceStatusEnum = builder.enumType('NamespaceStatus', {
  values: ['PROVISIONING', 'READY', 'FAILED', 'DELETING', 'LOST'] as const,
});
