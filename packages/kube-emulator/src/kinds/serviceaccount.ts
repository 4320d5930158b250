// core/v1 ServiceAccount: a named identity whose tokens the TokenRequest API issues (tokens.ts).
// Deleting one revokes its tokens, since the authenticator checks the live uid (auth.ts).
// Not emulated: the `default` ServiceAccount a real cluster's controller adds to every namespace.

import { dns1123Subdomain } from '../validation.ts';
import { defaultStrategy, type Strategy } from './strategy.ts';

export const serviceAccountStrategy: Strategy = {
  ...defaultStrategy,
  validateName: dns1123Subdomain,
};
