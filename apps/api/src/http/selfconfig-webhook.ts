import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import {
  AdmissionregistrationV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import { FIELD_MANAGER } from '@occ/domain/kubernetes-names';
import { decideSelfConfigAdmission, parseAdmissionReview, type SelfConfigAdmissionDecision } from '@occ/domain/selfconfig-admission';
import { kubeStatus } from '../kube/errors.ts';
import type { Logger } from '../log.ts';
import { PayloadTooLargeError, readBody } from './body.ts';

// SC5 for OpenClawSelfConfigs created in the cluster: the validating admission webhook the API
// server calls (AdmissionReview v1 in and out, over HTTPS). The decision is the domain's
// (selfconfig-admission.ts); here are the review's transport, the instance lookup, the listener and
// the registration. Fails closed: a malformed review, an unreadable instance or any error refuses.

export const SELFCONFIG_WEBHOOK_PATH = '/validate/openclawselfconfigs';
export const SELFCONFIG_WEBHOOK_NAME = 'selfconfig.openclaw.rocks';
/** An AdmissionReview carries one object; 3 MiB is the API server's own request limit. */
const MAX_REVIEW_BYTES = 3 * 1024 * 1024;

export interface SelfConfigWebhookDeps {
  /**
   * The ServiceAccount name of the OpenClawInstance `name` in `namespace`, or undefined when no
   * such instance exists. Instances run as the ServiceAccount of their own name
   * (agentServiceAccountName), so that is the answer for every instance the platform made.
   */
  instanceServiceAccount(namespace: string, name: string): Promise<string | undefined>;
  logger: Logger;
}

function answer(res: ServerResponse, uid: string, decision: SelfConfigAdmissionDecision): void {
  const response = decision.allowed
    ? { uid, allowed: true }
    : { uid, allowed: false, status: { code: decision.code, reason: decision.code === 403 ? 'Forbidden' : 'BadRequest', message: decision.message } };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
}

export function createSelfConfigWebhookHandler(deps: SelfConfigWebhookDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { logger } = deps;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'https://webhook').pathname;
    if (path !== SELFCONFIG_WEBHOOK_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'POST' }).end('method not allowed');
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req, MAX_REVIEW_BYTES)).toString('utf8'));
    } catch (error) {
      // Without a review uid there is nothing to answer: a non-2xx makes the API server apply the
      // failurePolicy, which is Fail.
      const tooLarge = error instanceof PayloadTooLargeError;
      res.writeHead(tooLarge ? 413 : 400, { 'content-type': 'text/plain', connection: 'close' }).end(tooLarge ? 'review too large' : 'not JSON');
      return;
    }
    const parsed = parseAdmissionReview(body);
    if (!parsed.ok) {
      logger.warn('selfconfig webhook: malformed review refused', { reason: parsed.message });
      if (parsed.uid === null) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(parsed.message);
        return;
      }
      answer(res, parsed.uid, { allowed: false, code: 400, message: parsed.message });
      return;
    }
    const { request } = parsed;
    let decision: SelfConfigAdmissionDecision;
    try {
      const serviceAccount =
        request.operation === 'CREATE' && request.instanceRef !== null ? await deps.instanceServiceAccount(request.namespace, request.instanceRef) : undefined;
      decision = decideSelfConfigAdmission(request, serviceAccount);
    } catch (error) {
      logger.error('selfconfig webhook: the instance could not be read; refusing', { error: kubeStatus(error) ?? String(error) });
      decision = { allowed: false, code: 403, message: `the instance ${JSON.stringify(request.instanceRef)} could not be read; refusing` };
    }
    logger.info('selfconfig webhook decision', {
      uid: request.uid,
      operation: request.operation,
      namespace: request.namespace,
      instanceRef: request.instanceRef,
      username: request.username,
      allowed: decision.allowed,
    });
    answer(res, request.uid, decision);
  };
  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error('selfconfig webhook failed', { error: String(error) });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
    });
  };
}

/** Reads OpenClawInstances through the API server: 404 is "no such instance", anything else throws. */
export function instanceServiceAccountFromCluster(kubeConfig: KubeConfig): SelfConfigWebhookDeps['instanceServiceAccount'] {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  return async (namespace, name) => {
    try {
      const instance = (await custom.getNamespacedCustomObject({ group: 'openclaw.rocks', version: 'v1alpha1', namespace, plural: 'openclawinstances', name })) as {
        metadata?: { name?: string };
      };
      // The CRD has no serviceAccountName field: an instance runs as the ServiceAccount of its own name.
      return instance.metadata?.name ?? name;
    } catch (error) {
      if (kubeStatus(error)?.code === 404) return undefined;
      throw error;
    }
  };
}

export interface WebhookTls {
  certPem: string;
  keyPem: string;
}

/** The HTTPS listener the API server calls; it serves the webhook path and nothing else. */
export async function listenSelfConfigWebhook(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  tls: WebhookTls,
  host: string,
  port: number,
): Promise<Server> {
  const server = createServer({ cert: tls.certPem, key: tls.keyPem, requestTimeout: 30_000, headersTimeout: 10_000 }, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/**
 * The ValidatingWebhookConfiguration that sends every create and update of an
 * OpenClawSelfConfig to `url`, trusting `caPem`. failurePolicy Fail: with the webhook down, no
 * request is admitted (SC5 fails closed).
 */
export function selfConfigWebhookConfiguration(name: string, url: string, caPem: string): V1ValidatingWebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: SELFCONFIG_WEBHOOK_NAME,
        clientConfig: { url, caBundle: Buffer.from(caPem).toString('base64') },
        rules: [{ apiGroups: ['openclaw.rocks'], apiVersions: ['*'], resources: ['openclawselfconfigs'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }],
        failurePolicy: 'Fail',
        sideEffects: 'None',
        timeoutSeconds: 10,
        admissionReviewVersions: ['v1'],
      },
    ],
  };
}

/** Applies the configuration (server-side apply, so a restart with a new port or CA converges). */
export async function registerSelfConfigWebhook(kubeConfig: KubeConfig, configuration: V1ValidatingWebhookConfiguration): Promise<void> {
  await kubeConfig.makeApiClient(AdmissionregistrationV1Api).patchValidatingWebhookConfiguration(
    { name: configuration.metadata?.name ?? '', body: configuration, fieldManager: FIELD_MANAGER, force: true },
    setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
  );
}
