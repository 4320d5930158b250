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
// (every kind is served at one version here), a Service's cluster IP (a webhook named by service is
// called at an address of its Endpoints, as with --enable-aggregator-routing, which the E8 lane's
// real server is started with), webhooks on TokenRequest and on DELETE of
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
  ENDPOINTS,
  NAMESPACES,
  SERVICES,
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

/** The names a certificate is valid for, as Go's x509.HostnameError lists them (DNS names, else IPs). */
function certificateNames(error: NodeJS.ErrnoException): string {
  const alt = (error as { cert?: { subjectaltname?: string } }).cert?.subjectaltname ?? '';
  const entries = alt.split(', ').filter(Boolean);
  const dns = entries.filter((entry) => entry.startsWith('DNS:')).map((entry) => entry.slice(4));
  const ips = entries.filter((entry) => entry.startsWith('IP Address:')).map((entry) => entry.slice(11));
  return (dns.length > 0 ? dns : ips).join(', ') || 'other names';
}

function goDialError(error: NodeJS.ErrnoException, url: URL, endpoint?: { host: string; port: number }): string {
  const address = endpoint ? `${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}` : `${url.hostname}:${url.port || '443'}`;
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
      return `tls: failed to verify certificate: x509: certificate is valid for ${certificateNames(error)}, not ${url.hostname}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return error.message;
  }
}

/** A URL as client-go prints it: a service's URL keeps its port even when it is 443. */
function shownUrl(url: URL, service: boolean): string {
  return service ? `https://${url.hostname}:${url.port || '443'}${url.pathname}${url.search}` : url.toString();
}

/** POSTs the review and reads the answer, or throws a CallFailure worded as client-go words it. */
function post(url: URL, caBundle: Buffer | undefined, body: string, timeoutSeconds: number, endpoint?: { host: string; port: number }): Promise<unknown> {
  const target = new URL(url);
  target.searchParams.set('timeout', `${timeoutSeconds}s`);
  const what = `Post ${JSON.stringify(shownUrl(target, endpoint !== undefined))}`;
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      target,
      {
        method: 'POST',
        // A service's address is dialled, and its DNS name is what the certificate must carry.
        ...(endpoint ? { hostname: endpoint.host, port: endpoint.port, servername: url.hostname } : {}),
        // Without a caBundle the system roots verify the webhook, as client-go does.
        ...(caBundle && caBundle.length > 0 ? { ca: caBundle.toString('utf8') } : {}),
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, */*',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': 'kube-apiserver-admission',
          ...(endpoint ? { Host: url.host } : {}),
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
      const cause = error.name === 'AbortError' || error.name === 'TimeoutError' ? 'context deadline exceeded' : goDialError(error, url, endpoint);
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

  /**
   * A webhook named by service, resolved as a kube-apiserver started with
   * --enable-aggregator-routing does (ResolveEndpoint in k8s.io/apiserver/pkg/util/proxy): the
   * Service's port with that number, then the first address of an Endpoints subset with a port of
   * the same name. TLS is still checked against `<name>.<namespace>.svc`.
   */
  private resolveService(namespace: string, name: string, port: number, url: URL, timeoutSeconds: number): { host: string; port: number } {
    const target = new URL(url);
    target.searchParams.set('timeout', `${timeoutSeconds}s`);
    const fail = (cause: string) => new CallFailure(`failed to call webhook: Post ${JSON.stringify(shownUrl(target, true))}: ${cause}`);
    const service = this.store.get(storageKeyOf(SERVICES), namespace, name);
    if (!service) throw fail(`service ${JSON.stringify(name)} not found`);
    const spec = isObject(service.spec) ? service.spec : {};
    const ports = Array.isArray(spec.ports) ? spec.ports.filter(isObject) : [];
    const servicePort = ports.find((entry) => entry.port === port);
    if (!servicePort) throw fail(`no service port ${port} found for service ${JSON.stringify(name)}`);
    const type = typeof spec.type === 'string' ? spec.type : 'ClusterIP';
    if (!['ClusterIP', 'LoadBalancer', 'NodePort'].includes(type)) throw fail(`unsupported service type ${JSON.stringify(type)}`);
    const endpoints = this.store.get(storageKeyOf(ENDPOINTS), namespace, name);
    if (!endpoints) throw fail(`endpoints ${JSON.stringify(name)} not found`);
    const portName = typeof servicePort.name === 'string' ? servicePort.name : '';
    for (const subset of Array.isArray(endpoints.subsets) ? endpoints.subsets.filter(isObject) : []) {
      const addresses = Array.isArray(subset.addresses) ? subset.addresses.filter(isObject) : [];
      const target = (Array.isArray(subset.ports) ? subset.ports.filter(isObject) : []).find((entry) => (entry.name ?? '') === portName);
      if (addresses.length > 0 && target && typeof target.port === 'number') return { host: String(addresses[0]!.ip), port: target.port };
    }
    throw fail(`no endpoints available for service ${JSON.stringify(name)}`);
  }

  private async review(hook: JsonObject, name: string, attributes: AdmissionAttributes): Promise<void> {
    if (!strings(hook.admissionReviewVersions).includes('v1')) {
      throw new CallFailure('could not create admission objects: webhook does not accept known AdmissionReview versions (v1)');
    }
    const config = isObject(hook.clientConfig) ? hook.clientConfig : {};
    const caBundle = typeof config.caBundle === 'string' ? Buffer.from(config.caBundle, 'base64') : undefined;
    const uid = randomUUID();
    const timeoutSeconds = typeof hook.timeoutSeconds === 'number' ? hook.timeoutSeconds : 10;
    const body = JSON.stringify(this.reviewOf(uid, attributes));
    let answer: unknown;
    if (typeof config.url === 'string') {
      answer = await post(new URL(config.url), caBundle, body, timeoutSeconds);
    } else {
      const service = isObject(config.service) ? config.service : {};
      const [namespace, serviceName] = [String(service.namespace ?? ''), String(service.name ?? '')];
      const port = typeof service.port === 'number' ? service.port : 443;
      const url = new URL(`https://${serviceName}.${namespace}.svc:${port}${typeof service.path === 'string' ? service.path : ''}`);
      const endpoint = this.resolveService(namespace, serviceName, port, url, timeoutSeconds);
      answer = await post(url, caBundle, body, timeoutSeconds, endpoint);
    }
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
