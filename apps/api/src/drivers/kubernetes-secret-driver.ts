import { randomBytes } from 'node:crypto';
import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { foreignDataOwners } from '@occ/domain/field-ownership';
import {
  backendIdentityMismatch,
  backendNotMigrated,
  FIELD_MANAGER,
  installationSelector,
  SECRET_VALUE_KEY,
  secretBackendName,
  secretLabels,
  SECRET_VERSION_LABEL,
} from '@occ/domain/kubernetes-names';
import {
  BackendConflict,
  BackendFailure,
  BackendIdentityChanged,
  BackendNamespaceMissing,
  BackendObjectMissing,
  BackendOutcomeUnknown,
  type CreateBackendSecret,
  type OwnedBackendObject,
  type ResolveResult,
  type SecretBackendRef,
  type SecretDriver,
} from '@occ/domain/secret-driver';
import { classifyKubeError, describeKubeFailure } from '../kube/errors.ts';
import type { SecretCache } from '../kube/secret-cache.ts';

export const KUBERNETES_SECRET_DRIVER_ID = 'kubernetes-secret/v1';

function randomSuffix(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(8), (b) => alphabet[b % alphabet.length]).join('');
}

/**
 * Rethrows a client-node failure as the port's error for its exact class, without its request
 * (which may hold the value) and without the Status message (which may quote it).
 */
function translate(error: unknown, what: string): never {
  const failure = classifyKubeError(error);
  switch (failure.kind) {
    case 'namespace-not-found':
      throw new BackendNamespaceMissing(failure.namespace);
    case 'conflict':
      throw new BackendConflict(`${what}: ${describeKubeFailure(failure)}`);
    case 'outcome-unknown':
      throw new BackendOutcomeUnknown(`${what}: ${describeKubeFailure(failure)}`);
    default:
      throw new BackendFailure(`${what}: ${describeKubeFailure(failure)}`);
  }
}

/**
 * Stores each version of a Secret's value in its own immutable Opaque Kubernetes Secret under the
 * fixed key `value` (S2, V1).
 * The caller never chooses the object's name, labels or key.
 */
export class KubernetesSecretDriver implements SecretDriver {
  readonly id = KUBERNETES_SECRET_DRIVER_ID;
  private readonly core: CoreV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly installationId: string,
    private readonly cache: SecretCache | null = null,
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  async create(input: CreateBackendSecret): Promise<SecretBackendRef> {
    const body: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: secretBackendName(input.namespaceId, input.secretId, randomSuffix()),
        labels: { ...secretLabels(input.namespaceId, input.secretId, this.installationId), [SECRET_VERSION_LABEL]: String(input.version) },
      },
      type: 'Opaque',
      // V1: the API server refuses any change of a version's bytes; a new value is a new object.
      immutable: true,
      data: { [SECRET_VALUE_KEY]: Buffer.from(input.value, 'utf8').toString('base64') },
    };
    let created: V1Secret;
    try {
      created = await this.core.createNamespacedSecret({ namespace: input.k8sNamespace, body, fieldManager: FIELD_MANAGER });
    } catch (error) {
      translate(error, 'creating the Kubernetes Secret');
    }
    const uid = created.metadata?.uid;
    const name = created.metadata?.name;
    if (!uid || !name) throw new BackendOutcomeUnknown('Kubernetes created the Secret but answered without its uid');
    return { k8sNamespace: input.k8sNamespace, name, key: SECRET_VALUE_KEY, uid };
  }

  async update(ref: SecretBackendRef, expected: { namespaceId: string; secretId: string }, value: string): Promise<void> {
    const live = await this.read(ref);
    if (!live) throw await this.whyMissing(ref);
    const identity = { ...expected, installationId: this.installationId, uid: ref.uid };
    const mismatch = backendIdentityMismatch(live.metadata ?? {}, identity);
    if (mismatch) throw new BackendIdentityChanged(mismatch, backendNotMigrated(live.metadata ?? {}, identity) !== null);
    const body: V1Secret = {
      ...live,
      // resourceVersion makes the replace conditional: a concurrent writer makes it a 409.
      metadata: { ...live.metadata, resourceVersion: live.metadata?.resourceVersion },
      data: { ...live.data, [ref.key]: Buffer.from(value, 'utf8').toString('base64') },
    };
    delete (body as { stringData?: unknown }).stringData;
    try {
      await this.core.replaceNamespacedSecret({ name: ref.name, namespace: ref.k8sNamespace, body, fieldManager: FIELD_MANAGER });
    } catch (error) {
      // Deleted between the read and the replace: say which of the two is gone.
      if (classifyKubeError(error).kind === 'object-not-found') throw await this.whyMissing(ref);
      translate(error, 'updating the Kubernetes Secret');
    }
  }

  /** A read answered 404 for the object: a real API server does so whether or not its namespace exists. */
  private async whyMissing(ref: SecretBackendRef): Promise<Error> {
    try {
      await this.core.readNamespace({ name: ref.k8sNamespace });
      return new BackendObjectMissing(ref.k8sNamespace, ref.name);
    } catch (error) {
      const failure = classifyKubeError(error);
      if (failure.kind === 'object-not-found' || failure.kind === 'namespace-not-found') return new BackendNamespaceMissing(ref.k8sNamespace);
      return new BackendFailure(`reading the Kubernetes namespace: ${describeKubeFailure(failure)}`);
    }
  }

  async delete(ref: SecretBackendRef): Promise<'deleted' | 'missing'> {
    try {
      await this.core.deleteNamespacedSecret({
        name: ref.name,
        namespace: ref.k8sNamespace,
        body: { preconditions: { uid: ref.uid } },
      });
      return 'deleted';
    } catch (error) {
      const failure = classifyKubeError(error);
      if (failure.kind === 'object-not-found' || failure.kind === 'namespace-not-found') return 'missing';
      // A uid precondition failure means the name now belongs to another object: ours is gone,
      // and the foreign one is never deleted (S7).
      if (failure.kind === 'conflict' && failure.precondition) return 'missing';
      translate(error, 'deleting the Kubernetes Secret');
    }
  }

  async resolve(ref: SecretBackendRef, expected: { namespaceId: string; secretId: string }, options: { cached?: boolean } = {}): Promise<ResolveResult> {
    const cached = options.cached ? await this.cache?.lookup(ref.k8sNamespace, ref.name) : null;
    if (cached && !backendIdentityMismatch(cached.metadata, { ...expected, installationId: this.installationId, uid: ref.uid }) && cached.keys.includes(ref.key)) {
      return { state: 'present', ref, resourceVersion: cached.metadata.resourceVersion ?? '', outsideWriters: foreignDataOwners(cached.metadata.managedFields, FIELD_MANAGER) };
    }
    const live = await this.read(ref);
    if (!live) return { state: 'missing' };
    const identity = { ...expected, installationId: this.installationId, uid: ref.uid };
    const mismatch = backendIdentityMismatch(live.metadata ?? {}, identity);
    if (mismatch) return { state: 'mismatch', reason: mismatch, notMigrated: backendNotMigrated(live.metadata ?? {}, identity) !== null };
    if (live.data?.[ref.key] === undefined) return { state: 'mismatch', reason: `key ${ref.key} is missing` };
    return { state: 'present', ref, resourceVersion: live.metadata?.resourceVersion ?? '', outsideWriters: foreignDataOwners(live.metadata?.managedFields, FIELD_MANAGER) };
  }

  async listOwned(k8sNamespace: string): Promise<OwnedBackendObject[]> {
    try {
      // R3: only this installation's objects; another installation's are never listed as ours.
      const list = await this.core.listNamespacedSecret({ namespace: k8sNamespace, labelSelector: installationSelector(this.installationId) });
      // Only metadata leaves this function: the listed objects' data is dropped here.
      return list.items.map((s) => ({
        name: s.metadata?.name ?? '',
        uid: s.metadata?.uid ?? '',
        labels: s.metadata?.labels ?? {},
        createdAt: s.metadata?.creationTimestamp ? new Date(s.metadata.creationTimestamp) : null,
        outsideWriters: foreignDataOwners(s.metadata?.managedFields, FIELD_MANAGER),
      }));
    } catch (error) {
      if (classifyKubeError(error).code === 404) return [];
      translate(error, 'listing Kubernetes Secrets');
    }
  }

  private async read(ref: SecretBackendRef): Promise<V1Secret | null> {
    try {
      return await this.core.readNamespacedSecret({ name: ref.name, namespace: ref.k8sNamespace });
    } catch (error) {
      if (classifyKubeError(error).code === 404) return null;
      translate(error, 'reading the Kubernetes Secret');
    }
  }
}
