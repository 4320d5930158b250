import { CoreV1Api, CustomObjectsApi, KubernetesObjectApi, PatchStrategy, Watch, type KubeConfig, type KubernetesObject, type V1Secret } from '@kubernetes/client-node';
import { describeTakeover, literalsToRelease, plannedTakeovers, yieldingToAgent, type Takeover } from '@occ/domain/composition';
import type { AppliedRevision, ComputeDriver, ComputeRevisionContext, GatewayReadiness, RevisionSource } from '@occ/domain/compute-driver';
import { foreignDataOwners, isRecordedOutsideChange } from '@occ/domain/field-ownership';
import { revisionReadiness, type InstanceReading } from '@occ/domain/instance-status';
import {
  AGENT_ID_LABEL,
  agentInstanceName,
  backendIdentityMismatch,
  FIELD_MANAGER,
  harnessSecretName,
  INSTALLATION_ID_LABEL,
  REVISION_NUMBER_LABEL,
  SECRET_VALUE_KEY,
} from '@occ/domain/kubernetes-names';
import { uuidOf } from '@occ/domain/ids';
import { instanceBody, INSTANCE_API_VERSION, renderModelAuthSecret, type RenderContext, type RenderRevision } from '@occ/domain/revision-render';
import { BackendFailure, BackendIdentityChanged, BackendObjectMissing } from '@occ/domain/secret-driver';
import { releaseEnvBody, SELF_CONFIG_MANAGER } from '@occ/domain/selfconfig';
import type { JsonObject } from '@occ/domain/fieldsv1';
import { classifyKubeError, describeKubeFailure } from '../kube/errors.ts';
import { eventBody } from '../kube/events.ts';
import type { InstanceCache } from '../kube/instance-cache.ts';
import type { SecretCache, SecretShape } from '../kube/secret-cache.ts';

// The Compute driver on client-node (RC1, RC3, W4, W5, D5). A revision writes only its fields into
// the agent's OpenClawInstance, with server-side apply as occ-controller (force: the control plane
// owns these fields), so a retry is a no-op; the instance reconciler renders the gateway from the
// instance. The model-auth Secret is the only object written with a value; it is read from the
// current source here, server-side, and never passes through the database or a log.
//
// Reads go through the process's watch caches where they can confirm (kube/secret-cache.ts,
// kube/instance-cache.ts): a source as recorded, an instance to apply over (its resourceVersion a
// precondition), the status awaited. What the caches cannot confirm is read from the server, and
// nothing fails a revision on a cached answer alone.

const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';
const PLURAL = 'openclawinstances';

function renderContext(context: ComputeRevisionContext): RenderContext {
  return {
    installationId: context.installationId,
    k8sNamespace: context.k8sNamespace,
    revisionId: context.revisionId,
    secretNames: new Map(context.sources.map((s) => [s.secretId, s.name])),
  };
}

/** Rethrows a client-node failure without its request or Status message (which may quote a value). */
function translate(error: unknown, what: string): never {
  if (error instanceof BackendIdentityChanged || error instanceof BackendObjectMissing) throw error;
  throw new BackendFailure(`${what}: ${describeKubeFailure(classifyKubeError(error))}`);
}

/** The instance apply was refused as invalid (422): no retry mends it. */
export class InstanceRefused extends Error {
  override name = 'InstanceRefused';
}

/**
 * D3 RC4: a source is the recorded object (labels ours, same uid), and its value is the version the
 * product recorded: changed outside the product (another manager owns the data) only by the change
 * that was recorded as the current version. Answers what is wrong, or null.
 */
function sourceProblem(live: Pick<V1Secret, 'metadata'>, source: RevisionSource, installationId: string): BackendIdentityChanged | null {
  const mismatch = backendIdentityMismatch(live.metadata ?? {}, { namespaceId: source.namespaceId, secretId: source.secretId, installationId, uid: source.uid });
  if (mismatch) return new BackendIdentityChanged(mismatch);
  const outside = foreignDataOwners(live.metadata?.managedFields, FIELD_MANAGER);
  if (outside.length > 0 && !isRecordedOutsideChange(source.outsideChangeSeenAt, outside)) {
    return new BackendIdentityChanged(`its value was changed outside the product by ${outside.map((o) => `${o.manager} (${o.operation})`).join(', ')} since the version recorded`);
  }
  return null;
}

function checkSource(live: Pick<V1Secret, 'metadata'>, source: RevisionSource, installationId: string): void {
  const problem = sourceProblem(live, source, installationId);
  if (problem) throw problem;
}

type InstanceObject = { metadata: { name: string; namespace: string; uid: string; generation?: number; resourceVersion?: string; managedFields?: unknown }; spec?: JsonObject; status?: JsonObject };

export class KubernetesComputeDriver implements ComputeDriver {
  private readonly objects: KubernetesObjectApi;
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly installationId: string,
    private readonly caches: { secrets?: SecretCache; instances?: InstanceCache } = {},
  ) {
    this.objects = KubernetesObjectApi.makeApiClient(kubeConfig);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  private async apply(object: Record<string, unknown>, manager: string, options: { dryRun?: boolean; force?: boolean } = {}): Promise<InstanceObject> {
    return (await this.objects.patch(object as KubernetesObject, undefined, options.dryRun ? 'All' : undefined, manager, options.force ?? true, PatchStrategy.ServerSideApply)) as unknown as InstanceObject;
  }

  private async getInstance(namespace: string, name: string): Promise<InstanceObject | null> {
    try {
      return (await this.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name })) as InstanceObject;
    } catch (error) {
      if (classifyKubeError(error).kind === 'object-not-found') return null;
      translate(error, 'reading the OpenClawInstance');
    }
  }

  /** Reads a source Secret and checks it is the recorded object, unchanged outside the product; answers its decoded value. */
  private async readSource(context: ComputeRevisionContext, secretId: string): Promise<string> {
    const source = context.sources.find((s) => s.secretId === secretId);
    if (!source) throw new Error(`no source ${secretId} in the secret context`);
    let live;
    try {
      live = await this.core.readNamespacedSecret({ name: source.name, namespace: context.k8sNamespace });
    } catch (error) {
      if (classifyKubeError(error).kind === 'object-not-found') throw new BackendObjectMissing(context.k8sNamespace, source.name);
      translate(error, 'reading a source Secret');
    }
    checkSource(live, source, this.installationId);
    const encoded = live.data?.[SECRET_VALUE_KEY];
    if (encoded === undefined) throw new BackendIdentityChanged(`the Secret has no key ${SECRET_VALUE_KEY}`);
    return Buffer.from(encoded, 'base64').toString('utf8');
  }

  async verifySources(context: ComputeRevisionContext): Promise<void> {
    for (const source of context.sources) {
      // The cache confirms a source as recorded; anything else is decided on a live read.
      const cached = await this.caches.secrets?.lookup(context.k8sNamespace, source.name);
      if (cached && !sourceProblem(cached, source, this.installationId)) continue;
      let live;
      try {
        live = await this.core.readNamespacedSecret({ name: source.name, namespace: context.k8sNamespace });
      } catch (error) {
        if (classifyKubeError(error).kind === 'object-not-found') throw new BackendObjectMissing(context.k8sNamespace, source.name);
        translate(error, 'reading a source Secret');
      }
      checkSource(live, source, this.installationId);
    }
  }

  async prepareRevision(revision: RenderRevision, context: ComputeRevisionContext): Promise<void> {
    // The model key's copy and the dry run do not depend on each other: both go at once. A copy
    // made for a revision the dry run refuses is retired with the revisions the next one replaces.
    const dryRun = async () => {
      try {
        await this.apply(instanceBody(revision, renderContext(context)), FIELD_MANAGER, { dryRun: true });
      } catch (error) {
        const failure = classifyKubeError(error);
        if (failure.kind === 'refused' && failure.code === 422) throw new InstanceRefused('the API server refused the instance fields of this revision (422 Invalid)');
        translate(error, 'checking the OpenClawInstance apply (dry run)');
      }
    };
    const [copied, checked] = await Promise.allSettled([revision.harnessAuth ? this.deliverHarnessAuth(revision, context) : Promise.resolve(), dryRun()]);
    // A source that is not the recorded one says more than a refused field: it is reported first.
    if (copied.status === 'rejected') throw copied.reason;
    if (checked.status === 'rejected') throw checked.reason;
  }

  /**
   * D5: copies the current model key into the revision's own Secret. Created once: the Secret is
   * immutable and a retry finds it there (a later rotation must not change a prepared revision).
   */
  private async deliverHarnessAuth(revision: RenderRevision, context: ComputeRevisionContext): Promise<void> {
    const value = await this.readSource(context, revision.harnessAuth!.source.id);
    const body = renderModelAuthSecret(revision, renderContext(context), value);
    try {
      await this.core.createNamespacedSecret({ namespace: context.k8sNamespace, body, fieldManager: FIELD_MANAGER });
    } catch (error) {
      if (classifyKubeError(error).kind !== 'already-exists') translate(error, 'creating the model-auth Secret');
      const existing = await this.core.readNamespacedSecret({ name: harnessSecretName(revision.agentId, revision.number), namespace: context.k8sNamespace });
      if (existing.metadata?.labels?.[AGENT_ID_LABEL] !== uuidOf(revision.agentId)) throw new BackendIdentityChanged('the model-auth Secret of this revision is not ours');
    }
  }

  async previewTakeovers(revision: RenderRevision, context: ComputeRevisionContext): Promise<Takeover[]> {
    const live = await this.getInstance(context.k8sNamespace, agentInstanceName(revision.agentId));
    return plannedTakeovers(live ? { spec: live.spec, managedFields: live.metadata.managedFields } : null, instanceBody(revision, renderContext(context)) as { spec?: JsonObject });
  }

  /** The instance as the cache holds it, else as the server does. */
  private async currentInstance(namespace: string, name: string): Promise<InstanceObject | null> {
    const cached = await this.caches.instances?.get(namespace, name);
    return cached ? (cached as InstanceObject) : this.getInstance(namespace, name);
  }

  async applyRevision(revision: RenderRevision, context: ComputeRevisionContext, options: { yieldToAgent?: boolean } = {}): Promise<AppliedRevision> {
    const full = instanceBody(revision, renderContext(context));
    const name = agentInstanceName(revision.agentId);
    for (let attempt = 0; ; attempt++) {
      // The first attempt plans from the cache; the apply carries that object's resourceVersion,
      // so the takeovers it records are exactly those of the object it replaced, and a stale copy
      // conflicts: the next attempt reads the server.
      const live = attempt === 0 ? await this.currentInstance(context.k8sNamespace, name) : await this.getInstance(context.k8sNamespace, name);
      const planned = plannedTakeovers(live ? { spec: live.spec, managedFields: live.metadata.managedFields } : null, full as { spec?: JsonObject });
      const body = options.yieldToAgent ? yieldingToAgent(full as JsonObject, planned) : full;
      const takeovers = options.yieldToAgent ? [] : planned;
      const release = literalsToRelease(takeovers);
      let resourceVersion = live?.metadata.resourceVersion;
      if (live && release.length > 0) {
        // RC3: the agent's literal goes first, so the item never holds a value and a reference.
        const snapshot = { name, namespace: context.k8sNamespace, resourceVersion: resourceVersion ?? '', spec: live.spec ?? {}, managedFields: live.metadata.managedFields };
        try {
          resourceVersion = (await this.apply(releaseEnvBody(snapshot, release), SELF_CONFIG_MANAGER, { force: false })).metadata.resourceVersion;
        } catch (error) {
          const failure = classifyKubeError(error);
          if (failure.kind === 'conflict' && attempt < 5) continue;
          translate(error, "releasing the agent's literal env values");
        }
      }
      let applied: InstanceObject;
      try {
        const guarded = resourceVersion ? { ...(body as JsonObject), metadata: { ...((body as { metadata?: JsonObject }).metadata ?? {}), resourceVersion } } : body;
        applied = await this.apply(guarded, FIELD_MANAGER);
      } catch (error) {
        const failure = classifyKubeError(error);
        if (failure.kind === 'conflict' && attempt < 5) continue;
        if (failure.kind === 'refused' && failure.code === 422) throw new InstanceRefused('the API server refused the instance fields of this revision (422 Invalid)');
        translate(error, 'applying the OpenClawInstance');
      }
      if (takeovers.length > 0) await this.event(applied, revision, takeovers);
      return { generation: applied.metadata.generation ?? 1, takeovers };
    }
  }

  /** RC3: a takeover is visible on the instance (kubectl describe, the console's events). */
  private async event(instance: InstanceObject, revision: RenderRevision, takeovers: Takeover[]): Promise<void> {
    const m = instance.metadata;
    try {
      await this.core.createNamespacedEvent({
        namespace: m.namespace,
        body: eventBody(
          { apiVersion: INSTANCE_API_VERSION, kind: 'OpenClawInstance', name: m.name, namespace: m.namespace, uid: m.uid },
          'Warning',
          'RevisionTookOverSelfConfig',
          `revision ${revision.number}: ${takeovers.map((t) => describeTakeover(t, true)).join('; ')}`,
          FIELD_MANAGER,
          new Date(),
        ),
      });
    } catch (error) {
      translate(error, 'recording the takeover event');
    }
  }

  async awaitRevision(revision: RenderRevision, context: ComputeRevisionContext, generation: number, timeoutMs: number, signal: AbortSignal): Promise<GatewayReadiness> {
    const name = agentInstanceName(revision.agentId);
    const deadline = Date.now() + timeoutMs;
    const cache = this.caches.instances;
    let last = 'waiting for the instance status';
    // Woken by each change of the instance the cache's watch delivers.
    let wake: (() => void) | null = null;
    const unsubscribe = cache?.onChange(context.k8sNamespace, name, () => wake?.());
    try {
      while (!signal.aborted) {
        const cached = await cache?.get(context.k8sNamespace, name);
        let instance = cached ?? (await this.getInstance(context.k8sNamespace, name));
        let readiness = revisionReadiness(instance as InstanceReading | null, context.revisionId, generation);
        // A failure or a replacement is decided on the server's answer, never on the cache's alone.
        if (cached && readiness.state !== 'progressing' && readiness.state !== 'ready') {
          instance = await this.getInstance(context.k8sNamespace, name);
          readiness = revisionReadiness(instance as InstanceReading | null, context.revisionId, generation);
        }
        if (readiness.state !== 'progressing') return readiness;
        last = readiness.message;
        const left = deadline - Date.now();
        if (left <= 0) break;
        if (cached && unsubscribe) {
          await new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              signal.removeEventListener('abort', done);
              wake = null;
              resolve();
            };
            const timer = setTimeout(done, Math.min(left, 10_000));
            signal.addEventListener('abort', done);
            wake = done;
          });
        } else {
          await this.changed(context.k8sNamespace, name, instance?.metadata.resourceVersion ?? '', Math.min(left, 10_000), signal);
        }
      }
    } finally {
      unsubscribe?.();
    }
    return { state: 'progressing', message: last };
  }

  /** Resolves on the next change of the instance after `resourceVersion`, or after `ms`, or on abort. */
  private changed(namespace: string, name: string, resourceVersion: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let watch: AbortController | null = null;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', finish);
        watch?.abort();
        resolve();
      };
      const timer = setTimeout(finish, ms);
      signal.addEventListener('abort', finish);
      new Watch(this.kubeConfig)
        .watch(
          `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${PLURAL}`,
          { fieldSelector: `metadata.name=${name}`, ...(resourceVersion ? { resourceVersion } : {}), allowWatchBookmarks: false },
          (type: string) => {
            if (type !== 'BOOKMARK') finish();
          },
          () => finish(),
        )
        .then(
          (controller) => {
            watch = controller;
            if (done) controller.abort();
          },
          () => finish(),
        );
    });
  }

  async retireModelAuth(agentId: string, k8sNamespace: string, keepNumber: number | null): Promise<void> {
    const labels = { [AGENT_ID_LABEL]: uuidOf(agentId), [INSTALLATION_ID_LABEL]: this.installationId };
    // Deletions carry each object's uid as a precondition: a cached entry of an object that went
    // meanwhile deletes nothing.
    let listed: Array<Pick<SecretShape, 'metadata'>> | null = (await this.caches.secrets?.list(k8sNamespace, labels)) ?? null;
    if (!listed) {
      try {
        listed = (await this.core.listNamespacedSecret({ namespace: k8sNamespace, labelSelector: Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',') })).items.map((s) => ({ metadata: { ...s.metadata, name: s.metadata?.name ?? '', namespace: k8sNamespace } }));
      } catch (error) {
        translate(error, 'listing model-auth Secrets');
      }
    }
    for (const secret of listed) {
      const secretName = secret.metadata.name;
      const number = Number(secret.metadata.labels?.[REVISION_NUMBER_LABEL]);
      if (!Number.isInteger(number) || secretName !== harnessSecretName(agentId, number) || number === keepNumber) continue;
      try {
        await this.core.deleteNamespacedSecret({ name: secretName, namespace: k8sNamespace, body: { preconditions: { uid: secret.metadata.uid } } });
      } catch (error) {
        const failure = classifyKubeError(error);
        if (failure.kind !== 'object-not-found' && !(failure.kind === 'conflict' && failure.precondition)) translate(error, 'deleting a retired model-auth Secret');
      }
    }
  }
}
