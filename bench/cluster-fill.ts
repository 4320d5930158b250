// A filled embedded cluster for the benches, without the minutes of requests filling it would take:
// the data file (persistence-format.ts's snapshot) an emulator would have written after `count`
// ConfigMaps were created in 50 namespaces, each object with the metadata a server stamps.

import { collectionsOf, snapshotText } from '../packages/kube-emulator/src/persistence-format.ts';

export interface FilledConfigMap {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  data: Record<string, string>;
}

/** The snapshot's text: namespaces `${prefix}0` … `${prefix}49`, then `configMap(i)` for each i below `count`. */
export function filledDataFile(count: number, namespacePrefix: string, configMap: (i: number) => FilledConfigMap): string {
  const at = '2026-12-04T00:00:00Z';
  let rv = 0;
  const namespaces = Array.from({ length: 50 }, (_, n) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: `${namespacePrefix}${n}`, uid: `ns-uid-${n}`, resourceVersion: String(++rv), creationTimestamp: at },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  }));
  const configmaps = Array.from({ length: count }, (_, i) => {
    const object = configMap(i);
    return { ...object, metadata: { ...object.metadata, uid: `cm-uid-${i}`, resourceVersion: String(++rv), creationTimestamp: at } };
  });
  return snapshotText(rv, collectionsOf({ namespaces, configmaps }));
}
