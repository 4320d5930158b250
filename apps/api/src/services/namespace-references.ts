import type { AccessRequest } from '@occ/domain/access';
import { gatewayDeploymentName } from '@occ/domain/kubernetes-names';
import { LIVE_REVISION_STATES, buildReferenceGraph, type ReferenceGraph, type ReferenceRows } from '@occ/domain/reference-graph';
import type { RevisionState } from '@occ/domain/revision';
import type { Db, Tx } from '../db/client.ts';
import { sql, sqlRows } from '../db/sql.ts';
import { derivedStatusSql } from './agents.ts';
import { dbState, revisionState, type DbState } from './revisions.ts';

// Namespace.referenceGraph: a namespace's secrets, configurations, agents, live revisions and
// gateways as one graph (the console's references picture). Five statements for any number of
// namespaces (a page of them through the request's loader); the graph itself, what the reader
// may see of it and each node's health are the domain's (reference-graph.ts). Ids, names, env
// names, versions and states only: never a value, never a backend locator (S3, S4).

type MayRead = (request: Omit<AccessRequest, 'subjectId'>) => boolean;

type InNamespace<T> = T & { namespaceId: string };

const KIND = { secret: 'secret', configuration: 'configuration', agent: 'agent', revision: 'agentRevision' } as const;

/** The reference graph of each namespace, as `mayRead` lets the reader see it. */
export async function namespaceReferenceGraphs(db: Db | Tx, mayRead: MayRead, namespaceIds: readonly string[]): Promise<Map<string, ReferenceGraph>> {
  const ids = [...new Set(namespaceIds)];
  const live = LIVE_REVISION_STATES.map(dbState);
  const [secrets, configurations, bindings, agents, revisions] = await Promise.all([
    sqlRows<InNamespace<ReferenceRows['secrets'][number]>>(db, sql`SELECT s.id, s.name, s.version, s."namespaceId" FROM "public"."Secret" s WHERE s."namespaceId" = ANY(${ids}::text[])`),
    sqlRows<InNamespace<ReferenceRows['configurations'][number]>>(
      db,
      sql`SELECT c.id, c.name, c.generation, c."namespaceId" FROM "public"."Configuration" c WHERE c."namespaceId" = ANY(${ids}::text[])`,
    ),
    sqlRows<InNamespace<ReferenceRows['bindings'][number]>>(
      db,
      sql`SELECT b."configurationId", b."secretId", b."envName", c."namespaceId"
          FROM "public"."ConfigurationSecretBinding" b JOIN "public"."Configuration" c ON c.id = b."configurationId"
          WHERE c."namespaceId" = ANY(${ids}::text[]) ORDER BY b."envName"`,
    ),
    sqlRows<InNamespace<ReferenceRows['agents'][number]>>(
      db,
      sql`SELECT a.id, a.name, ${derivedStatusSql('a')} AS status, a."configurationId", a."harnessSecretId", a."namespaceId"
          FROM "public"."Agent" a WHERE a."namespaceId" = ANY(${ids}::text[])`,
    ),
    sqlRows<InNamespace<Omit<ReferenceRows['revisions'][number], 'state' | 'gatewayName'> & { state: DbState }>>(
      db,
      sql`SELECT r.id, r."agentId", r.number, r.state::text AS state, rs."secretId", rs.version, rs."envName", r."namespaceId"
          FROM "public"."AgentRevision" r LEFT JOIN "public"."AgentRevisionSecret" rs ON rs."revisionId" = r.id
          WHERE r."namespaceId" = ANY(${ids}::text[]) AND r.state::text = ANY(${live}::text[])
          ORDER BY r."agentId", r.number DESC, rs."envName"`,
    ),
  ]);

  const result = new Map<string, ReferenceGraph>();
  for (const namespaceId of ids) {
    const of = <T extends { namespaceId: string }>(rows: T[]) => rows.filter((r) => r.namespaceId === namespaceId);
    const rows: ReferenceRows = {
      secrets: of(secrets),
      configurations: of(configurations),
      bindings: of(bindings),
      agents: of(agents),
      revisions: of(revisions).map((r) => ({ ...r, state: revisionState(r.state) as RevisionState, gatewayName: gatewayDeploymentName(r.agentId) })),
    };
    result.set(
      namespaceId,
      buildReferenceGraph(rows, (kind, resourceId) => mayRead({ action: 'read', resourceKind: KIND[kind], namespaceId, resourceId })),
    );
  }
  return result;
}
