import { isId } from '@occ/domain/ids';
import { ConflictError, NotFoundError } from '@occ/domain/errors';
import {
  normalizeSecretBindings,
  validateConfigurationValues,
  type SecretBinding,
  type SecretBindingInput,
} from '@occ/domain/configuration';
import { validateResourceName } from '@occ/domain/validation';
import { transaction, type Db, type Tx } from '../db/client.ts';
import { covers, type ReadableSet } from '@occ/domain/access';
import { and, empty, join, prefixed, sql, sqlRows, unprefixed, type Sql } from '../db/sql.ts';
import { newId } from '../ids.ts';
import { authorize, authorizeVisible, readableBy } from './access.ts';
import { sqlKeysetPage, namePrefixSql, readableScopes, visibleWithin, type PageOf, type PageRequest } from './pagination.ts';
import { audit } from './audit.ts';
import { recordGeneration } from './configuration-generations.ts';
import type { Actor, Deps } from './deps.ts';
import { lockNamespace } from './locks.ts';
import { SECRET_COLUMNS, toPartialSecretView, type SecretRow, type SecretView } from './secrets.ts';
import { kinds } from './resource-kinds.ts';
import { capabilityRequest } from './capabilities.ts';

export interface ConfigurationView {
  id: string;
  namespaceId: string;
  name: string;
  generation: number;
  values: Record<string, unknown>;
  secretBindings: BindingView[];
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A binding, and, when it was read in the same statement as the configuration (an agents page,
 * configurationJoin), its secret: null when the caller may not read it. Without `joined`, the
 * secret is for the request's loader to read.
 */
export type BindingView = SecretBinding & { joined?: { secret: SecretView | null } };

type Row = {
  id: string;
  namespaceId: string;
  name: string;
  generation: number;
  values: unknown;
  createdAt: Date;
  updatedAt: Date;
  bindings: Array<{ envName: string; secretId: string; deliveryType: string; joined?: { secret: SecretView | null } }>;
};

export function toConfigurationView(row: Row): ConfigurationView {
  return toPartialView(row);
}

/** What a page of configurations reads besides each row's own scalar columns. */
export interface ConfigurationReads {
  values: boolean;
  secretBindings: boolean;
}

/**
 * A view of a row, which may have been read without some of its parts (ConfigurationReads):
 * reading a part it lacks is a fault, loudly, never an empty answer.
 */
function toPartialView(row: Omit<Row, 'values' | 'bindings'> & Partial<Pick<Row, 'values' | 'bindings'>>): ConfigurationView {
  const missing = (part: string) => () => {
    throw new Error(`Configuration ${row.id}: ${part} was not read for this list (configurations.ts, ConfigurationReads)`);
  };
  const view = { id: row.id, namespaceId: row.namespaceId, name: row.name, generation: row.generation, createdAt: row.createdAt, updatedAt: row.updatedAt } as ConfigurationView;
  if (row.values !== undefined) view.values = row.values as Record<string, unknown>;
  else Object.defineProperty(view, 'values', { get: missing('values'), enumerable: false });
  if (row.bindings !== undefined) {
    view.secretBindings = [...row.bindings]
      .sort((a, b) => a.envName.localeCompare(b.envName))
      .map((b) => {
        const binding: BindingView = { envName: b.envName, source: { kind: 'secret', namespaceId: row.namespaceId, id: b.secretId }, delivery: { type: b.deliveryType as 'env' } };
        if (b.joined) binding.joined = b.joined;
        return binding;
      });
  } else Object.defineProperty(view, 'secretBindings', { get: missing('secretBindings'), enumerable: false });
  return view;
}

const withBindings = { bindings: { select: { envName: true, secretId: true, deliveryType: true } } } as const;

/** A configuration `c`'s bindings as one JSON column, as withBindings reads them (the read path, db/sql.ts). */
const BINDINGS_COLUMN = sql`COALESCE((SELECT json_agg(json_build_object('envName', b."envName", 'secretId', b."secretId", 'deliveryType', b."deliveryType"))
  FROM "public"."ConfigurationSecretBinding" b WHERE b."configurationId" = c."id"), '[]'::json) AS bindings`;
const SCALAR_COLUMNS = sql`c."id", c."namespaceId", c."name", c."generation", c."createdAt", c."updatedAt"`;

/** The columns of a configuration `c` that a view needs, with the parts `reads` asks for. */
function configurationColumns(reads: ConfigurationReads): Sql {
  return join([SCALAR_COLUMNS, ...(reads.values ? [sql`c."values"`] : []), ...(reads.secretBindings ? [BINDINGS_COLUMN] : [])], ', ');
}
const CONFIGURATION_COLUMNS = configurationColumns({ values: true, secretBindings: true });

/** What a statement that reads another table's rows reads of each one's configuration: ConfigurationReads, and the bindings' secrets. */
export interface JoinedConfigurationReads extends ConfigurationReads {
  /** Each binding's secret, with these of its columns (only with secretBindings), or none. */
  secrets: ReadonlyArray<keyof SecretRow> | null;
}

const SCALARS = ['id', 'namespaceId', 'name', 'generation', 'createdAt', 'updatedAt'] as const;
const BINDING_COLUMNS = ['envName', 'secretId', 'deliveryType'] as const;

/** A secret's id and namespace (which decide whether the caller may read it), then the columns asked for. */
function secretColumns(asked: ReadonlyArray<keyof SecretRow>): Array<keyof SecretRow> {
  return ['id', 'namespaceId', ...SECRET_COLUMNS.filter((c) => c !== 'id' && c !== 'namespaceId' && asked.includes(c))];
}

/**
 * The joins and columns that read, beside each row of a statement, the configuration whose id is
 * `on` (alias c), its bindings (b, one row each) and their secrets (s), as `reads` asks; and `view`,
 * which reads them back: given one row of the statement once per binding, the configuration, null
 * when there is none or the caller may not read it (`readable`), each binding's secret null when
 * the caller may not read that. The view throws if a part `reads` did not ask for is used.
 */
export function configurationJoin(
  on: Sql,
  reads: JoinedConfigurationReads,
  readable: { configuration: ReadableSet; secret: ReadableSet },
): { columns: Sql; from: Sql; view: (rows: ReadonlyArray<Record<string, unknown>>) => ConfigurationView | null } {
  const scalars = reads.values ? [...SCALARS, 'values'] : SCALARS;
  const bindings = reads.secretBindings;
  const secrets = bindings && reads.secrets ? secretColumns(reads.secrets) : null;
  const view = (rows: ReadonlyArray<Record<string, unknown>>): ConfigurationView | null => {
    const first = rows[0] && unprefixed<Omit<Row, 'bindings'>>(rows[0], 'c', scalars);
    if (!first || !covers(readable.configuration, first)) return null;
    if (!bindings) return toPartialView(first);
    const read: Row['bindings'] = [];
    for (const row of rows) {
      const binding = unprefixed<Row['bindings'][number]>(row, 'b', BINDING_COLUMNS);
      if (!binding) continue;
      if (secrets) {
        const secret = unprefixed<SecretRow>(row, 's', secrets);
        binding.joined = { secret: secret && covers(readable.secret, secret) ? toPartialSecretView(secret) : null };
      }
      read.push(binding);
    }
    return toPartialView({ ...first, bindings: read });
  };
  return {
    columns: join([prefixed('c', scalars), ...(bindings ? [prefixed('b', BINDING_COLUMNS)] : []), ...(secrets ? [prefixed('s', secrets)] : [])], ', '),
    from: sql`LEFT JOIN "public"."Configuration" c ON c."id" = ${on}
      ${bindings ? sql`LEFT JOIN "public"."ConfigurationSecretBinding" b ON b."configurationId" = c."id"` : empty}
      ${secrets ? sql`LEFT JOIN "public"."Secret" s ON s."id" = b."secretId"` : empty}`,
    view,
  };
}

const CONFIGURATION_TABLE = sql`"public"."Configuration" c`;

/** Configurations with their bindings, by id, in one statement. */
export async function configurationsById(db: Db | Tx, ids: readonly string[]): Promise<ConfigurationView[]> {
  const rows = await sqlRows<Row>(db, sql`SELECT ${CONFIGURATION_COLUMNS} FROM ${CONFIGURATION_TABLE} WHERE c."id" = ANY(${[...ids]}::text[])`);
  return rows.map(toConfigurationView);
}

/**
 * C3 and C4: every source is a secret of this namespace (another namespace's is NOT_FOUND), and
 * the actor may `operate` each one. Runs under the namespace lock, so a secret cannot be deleted
 * between this check and the commit.
 */
export async function requireOperableSecrets(deps: Deps, tx: Tx, actor: Actor, namespaceId: string, secretIds: readonly string[]): Promise<void> {
  const unique = [...new Set(secretIds)];
  if (unique.length === 0) return;
  const found = await tx.secret.findMany({ where: { id: { in: unique.filter((id) => isId('secret', id)) }, namespaceId }, select: { id: true } });
  const present = new Set(found.map((s) => s.id));
  const missing = unique.find((id) => !present.has(id));
  if (missing !== undefined) throw new NotFoundError(isId('secret', missing) ? `No secret ${missing} in this namespace.` : 'No such secret in this namespace.');
  // A secret the caller may not read is as missing as one that does not exist (P6).
  for (const id of unique) {
    const read = { action: 'read', resourceKind: 'secret', namespaceId, resourceId: id } as const;
    await authorizeVisible(deps, actor, { ...read, action: 'operate' }, [read], tx, `No secret ${id} in this namespace.`);
  }
}

function bindingsOrThrow(namespaceId: string, input: readonly SecretBindingInput[]): SecretBinding[] {
  const bindings = normalizeSecretBindings(namespaceId, input);
  const foreign = bindings.find((b) => b.source.namespaceId !== namespaceId);
  if (foreign) throw new NotFoundError('No such secret in this namespace.');
  return bindings;
}

export async function createConfiguration(
  deps: Deps,
  actor: Actor,
  input: { namespaceId: string; name: string; values?: unknown; secretBindings?: readonly SecretBindingInput[] | null },
): Promise<ConfigurationView> {
  const invalid = validateResourceName(input.name, 'configuration') ?? validateConfigurationValues(input.values);
  if (invalid) throw invalid;
  const bindings = bindingsOrThrow(input.namespaceId, input.secretBindings ?? []);
  await kinds.require(deps, actor, 'namespace', input.namespaceId);
  const request = capabilityRequest('namespace', 'createConfiguration', { id: input.namespaceId });
  await authorize(deps, actor, request);
  const id = newId('configuration');
  return transaction(deps.db, async (tx) => {
    if (!(await lockNamespace(tx, input.namespaceId))) throw new NotFoundError('No such namespace.');
    await authorize(deps, actor, request, tx);
    await requireOperableSecrets(deps, tx, actor, input.namespaceId, bindings.map((b) => b.source.id));
    if (await tx.configuration.findUnique({ where: { namespaceId_name: { namespaceId: input.namespaceId, name: input.name } } })) {
      throw new ConflictError(`A configuration named ${input.name} exists in this namespace.`, 'NAME_TAKEN');
    }
    const row = await tx.configuration.create({
      data: {
        id,
        namespaceId: input.namespaceId,
        name: input.name,
        values: input.values as object,
        createdById: actor.principalId,
        bindings: { create: bindings.map((b) => ({ envName: b.envName, secretId: b.source.id, deliveryType: b.delivery.type })) },
      },
      include: withBindings,
    });
    await recordGeneration(tx, row, actor.principalId);
    await audit(tx, {
      actorId: actor.principalId,
      action: 'configuration.create',
      resourceKind: 'configuration',
      resourceId: id,
      namespaceId: input.namespaceId,
      outcome: 'SUCCESS',
      details: { name: input.name, generation: 1, bindings: bindings.map((b) => ({ envName: b.envName, secretId: b.source.id })) },
    });
    return toConfigurationView(row);
  });
}

/**
 * C4, C5: needs the generation the caller read; omitted bindings are retained (and re-checked),
 * an empty list clears them.
 */
export async function updateConfiguration(
  deps: Deps,
  actor: Actor,
  input: { id: string; expectedGeneration: number; values?: unknown; secretBindings?: readonly SecretBindingInput[] | null },
): Promise<ConfigurationView> {
  const existing = await kinds.require(deps, actor, 'configuration', input.id);
  if (input.values !== undefined && input.values !== null) {
    const invalid = validateConfigurationValues(input.values);
    if (invalid) throw invalid;
  }
  const replacing = input.secretBindings !== undefined && input.secretBindings !== null;
  const newBindings = replacing ? bindingsOrThrow(existing.namespaceId, input.secretBindings!) : null;
  const request = capabilityRequest('configuration', 'update', existing);
  await authorize(deps, actor, request);
  return transaction(deps.db, async (tx) => {
    await lockNamespace(tx, existing.namespaceId);
    await authorize(deps, actor, request, tx);
    const current = await tx.configuration.findUnique({ where: { id: existing.id }, include: withBindings });
    if (!current) throw new NotFoundError('No such configuration.');
    if (current.generation !== input.expectedGeneration) {
      throw new ConflictError(`The configuration is at generation ${current.generation}, not ${input.expectedGeneration}: read it again and retry.`, 'STALE_GENERATION');
    }
    const resulting = newBindings ?? toConfigurationView(current).secretBindings;
    await requireOperableSecrets(deps, tx, actor, existing.namespaceId, resulting.map((b) => b.source.id));
    if (newBindings) {
      await tx.configurationSecretBinding.deleteMany({ where: { configurationId: current.id } });
      await tx.configurationSecretBinding.createMany({
        data: newBindings.map((b) => ({ configurationId: current.id, envName: b.envName, secretId: b.source.id, deliveryType: b.delivery.type })),
      });
    }
    const row = await tx.configuration.update({
      where: { id: current.id },
      data: { generation: { increment: 1 }, ...(input.values != null ? { values: input.values as object } : {}) },
      include: withBindings,
    });
    await recordGeneration(tx, row, actor.principalId);
    await audit(tx, {
      actorId: actor.principalId,
      action: 'configuration.update',
      resourceKind: 'configuration',
      resourceId: row.id,
      namespaceId: row.namespaceId,
      outcome: 'SUCCESS',
      details: { generation: row.generation, valuesChanged: input.values != null, bindings: resulting.map((b) => ({ envName: b.envName, secretId: b.source.id })) },
    });
    return toConfigurationView(row);
  });
}

/**
 * A page of the namespace's configurations the actor may read. Each row's values document and
 * bindings are read only when `reads` asks for them (a list of names and generations reads
 * neither); the rows' views throw if a part that was not read is used.
 */
export async function listConfigurations(
  deps: Deps,
  actor: Actor,
  namespaceId: string,
  page: PageRequest,
  filter: { namePrefix?: string | null } = {},
  reads: ConfigurationReads = { values: true, secretBindings: true },
): Promise<PageOf<ConfigurationView>> {
  const readable = await readableBy(deps.db, actor, 'configuration');
  const where = and([sql`"namespaceId" = ${namespaceId}`, namePrefixSql(filter.namePrefix)]);
  const visible = visibleWithin(readableScopes(readable), '"namespaceId"', namespaceId);
  return sqlKeysetPage(deps.db, page, { columns: configurationColumns(reads), table: CONFIGURATION_TABLE, where, visible }, toPartialView);
}
