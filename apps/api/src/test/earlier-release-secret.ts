import { SECRET_VERSION_LABEL } from '@occ/domain/kubernetes-names';
import type { TestStack } from './stack.ts';

/**
 * Makes a secret's current version object what an earlier release wrote and the V1 migration
 * recorded: a mutable Secret (no `immutable`, no version label) under the same name, labels and
 * bytes, recorded on the Secret and its version row. Only such an object can have its bytes changed
 * in place (kubectl edit), which the RC4 tests need; every version object written since V1 is
 * immutable and the API server refuses the edit. Answers the object's new uid.
 */
export async function asEarlierReleaseSecret(stack: TestStack, secretId: string): Promise<string> {
  const db = stack.runtime.db;
  const row = await db.secret.findUniqueOrThrow({ where: { id: secretId } });
  const live = await stack.core.readNamespacedSecret({ name: row.backendName, namespace: row.backendNamespace });
  const { [SECRET_VERSION_LABEL]: _version, ...labels } = live.metadata?.labels ?? {};
  await stack.core.deleteNamespacedSecret({ name: row.backendName, namespace: row.backendNamespace });
  const made = await stack.core.createNamespacedSecret({
    namespace: row.backendNamespace,
    body: { metadata: { name: row.backendName, labels, annotations: live.metadata?.annotations ?? {} }, type: live.type ?? 'Opaque', data: live.data ?? {} },
    fieldManager: 'occ-controller',
  });
  const uid = made.metadata!.uid!;
  await db.$transaction([
    db.secret.update({ where: { id: secretId }, data: { backendUid: uid } }),
    db.secretVersion.updateMany({ where: { secretId, backendUid: row.backendUid }, data: { backendUid: uid } }),
  ]);
  return uid;
}
