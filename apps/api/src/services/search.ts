import { ValidationError } from '@occ/domain/errors';
import { describeTextProblem, textProblem } from '@occ/domain/text';
import { and, join, raw, sql, sqlRows, type Sql } from '../db/sql.ts';
import { readableBy } from './access.ts';
import type { Actor, Deps } from './deps.ts';
import { readableScopes, visibleSql } from './pagination.ts';
import { visibleUsersSql } from './users.ts';

// Search by name across the kinds a person looks for (the console's command palette): namespaces,
// secrets, configurations, agents and users, each read as its own list is read, so that a name the
// reader may not read is never found (P6: no existence oracle, here no name oracle either).

export const SEARCH_KINDS = ['namespace', 'secret', 'configuration', 'agent', 'user'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export interface SearchHit {
  kind: SearchKind;
  id: string;
  name: string;
  /** The namespace that holds it; null for namespaces and users. */
  namespaceId: string | null;
  /** 0 the whole name, 1 its start, 2 elsewhere in it (case ignored): the order hits come in. */
  rank: number;
}

/** At most this many hits in all; by default this many. */
export const SEARCH_MAX = 50;
export const SEARCH_DEFAULT = 20;
/** Longer than any name (253 characters, Kubernetes' limit, is the longest the product stores). */
const TEXT_MAX = 253;

/** Each kind's table; `user` is a human principal. */
const TABLES: Record<SearchKind, string> = { namespace: 'Namespace', secret: 'Secret', configuration: 'Configuration', agent: 'Agent', user: 'Principal' };

/** What is wrong with a search's input, naming the field; null when nothing is. */
export function searchProblem(input: { text: string; first?: number | null }): { field: string; message: string } | null {
  const text = input.text.trim();
  if (text.length === 0) return { field: 'text', message: 'Type part of a name to search for.' };
  const problem = textProblem(text);
  if (problem) return { field: 'text', message: `text contains ${describeTextProblem(problem)}.` };
  if (text.length > TEXT_MAX) return { field: 'text', message: `text is longer than any name (${TEXT_MAX} characters).` };
  const first = input.first ?? SEARCH_DEFAULT;
  if (!Number.isInteger(first) || first < 1 || first > SEARCH_MAX) return { field: 'first', message: `first must be 1 to ${SEARCH_MAX}.` };
  return null;
}

/**
 * The names that contain `text` (case ignored), at most `first` in all: whole names first, then
 * names that start with it, then the rest, each group by name in code-point order (then kind and
 * id: the same answer on every server, whatever its collation). Only rows the actor may read: the
 * same readable sets as the lists (a namespace's rows, granted rows), and users for those who may
 * read the installation (anyone else finds only themself, as the users list shows them).
 */
export async function search(deps: Deps, actor: Actor, input: { text: string; kinds?: readonly SearchKind[] | null; first?: number | null }): Promise<SearchHit[]> {
  const problem = searchProblem(input);
  if (problem) throw new ValidationError('INVALID_SEARCH', problem.message, problem.field);
  const text = input.text.trim();
  const first = input.first ?? SEARCH_DEFAULT;
  const kinds = [...new Set(input.kinds && input.kinds.length > 0 ? input.kinds : SEARCH_KINDS)];

  const needle = text.toLowerCase();
  const branches: Sql[] = [];
  for (const kind of kinds) {
    // Who may read which rows of the kind, as its list reads them (P6).
    const visible =
      kind === 'user'
        ? and([sql`t.kind = 'HUMAN'`, await visibleUsersSql(deps, actor, 't')])
        : visibleSql(readableScopes(await readableBy(deps.db, actor, kind), kind === 'namespace' ? '"id"' : '"namespaceId"'), 't');
    const namespaceId = kind === 'namespace' || kind === 'user' ? sql`NULL::text` : sql`t."namespaceId"`;
    branches.push(
      sql`(SELECT ${kind}::text AS kind, t.id, t.name, ${namespaceId} AS "namespaceId",
                  (CASE WHEN lower(t.name) = ${needle} THEN 0 WHEN starts_with(lower(t.name), ${needle}) THEN 1 ELSE 2 END) AS rank
           FROM ${raw(`"public"."${TABLES[kind]}"`)} t
           WHERE ${and([sql`strpos(lower(t.name), ${needle}) > 0`, visible])} ORDER BY rank, t.name COLLATE "C", t.id LIMIT ${first})`,
    );
  }
  // Each kind's best `first`, then the best `first` of those: one statement.
  const rows = await sqlRows<SearchHit>(deps.db, sql`SELECT * FROM (${join(branches, ' UNION ALL ')}) hits ORDER BY rank, name COLLATE "C", kind, id LIMIT ${first}`);
  return rows.map((r) => ({ ...r, rank: Number(r.rank) }));
}
