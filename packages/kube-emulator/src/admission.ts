// Validating admission webhooks, as k8s.io/apiserver/pkg/admission/plugin/webhook calls them:
// for a write, every ValidatingWebhookConfiguration's webhooks whose rules (operations, apiGroups,
// apiVersions, resources with subresources, scope), namespaceSelector and objectSelector match get
// an AdmissionReview v1 over HTTPS, checked against the configuration's caBundle, within
// timeoutSeconds. A denial answers the webhook's status prefixed `admission webhook "<name>"
// denied the request: ` (code below 400 raised to 400, as ToStatusErr does); a webhook that cannot
// be called fails the write with 500 "failed calling webhook" under failurePolicy Fail and is
// skipped under Ignore. A dry run calls only webhooks whose sideEffects are None or NoneOnDryRun.
//
// The object a webhook sees is the one the write would store: the verb runs first as a dry run,
// then, once every webhook allowed it, for real, provided the object has not changed in between
// (the apiserver's update loop re-runs admission on a conflict; so does this).
//
// Validating admission policies (admission-policy.ts) judge the same object first.
//
// Not emulated: mutating webhooks, matchConditions (CEL), matchPolicy Equivalent across versions
// (every kind is served at one version here), service references (no Service networking: a
// webhook named by service fails to be called), webhooks on TokenRequest and on DELETE of
// collections, and audit annotations.

import { randomUUID } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { admissionRequest, ruleMatches, selectorsMatch, strings } from './admission-match.ts';
import { AdmissionPolicies } from './admission-policy.ts';
import type { KubeApi, Target } from './api.ts';
import type { UserInfo } from './auth.ts';
import { conflict, internalError, OBJECT_MODIFIED, StatusError, type StatusReason } from './errors.ts';
import {
  groupResourceOf,
  NAMESPACES,
  storageKeyOf,
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
  type ResourceType,
} from './registry.ts';
import { enforcedLevel, podSecurityRefusal } from './pod-security.ts';
import type { ObjectStore } from './store.ts';
import { isObject, type JsonObject, type KubeObject } from './types.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  type: ResourceType;
  subresource?: string;
  namespace?: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  user: UserInfo;
  dryRun: boolean;
  /** CreateOptions, UpdateOptions, PatchOptions or DeleteOptions (with kind and apiVersion). */
  options: JsonObject;
}

/** One write to run under admission (http.ts builds it from a Call). */
export interface AdmittedWrite<T> {
  verb: 'create' | 'update' | 'patch' | 'delete';
  target: Target;
  /** The name the request gives (the path's, or the body's on a create). */
  name: string;
  user: UserInfo;
  dryRun: boolean;
  options: JsonObject;
  /** Runs the verb; with `dryRun` true nothing is stored. Throws the verb's StatusError. */
  run(dryRun: boolean): T;
}

interface Webhook {
  configuration: string;
  hook: JsonObject;
}

const MAX_ATTEMPTS = 5;
const REVIEW_API_VERSION = 'admission.k8s.io/v1';

/**
 * Kubernetes never calls webhooks about webhook configurations themselves, so that a broken
 * webhook can always be removed (IsExemptAdmissionConfigurationResource).
 */
function isExempt(type: ResourceType): boolean {
  return (
    type.group === VALIDATING_WEBHOOK_CONFIGURATIONS.group &&
    [VALIDATING_WEBHOOK_CONFIGURATIONS.plural, 'mutatingwebhookconfigurations', VALIDATING_ADMISSION_POLICIES.plural, VALIDATING_ADMISSION_POLICY_BINDINGS.plural].includes(type.plural)
  );
}

/** The error a webhook's own denial becomes (webhook/errors.ToStatusErr). */
export function denial(webhookName: string, result: unknown): StatusError {
  const status = isObject(result) ? result : {};
  let code = typeof status.code === 'number' ? status.code : 0;
  if (code < 400) code = 400;
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const message =
    typeof status.message === 'string' && status.message !== ''
      ? `${deniedBy}: ${status.message}`
      : typeof status.reason === 'string' && status.reason !== ''
        ? `${deniedBy}: ${status.reason}`
        : `${deniedBy} without explanation`;
  const error = new StatusError(code, (status.reason || undefined) as StatusReason, message, isObject(status.details) ? status.details : undefined);
  if (!status.reason) delete error.status.reason;
  return error;
}

class CallFailure extends Error {}

function goDialError(error: NodeJS.ErrnoException, url: URL): string {
  const address = `${url.hostname}:${url.port || '443'}`;
  switch (error.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${address}: connect: connection refused`;
    case 'ECONNRESET':
      return 'EOF';
    case 'ENOTFOUND':
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${url.hostname}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return error.message;
  }
}

/** POSTs the review and reads the answer, or throws a CallFailure worded as client-go words it. */
function post(url: URL, caBundle: Buffer | undefined, body: string, timeoutSeconds: number): Promise<unknown> {
  const target = new URL(url);
  target.searchParams.set('timeout', `${timeoutSeconds}s`);
  const what = `Post ${JSON.stringify(target.toString())}`;
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      target,
      {
        method: 'POST',
        // Without a caBundle the system roots verify the webhook, as client-go does.
        ...(caBundle && caBundle.length > 0 ? { ca: caBundle.toString('utf8') } : {}),
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, */*',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': 'kube-apiserver-admission',
        },
        signal: AbortSignal.timeout(timeoutSeconds * 1000),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error) => reject(new CallFailure(`failed to call webhook: ${what}: ${error.message}`)));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const code = response.statusCode ?? 0;
          if (code < 200 || code > 299) {
            reject(new CallFailure(`failed to call webhook: an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding`));
            return;
          }
          try {
            resolve(JSON.parse(text) as unknown);
          } catch (error) {
            reject(new CallFailure(`failed to call webhook: ${(error as Error).message}`));
          }
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      const cause = error.name === 'AbortError' || error.name === 'TimeoutError' ? 'context deadline exceeded' : goDialError(error, url);
      reject(new CallFailure(`failed to call webhook: ${what}: ${cause}`));
    });
    request.end(body);
  });
}

export class WebhookAdmission {
  private readonly policies: AdmissionPolicies;

  constructor(
    private readonly store: ObjectStore,
    private readonly api: KubeApi,
  ) {
    this.policies = new AdmissionPolicies(store);
  }

  private webhooks(): Webhook[] {
    const out: Webhook[] = [];
    for (const configuration of this.store.list(storageKeyOf(VALIDATING_WEBHOOK_CONFIGURATIONS))) {
      for (const hook of Array.isArray(configuration.webhooks) ? configuration.webhooks : []) {
        if (isObject(hook)) out.push({ configuration: configuration.metadata.name ?? '', hook });
      }
    }
    return out;
  }

  /**
   * Runs a write under admission. Without any webhook configuration or policy binding it is the
   * write itself; with one, the write is dry-run to learn the object, the matching policies
   * (admission-policy.ts), then the matching webhooks judge it, and the write runs for real only if
   * the stored object is still the one they judged.
   */
  async admit<T>(write: AdmittedWrite<T>): Promise<T> {
    this.podSecurity(write);
    if (isExempt(write.target.type) || (this.webhooks().length === 0 && !this.policies.any())) return write.run(write.dryRun);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const old = this.api.exists(write.target) ? this.api.get(write.target) : undefined;
      // Deleting what is not there is the verb's own NotFound, before any webhook.
      if (write.verb === 'delete' && old === undefined) return write.run(write.dryRun);
      const operation: Operation =
        write.verb === 'delete' ? 'DELETE' : write.verb === 'create' || old === undefined ? 'CREATE' : 'UPDATE';
      const object = operation === 'DELETE' ? undefined : (write.run(true) as unknown as KubeObject);
      const attributes: AdmissionAttributes = {
        operation,
        type: write.target.type,
        subresource: write.target.subresource,
        namespace: write.target.type.namespaced ? write.target.namespace : undefined,
        name: write.name,
        object,
        oldObject: operation === 'CREATE' ? undefined : old,
        user: write.user,
        dryRun: write.dryRun,
        options: write.verb === 'patch' ? patchOptionsAs(operation, write.options) : write.options,
      };
      this.policies.validate(attributes);
      await this.validate(attributes);
      const now = this.api.exists(write.target) ? this.api.get(write.target).metadata.resourceVersion : undefined;
      if (write.verb === 'create' || now === old?.metadata.resourceVersion) return write.run(write.dryRun);
    }
    throw conflict(groupResourceOf(write.target.type), write.name, OBJECT_MODIFIED);
  }

  /**
   * Pod Security Admission (pod-security.ts), a built-in plugin: it judges a Pod being created
   * against its namespace's enforced level before any webhook is called.
   */
  private podSecurity(write: AdmittedWrite<unknown>): void {
    const { type, namespace, subresource } = write.target;
    if (write.verb !== 'create' || type.group !== '' || type.plural !== 'pods' || subresource !== undefined || !namespace) return;
    const labels = this.store.get(storageKeyOf({ group: '', plural: 'namespaces' }), undefined, namespace)?.metadata.labels;
    if (!enforcedLevel(labels)) return;
    const refusal = podSecurityRefusal(labels, write.run(true) as unknown as Record<string, unknown>);
    if (refusal) throw refusal;
  }

  /** Calls every matching webhook at once; the first refusal (in configuration order) wins. */
  async validate(attributes: AdmissionAttributes): Promise<void> {
    const matching = this.webhooks().filter((w) => this.shouldCall(w.hook, attributes));
    const outcomes = await Promise.all(matching.map((w) => this.call(w.hook, attributes).then(() => undefined, (error: unknown) => error)));
    const refusal = outcomes.find((o) => o !== undefined);
    if (refusal) throw refusal;
  }

  private shouldCall(hook: JsonObject, attributes: AdmissionAttributes): boolean {
    if (!selectorsMatch(hook, attributes, (name) => this.store.get(storageKeyOf(NAMESPACES), undefined, name)?.metadata.labels)) return false;
    return (Array.isArray(hook.rules) ? hook.rules : []).some((rule) => ruleMatches(rule, attributes));
  }

  private async call(hook: JsonObject, attributes: AdmissionAttributes): Promise<void> {
    const name = String(hook.name ?? '');
    const failOpen = hook.failurePolicy === 'Ignore';
    if (attributes.dryRun && !(hook.sideEffects === 'None' || hook.sideEffects === 'NoneOnDryRun')) {
      throw new StatusError(400, 'BadRequest', `admission webhook ${JSON.stringify(name)} does not support dry run`);
    }
    try {
      await this.review(hook, name, attributes);
    } catch (error) {
      if (!(error instanceof CallFailure)) throw error;
      if (failOpen) return;
      throw internalError(`failed calling webhook ${JSON.stringify(name)}: ${error.message}`);
    }
  }

  private async review(hook: JsonObject, name: string, attributes: AdmissionAttributes): Promise<void> {
    if (!strings(hook.admissionReviewVersions).includes('v1')) {
      throw new CallFailure('could not create admission objects: webhook does not accept known AdmissionReview versions (v1)');
    }
    const config = isObject(hook.clientConfig) ? hook.clientConfig : {};
    if (typeof config.url !== 'string') {
      const service = isObject(config.service) ? config.service : {};
      throw new CallFailure(`failed to call webhook: service ${JSON.stringify(service.name ?? '')} not found`);
    }
    const caBundle = typeof config.caBundle === 'string' ? Buffer.from(config.caBundle, 'base64') : undefined;
    const uid = randomUUID();
    const timeoutSeconds = typeof hook.timeoutSeconds === 'number' ? hook.timeoutSeconds : 10;
    const answer = await post(new URL(config.url), caBundle, JSON.stringify(this.reviewOf(uid, attributes)), timeoutSeconds);
    // webhookrequest.VerifyAdmissionResponse
    if (!isObject(answer) || !isObject(answer.response)) {
      throw new CallFailure('received invalid webhook response: webhook response was absent');
    }
    if (answer.response.uid !== uid) {
      throw new CallFailure(`received invalid webhook response: expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(answer.response.uid ?? '')}`);
    }
    if (answer.apiVersion !== REVIEW_API_VERSION || answer.kind !== 'AdmissionReview') {
      throw new CallFailure(
        `received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(answer.apiVersion ?? '')}, Kind=${String(answer.kind ?? '')}`,
      );
    }
    if (answer.response.patch !== undefined || answer.response.patchType !== undefined) {
      throw new CallFailure('received invalid webhook response: validating webhook may not return response.patch');
    }
    if (answer.response.allowed === true) return;
    throw denial(name, answer.response.status);
  }

  private reviewOf(uid: string, attributes: AdmissionAttributes): JsonObject {
    return { kind: 'AdmissionReview', apiVersion: REVIEW_API_VERSION, request: { uid, ...admissionRequest(attributes) } };
  }

}

/**
 * A patch is admitted as the update (or, for an apply that creates, the create) it turns into, with
 * that verb's options: the real handler's patchToUpdateOptions and patchToCreateOptions, which keep
 * dryRun and fieldManager and drop force (found by the E8 lane: a webhook sees UpdateOptions).
 */
function patchOptionsAs(operation: Operation, options: JsonObject): JsonObject {
  const { force: _force, ...kept } = options;
  return { ...kept, kind: operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions' };
}
