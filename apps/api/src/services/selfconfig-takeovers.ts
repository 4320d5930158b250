import { describeTakeover, type Takeover } from '@occ/domain/composition';
import type { Tx } from '../db/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { audit } from './audit.ts';

// RC3: a deploy that takes an item the agent set records it: an audit entry, and the SelfConfig
// request that set the item gets "overridden by revision N" in its history (the event on the
// instance is the compute driver's). Names and times only, never a value.

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The key paths a stored configPatch sets (a null removes, and sets nothing); iterative (SG5). */
function patchPaths(patch: unknown): string[][] {
  const out: string[][] = [];
  const stack: Array<[unknown, string[]]> = [[patch, []]];
  while (stack.length > 0) {
    const [node, prefix] = stack.pop()!;
    if (!isObject(node)) continue;
    for (const [key, value] of Object.entries(node)) {
      if (value === null) continue;
      if (isObject(value) && Object.keys(value).length > 0) stack.push([value, [...prefix, key]]);
      else out.push([...prefix, key]);
    }
  }
  return out;
}

const related = (a: readonly string[], b: readonly string[]) => a.slice(0, Math.min(a.length, b.length)).every((k, i) => b[i] === k);

/** Whether a stored request (history's shape: names, skills and the configPatch) set the item. */
export function requestSetItem(request: unknown, takeover: Takeover): boolean {
  const r = isObject(request) ? request : {};
  const names = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  switch (takeover.kind) {
    case 'envVar':
      return names(r.addEnvVars).includes(takeover.name);
    case 'workspaceFile':
      return names(r.addWorkspaceFiles).includes(takeover.name);
    case 'config':
      return patchPaths(r.configPatch).some((p) => related(p, takeover.path ?? []));
  }
}

export async function recordTakeovers(
  tx: Tx,
  revision: { id: string; agentId: string; namespaceId: string; number: number },
  takeovers: readonly Takeover[],
  at: Date,
): Promise<void> {
  if (takeovers.length === 0) return;
  const requests = await tx.selfConfigRequest.findMany({
    where: { agentId: revision.agentId, phase: 'Applied' },
    orderBy: [{ completedAt: 'desc' }, { createdAt: 'desc' }],
    take: 200,
    select: { id: true, request: true, overriddenBy: true },
  });
  const byRequest = new Map<string, string[]>();
  const items = takeovers.map((t) => {
    const setBy = requests.find((r) => requestSetItem(r.request, t));
    if (setBy) byRequest.set(setBy.id, [...(byRequest.get(setBy.id) ?? []), describeTakeover(t, true)]);
    return { kind: t.kind, name: t.name, action: t.action, setAt: t.setAt, requestId: setBy?.id ?? null };
  });
  for (const [id, lines] of byRequest) {
    const request = requests.find((r) => r.id === id)!;
    const previous = Array.isArray(request.overriddenBy) ? request.overriddenBy : [];
    const entry = { revisionId: revision.id, number: revision.number, items: lines, at: at.toISOString() };
    await tx.selfConfigRequest.update({ where: { id }, data: { overriddenBy: [...previous, entry] as Prisma.InputJsonValue } });
  }
  await tx.agentRevision.update({ where: { id: revision.id }, data: { takeovers: items as Prisma.InputJsonValue } });
  await audit(tx, {
    actorId: null,
    system: 'worker',
    action: 'revision.takeover',
    resourceKind: 'agentRevision',
    resourceId: revision.id,
    namespaceId: revision.namespaceId,
    outcome: 'SUCCESS',
    details: { agentId: revision.agentId, number: revision.number, takeovers: items },
  });
}
