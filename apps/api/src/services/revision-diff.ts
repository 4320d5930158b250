import { NotFoundError, ValidationError } from '@occ/domain/errors';
import type { RevisionSecretPurpose } from '@occ/domain/revision';
import { check } from './access.ts';
import type { Actor, Deps } from './deps.ts';
import { type RevisionView } from './revisions.ts';
import { toSelfConfigRequestView, type SelfConfigRequestView } from './selfconfig-requests.ts';
import { kinds } from './resource-kinds.ts';

// V7 AgentRevision.diff(against): what changed from `against` (before) to this revision (after).
// Configuration values are compared as the frozen document holds them (references, never a
// secret value); bindings by env name; versions per binding; and the SelfConfig requests applied
// to the agent's instance between the two revisions' deploys, from the SelfConfig history
// (the agent's own changes, which a revision does not freeze).

export type ChangeKind = 'added' | 'removed' | 'changed';

export interface ValueChange {
  path: string[];
  change: ChangeKind;
  before: unknown;
  after: unknown;
}

export interface BindingEnd {
  secretId: string;
  version: number;
}

export interface BindingChange {
  purpose: RevisionSecretPurpose;
  envName: string;
  change: 'added' | 'removed' | 'retargeted';
  before: BindingEnd | null;
  after: BindingEnd | null;
}

export interface VersionChange {
  purpose: RevisionSecretPurpose;
  envName: string;
  secretId: string;
  fromVersion: number;
  toVersion: number;
}

export interface RevisionDiff {
  from: RevisionView;
  to: RevisionView;
  configurationChanged: boolean;
  values: ValueChange[];
  bindings: BindingChange[];
  versions: VersionChange[];
  selfConfigRequests: SelfConfigRequestView[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Leaves and arrays compare whole; objects recurse, so a change names the deepest key that changed. */
export function diffValues(before: unknown, after: unknown, path: string[] = []): ValueChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => {
      if (!(k in after)) return [{ path: [...path, k], change: 'removed' as const, before: before[k], after: null }];
      if (!(k in before)) return [{ path: [...path, k], change: 'added' as const, before: null, after: after[k] }];
      return diffValues(before[k], after[k], [...path, k]);
    });
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ path, change: 'changed', before, after }];
}

export function diffRevisions(from: RevisionView, to: RevisionView, selfConfigRequests: SelfConfigRequestView[]): RevisionDiff {
  const key = (s: { purpose: string; envName: string }) => `${s.purpose}:${s.envName}`;
  const before = new Map(from.secrets.map((s) => [key(s), s]));
  const after = new Map(to.secrets.map((s) => [key(s), s]));
  const bindings: BindingChange[] = [];
  const versions: VersionChange[] = [];
  for (const k of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const b = before.get(k);
    const a = after.get(k);
    const end = (s: typeof a) => (s ? { secretId: s.source.id, version: s.version } : null);
    const { purpose, envName } = (a ?? b)!;
    if (!b) bindings.push({ purpose, envName, change: 'added', before: null, after: end(a) });
    else if (!a) bindings.push({ purpose, envName, change: 'removed', before: end(b), after: null });
    else if (a.source.id !== b.source.id) bindings.push({ purpose, envName, change: 'retargeted', before: end(b), after: end(a) });
    else if (a.version !== b.version) versions.push({ purpose, envName, secretId: a.source.id, fromVersion: b.version, toVersion: a.version });
  }
  return {
    from,
    to,
    configurationChanged: from.configurationId !== to.configurationId || from.configurationGeneration !== to.configurationGeneration,
    values: diffValues(from.values ?? {}, to.values ?? {}),
    bindings,
    versions,
    selfConfigRequests,
  };
}

/**
 * `revision` (read by the caller) against another revision of the same agent. One the caller may
 * not read is NOT_FOUND (P6); one of another agent is refused. The SelfConfig history is the
 * agent's: shown when the caller may read the agent (its history's own rule), else left out.
 */
export async function revisionDiff(deps: Deps, actor: Actor, revision: RevisionView, againstId: string): Promise<RevisionDiff> {
  const against = await kinds.get(deps, actor, 'agentRevision', againstId);
  if (!against) throw new NotFoundError('No such revision.');
  if (against.agentId !== revision.agentId) throw new ValidationError('REVISION_OF_ANOTHER_AGENT', 'Revisions diff only against another revision of the same agent.', 'against');
  const [start, end] = [against.createdAt, revision.createdAt].sort((x, y) => x.getTime() - y.getTime());
  const readsAgent = (await check(deps.db, actor, { action: 'read', resourceKind: 'agent', namespaceId: revision.namespaceId, resourceId: revision.agentId })).allowed;
  const rows = readsAgent
    ? await deps.db.selfConfigRequest.findMany({
        where: { agentId: revision.agentId, phase: 'Applied', completedAt: { gte: start, lte: end } },
        orderBy: [{ completedAt: 'asc' }, { id: 'asc' }],
      })
    : [];
  return diffRevisions(against, revision, rows.map(toSelfConfigRequestView));
}
