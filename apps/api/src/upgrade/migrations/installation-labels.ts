import type { KubernetesObject } from '@kubernetes/client-node';
import { uuidOf } from '@occ/domain/ids';
import { INSTALLATION_ID_LABEL, MANAGED_BY, MANAGED_BY_LABEL, NAMESPACE_ID_LABEL, SECRET_ID_LABEL } from '@occ/domain/kubernetes-names';
import { classifyKubeError } from '../../kube/errors.ts';
import { listObjects, mergePatch, readObject, type KubeMigration, type KubeMigrationContext, type KubeMigrationReport } from '../kube-migrations.ts';

// R3 came with the release of 2026-11-30: every object an installation writes carries
// openclaw.rocks/installation-id, and every identity check (D3) requires it. Releases before it
// labelled their namespaces and objects with managed-by and namespace-id only, so their Secrets
// failed D3 as if replaced ("label openclaw.rocks/installation-id is null"). This step labels them.
//
// What counts as this installation's: a Kubernetes namespace a Namespace row names whose labels say
// managed-by this product and that row's namespace id, with no installation id or ours; in it, each
// object managed by this product whose namespace-id label (when it has one) is that namespace's.
// A Secret a row records is labelled only when its uid is the recorded one: one someone replaced
// keeps failing D3, as it should. An object already labelled for another installation is left.

/** The kinds an earlier release could have written into a tenant namespace. */
const KINDS: ReadonlyArray<{ apiVersion: string; kind: string }> = [
  { apiVersion: 'v1', kind: 'Secret' },
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'ServiceAccount' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance' },
];

export const installationLabelsMigration: KubeMigration = {
  id: '2026-12-03-installation-labels',
  summary: 'labels the namespaces and objects written before the installation id (R3) with openclaw.rocks/installation-id, so D3 takes them as this installation\'s',
  async run(context) {
    const report: KubeMigrationReport = { examined: 0, changed: 0, skipped: [] };
    const recorded = new Map(
      (await context.query<{ id: string; backendNamespace: string; backendName: string; backendUid: string }>('SELECT id, "backendNamespace", "backendName", "backendUid" FROM "Secret"')).map((r) => [`${r.backendNamespace}/${r.backendName}`, r]),
    );
    for await (const { row, live, namespaceUuid } of ownNamespaces(context, report)) {
      if (await label(context, live, { [INSTALLATION_ID_LABEL]: context.installationId })) report.changed += 1;
      for (const kind of KINDS) {
        for (const object of await listObjects(context.objects, kind.apiVersion, kind.kind, row.k8sName, `${MANAGED_BY_LABEL}=${MANAGED_BY}`)) {
          report.examined += 1;
          const name = object.metadata?.name ?? '';
          const why = foreignReason(object, namespaceUuid, context.installationId);
          if (why) {
            report.skipped.push({ kind: kind.kind, namespace: row.k8sName, name, reason: why });
            continue;
          }
          const secret = kind.kind === 'Secret' ? recorded.get(`${row.k8sName}/${name}`) : undefined;
          if (secret && secret.backendUid !== object.metadata?.uid) {
            report.skipped.push({ kind: 'Secret', namespace: row.k8sName, name, reason: `replaced: its uid is ${object.metadata?.uid}, the secret ${secret.id} recorded ${secret.backendUid}; D3 keeps refusing it` });
            continue;
          }
          const want: Record<string, string> = { [INSTALLATION_ID_LABEL]: context.installationId, [NAMESPACE_ID_LABEL]: namespaceUuid };
          if (secret) want[SECRET_ID_LABEL] = uuidOf(secret.id);
          if (await label(context, { ...object, apiVersion: kind.apiVersion, kind: kind.kind }, want)) report.changed += 1;
        }
      }
    }
    return report;
  },
};

/**
 * Each Namespace row's Kubernetes namespace that is this installation's, counted as examined; one
 * that is gone or not ours is listed in the report as skipped, with why.
 */
export async function* ownNamespaces(
  context: KubeMigrationContext,
  report: KubeMigrationReport,
): AsyncGenerator<{ row: { id: string; k8sName: string }; live: KubernetesObject; namespaceUuid: string }> {
  for (const row of await context.query<{ id: string; k8sName: string }>('SELECT id, "k8sName" FROM "Namespace" ORDER BY id')) {
    const namespaceUuid = uuidOf(row.id);
    const live = await readObject(context.objects, { apiVersion: 'v1', kind: 'Namespace', name: row.k8sName });
    report.examined += 1;
    if (!live) {
      report.skipped.push({ kind: 'Namespace', namespace: '', name: row.k8sName, reason: 'missing: the namespace is LOST; re-provisioning makes it anew, labelled' });
      continue;
    }
    const why = foreignReason(live, namespaceUuid, context.installationId);
    if (why) {
      report.skipped.push({ kind: 'Namespace', namespace: '', name: row.k8sName, reason: why });
      continue;
    }
    yield { row, live, namespaceUuid };
  }
}

/** Why an object is not this installation's to label, or null. */
function foreignReason(object: KubernetesObject, namespaceUuid: string, installationId: string): string | null {
  const labels = object.metadata?.labels ?? {};
  if (labels[MANAGED_BY_LABEL] !== MANAGED_BY) return `not managed by ${MANAGED_BY} (${MANAGED_BY_LABEL} is ${JSON.stringify(labels[MANAGED_BY_LABEL] ?? null)})`;
  const namespaceId = labels[NAMESPACE_ID_LABEL];
  if (namespaceId !== undefined && namespaceId !== namespaceUuid) return `another namespace's (${NAMESPACE_ID_LABEL} is ${JSON.stringify(namespaceId)})`;
  const installation = labels[INSTALLATION_ID_LABEL];
  if (installation !== undefined && installation !== installationId) return `another installation's (${INSTALLATION_ID_LABEL} is ${JSON.stringify(installation)})`;
  return null;
}

/**
 * Adds the labels an object lacks, with its resourceVersion as a precondition; a conflict re-reads
 * and tries again. False when it already had them (a step run again after a crash).
 */
export async function label(context: KubeMigrationContext, object: KubernetesObject, want: Record<string, string>): Promise<boolean> {
  let current: KubernetesObject | null = object;
  for (let attempt = 0; attempt < 5 && current; attempt++) {
    const labels = current.metadata?.labels ?? {};
    const missing = Object.fromEntries(Object.entries(want).filter(([key, value]) => labels[key] !== value));
    if (Object.keys(missing).length === 0) return false;
    const header: { apiVersion: string; kind: string; name: string; namespace: string } = { apiVersion: object.apiVersion!, kind: object.kind!, name: current.metadata!.name!, namespace: current.metadata?.namespace ?? '' };
    await context.beforeWrite(header);
    try {
      await context.objects.patch(
        { apiVersion: header.apiVersion, kind: header.kind, metadata: { name: header.name, ...(header.namespace ? { namespace: header.namespace } : {}), resourceVersion: current.metadata?.resourceVersion, labels: missing } },
        undefined,
        undefined,
        'occ-upgrade',
        undefined,
        mergePatch,
      );
      return true;
    } catch (error) {
      if (classifyKubeError(error).kind !== 'conflict') throw error;
      current = await readObject(context.objects, header.namespace ? header : { apiVersion: header.apiVersion, kind: header.kind, name: header.name });
    }
  }
  return false;
}
