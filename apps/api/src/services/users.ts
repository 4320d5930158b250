import { isId } from '@occ/domain/ids';
import { ConflictError, NotFoundError, ValidationError } from '@occ/domain/errors';
import { validateText } from '@occ/domain/text';
import { transaction } from '../db/client.ts';
import { and, raw, sql, type Sql } from '../db/sql.ts';
import { newId } from '../ids.ts';
import { authorize, authorizeVisible, decider } from './access.ts';
import { sqlKeysetPage, namePrefixSql, type PageOf, type PageRequest } from './pagination.ts';
import { generateApiKey } from './api-keys.ts';
import type { ApiKeyView } from './api-keys-admin.ts';
import { audit } from './audit.ts';
import type { Actor, Deps } from './deps.ts';

// Human principals. Creating, listing and disabling them is identity administration at
// installation scope: `create`, `read` and `administer` on `principal`.

export interface PrincipalView {
  principalId: string;
  kind: 'HUMAN' | 'SERVICE';
  name: string;
  disabledAt: Date | null;
  createdAt: Date;
}

export function toPrincipalView(row: { id: string; kind: 'HUMAN' | 'SERVICE'; name: string; disabledAt: Date | null; createdAt: Date }): PrincipalView {
  return { principalId: row.id, kind: row.kind, name: row.name, disabledAt: row.disabledAt, createdAt: row.createdAt };
}

const NAME_MAX = 100;

function validateUserName(name: string): ValidationError | null {
  if (name.trim().length === 0) return new ValidationError('INVALID_NAME', 'A user needs a name.', 'name');
  if (name.length > NAME_MAX) return new ValidationError('INVALID_NAME', `A user name has at most ${NAME_MAX} characters.`, 'name');
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f\ufffd]/.test(name)) return new ValidationError('INVALID_NAME', 'A user name has no control characters.', 'name');
  const unstorable = validateText(name, 'name');
  if (unstorable) return unstorable;
  return null;
}

/** Every user creation serializes on this transaction-scoped advisory lock, so two creates of one
 * name at once cannot both see it free (a unique index cannot express "case-insensitive, humans only"). */
const USER_NAME_LOCK_KEY = 0x6f63635f75736en; // "occ_usn"

const installation = (action: 'create' | 'read' | 'administer') => ({ action, resourceKind: 'principal', namespaceId: null, resourceId: null }) as const;

/** The plaintext key is in this answer only; the database keeps its SHA-256. */
export async function createUser(deps: Deps, actor: Actor, input: { name: string }): Promise<{ principal: PrincipalView; apiKey: string; apiKeyView: ApiKeyView }> {
  const invalid = validateUserName(input.name);
  if (invalid) throw invalid;
  await authorize(deps, actor, installation('create'));
  const principalId = newId('humanPrincipal');
  const key = generateApiKey();
  return transaction(deps.db, async (tx) => {
    // Two people with one name cannot be told apart in grants, the audit log or the subject picker.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${USER_NAME_LOCK_KEY})`;
    const taken = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM "Principal" WHERE kind = 'HUMAN' AND lower(name) = lower(${input.name}) LIMIT 1`;
    if (taken.length > 0) throw new ConflictError(`A user named ${input.name} exists.`, 'NAME_TAKEN');
    const principal = await tx.principal.create({ data: { id: principalId, kind: 'HUMAN', name: input.name } });
    const apiKey = await tx.apiKey.create({
      data: { id: newId('apiKey'), principalId, prefix: key.prefix, hash: key.hash },
      select: { id: true, principalId: true, prefix: true, createdAt: true, revokedAt: true, lastUsedAt: true },
    });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'principal.create',
      resourceKind: 'principal',
      resourceId: principalId,
      namespaceId: null,
      outcome: 'SUCCESS',
      details: { name: input.name, kind: 'HUMAN', apiKeyId: apiKey.id, apiKeyPrefix: key.prefix },
    });
    return { principal: toPrincipalView(principal), apiKey: key.key, apiKeyView: apiKey };
  });
}

/**
 * Which users the actor sees (the users list, search): all of them with `read` or `administer` on
 * the installation, otherwise only themself. As a condition on "Principal" (`alias` names it, a
 * constant of the caller's); null: every user.
 */
export async function visibleUsersSql(deps: Pick<Deps, 'db'>, actor: Actor, alias?: string): Promise<Sql | null> {
  const may = await decider(deps.db, actor);
  const all = may(installation('read')).allowed || may(installation('administer')).allowed;
  return all ? null : sql`${raw(alias ? `${alias}."id"` : '"id"')} = ${actor.principalId}`;
}

/** A page of human principals: all of them with `read` or `administer` on the installation, otherwise only the actor. */
export async function listUsers(deps: Deps, actor: Actor, page: PageRequest, filter: { namePrefix?: string | null } = {}): Promise<PageOf<PrincipalView>> {
  const where = and([sql`"kind" = 'HUMAN'`, await visibleUsersSql(deps, actor), namePrefixSql(filter.namePrefix)]);
  const columns = sql`"id", "kind"::text AS "kind", "name", "disabledAt", "createdAt"`;
  return sqlKeysetPage(deps.db, page, { columns, table: sql`"public"."Principal"`, where }, toPrincipalView);
}

/** A disabled user authenticates no more, by key or session. Disabling twice changes nothing. */
export async function disableUser(deps: Deps, actor: Actor, input: { id: string }): Promise<{ principal: PrincipalView; changed: boolean }> {
  // P6: a user the caller may not read is NOT_FOUND, exactly as a made-up id.
  if (!isId('humanPrincipal', input.id)) throw new NotFoundError('No such user.');
  await authorizeVisible(deps, actor, { ...installation('administer'), resourceId: input.id }, [{ ...installation('read'), resourceId: input.id }], deps.db, 'No such user.');
  return transaction(deps.db, async (tx) => {
    const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM "Principal" WHERE id = ${input.id} AND kind = 'HUMAN' FOR UPDATE`;
    if (rows.length === 0) throw new NotFoundError('No such user.');
    const row = await tx.principal.findUniqueOrThrow({ where: { id: input.id } });
    if (row.disabledAt) return { principal: toPrincipalView(row), changed: false };
    const updated = await tx.principal.update({ where: { id: row.id }, data: { disabledAt: new Date() } });
    await audit(tx, {
      actorId: actor.principalId,
      action: 'principal.disable',
      resourceKind: 'principal',
      resourceId: row.id,
      namespaceId: null,
      outcome: 'SUCCESS',
      details: { name: row.name },
    });
    return { principal: toPrincipalView(updated), changed: true };
  });
}

/**
 * The bootstrap service principal, for whoever may read principals: its keys are the installation's
 * most powerful, so an administrator must be able to find them (and revoke them) like a user's.
 * Null for anyone else, as for an installation without one.
 */
export async function getBootstrapPrincipal(deps: Deps, actor: Actor): Promise<PrincipalView | null> {
  const may = await decider(deps.db, actor);
  if (!may(installation('read')).allowed && !may(installation('administer')).allowed) return null;
  const row = await deps.db.installation.findFirst({ select: { bootstrapPrincipalId: true } });
  if (!row?.bootstrapPrincipalId) return null;
  const principal = await deps.db.principal.findUnique({ where: { id: row.bootstrapPrincipalId } });
  return principal ? toPrincipalView(principal) : null;
}
