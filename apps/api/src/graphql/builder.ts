import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { GraphQLError } from 'graphql';
import { auditAnonymousRefusal } from '../services/audit.ts';
import type { Actor, Deps } from '../services/deps.ts';
import type { LiveStreams } from './live.ts';
import type { Loaders } from './loaders.ts';
import { parseJsonLiteral, parseJsonValue } from './json-scalar.ts';
import { kinds, RESOURCE_KINDS, type RegisteredKind } from '../services/resource-kinds.ts';

export interface GraphQLContext {
  deps: Deps;
  actor: Actor | null;
  /** The client's address as the server saw it, for coalesced anonymous audits (P5). */
  clientAddress: string;
  /** The request presented credentials that were refused; the HTTP layer audited that already. */
  authenticationFailed: boolean;
  loaders: Loaders;
  /**
   * Audit writes started where Pothos wants a synchronous answer (unauthorizedError below). The
   * result waits for them (audits-in-flight.ts), so a denial is recorded before it is answered.
   */
  auditsInFlight: Promise<void>[];
  /** The process's subscription streams (live.ts): their bounds, and the signal that ends them. */
  streams: LiveStreams;
}

export function unauthenticated(): GraphQLError {
  return new GraphQLError('A valid API key or session is required.', { extensions: { code: 'UNAUTHENTICATED', http: { status: 200 } } });
}

/** Resolvers behind `authScopes: { authenticated: true }` use this to get a typed actor. */
export function actorOf(ctx: GraphQLContext): Actor {
  if (!ctx.actor) throw unauthenticated();
  return ctx.actor;
}

// The builder only; types live one file per domain type under schema/ (Pothos' complex-app shape).
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  AuthScopes: { authenticated: boolean };
  Scalars: { DateTime: { Input: Date; Output: Date }; ID: { Input: string; Output: string }; JSON: { Input: unknown; Output: unknown } };
  DefaultFieldNullability: false;
}>({
  plugins: [ScopeAuthPlugin, ErrorsPlugin, RelayPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (ctx) => ({ authenticated: ctx.actor !== null }),
    // A mutation refused for want of credentials is a denial too, and denials are audited (A3),
    // coalesced per client address and minute like every anonymous refusal (P5). Queries are not:
    // an unauthenticated read changes nothing. A request whose credentials were refused was
    // audited once already, by the HTTP layer.
    unauthorizedError: (_parent, ctx, info) => {
      if (info.parentType.name === 'Mutation' && !ctx.authenticationFailed) {
        ctx.auditsInFlight.push(
          auditAnonymousRefusal(ctx.deps.db, { clientAddress: ctx.clientAddress, action: info.fieldName, reason: 'UNAUTHENTICATED' }).catch((error: unknown) =>
            ctx.deps.logger.error('could not audit an unauthenticated mutation', { error }),
          ),
        );
      }
      return unauthenticated();
    },
  },
  errors: { defaultTypes: [], directResult: true },
  relay: {
    // Ids are already globally unique and typed by their prefix (ns_, sec_ …): no re-encoding.
    encodeGlobalID: (_typename, id) => String(id),
    decodeGlobalID: (globalID) => ({ typename: typenameOf(globalID), id: globalID }),
    clientMutationId: 'omit',
    cursorType: 'String',
    nodeQueryOptions: {
      nullable: true,
      // P4, P6: an id of no kind we serve (malformed, unknown prefix) is an object that does not
      // exist: null, as for a missing one, not an error from Pothos without a code.
      resolve: (_root, args, _ctx, _info, resolveNode) => (args.id.typename === UNKNOWN_TYPENAME ? null : resolveNode(args.id)),
    },
    nodesQueryOptions: false,
  },
});

const UNKNOWN_TYPENAME = 'Unknown';

/** The object type an id names, by its prefix, from the registry of kinds (services/resource-kinds.ts). */
function typenameOf(id: string): string {
  const kind = kinds.kindOfId(id);
  return kind ? RESOURCE_KINDS[kind].typename : UNKNOWN_TYPENAME;
}

builder.scalarType('DateTime', {
  serialize: (value) => value.toISOString(),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 string');
    return date;
  },
});

builder.scalarType('JSON', {
  description: 'A JSON value (the native OpenClaw document).',
  serialize: (value) => value,
  parseValue: parseJsonValue,
  parseLiteral: parseJsonLiteral,
});

/**
 * What node(id:) needs of a registered kind (services/resource-kinds.ts): its id, the read by id
 * (one the caller may read, else null) and the type check by the id's prefix. Spread into the
 * kind's `builder.node`.
 */
export function kindNode<K extends RegisteredKind>(kind: K) {
  return {
    id: { resolve: (view: { id: string }) => view.id },
    loadOne: (id: string, ctx: GraphQLContext) => (ctx.actor ? kinds.get(ctx.deps, ctx.actor, kind, id) : null),
    isTypeOf: (value: unknown) => typeof value === 'object' && value !== null && kinds.kindOfId(String((value as { id?: unknown }).id)) === kind,
  };
}
