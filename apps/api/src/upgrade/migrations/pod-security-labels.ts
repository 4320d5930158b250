import { POD_SECURITY_LABELS } from '../../drivers/kubernetes-namespaces.ts';
import type { KubeMigration, KubeMigrationReport } from '../kube-migrations.ts';
import { label, ownNamespaces } from './installation-labels.ts';

// Release 2026.12.04.2 labelled the namespaces it made `pod-security.kubernetes.io/enforce:
// restricted` (its gateways satisfy the profile) and left the namespaces made before it as they
// were. This step labels those: each namespace a Namespace row names that is this installation's
// (as the installation-labels step judges it) and carries no enforce label. A namespace with an
// enforce label of any value is left: an operator set it (the product sets both labels together, so
// an enforce-version alone does not count as set). Running gateways are not touched: Pod Security
// judges Pods when they are created, and the reconciler has rolled every gateway to the restricted
// template by the first reconcile after 2026.12.04.2.

const ENFORCE = 'pod-security.kubernetes.io/enforce';

export const podSecurityLabelsMigration: KubeMigration = {
  id: '2026-12-04-pod-security-labels',
  summary: `labels the namespaces made before 2026.12.04.2 ${ENFORCE}: restricted, as the namespaces made since are; one with an enforce label of any value is left as the operator set it`,
  async run(context) {
    const report: KubeMigrationReport = { examined: 0, changed: 0, skipped: [] };
    for await (const { row, live } of ownNamespaces(context, report)) {
      const enforce = live.metadata?.labels?.[ENFORCE];
      if (enforce !== undefined) {
        if (enforce !== POD_SECURITY_LABELS[ENFORCE]) report.skipped.push({ kind: 'Namespace', namespace: '', name: row.k8sName, reason: `${ENFORCE} is ${JSON.stringify(enforce)}, set by an operator; left as it is` });
        continue;
      }
      if (await label(context, { ...live, apiVersion: 'v1', kind: 'Namespace' }, { ...POD_SECURITY_LABELS })) report.changed += 1;
    }
    return report;
  },
};
