// Test support: a real emulator on 127.0.0.1:0 and client-node clients pointed at it through its
// kubeconfig. Nothing here reaches into the server; tests talk HTTP only.

import {
  ApiException,
  ApiextensionsV1Api,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { startKubeEmulator, type KubeEmulator, type KubeEmulatorOptions } from './server.ts';

export interface TestCluster {
  emulator: KubeEmulator;
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  custom: CustomObjectsApi;
  extensions: ApiextensionsV1Api;
  objects: KubernetesObjectApi;
  close(): Promise<void>;
}

export function clientsFor(emulator: KubeEmulator): TestCluster {
  const kubeConfig = emulator.kubeConfig();
  return {
    emulator,
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    apps: kubeConfig.makeApiClient(AppsV1Api),
    custom: kubeConfig.makeApiClient(CustomObjectsApi),
    extensions: kubeConfig.makeApiClient(ApiextensionsV1Api),
    objects: KubernetesObjectApi.makeApiClient(kubeConfig),
    close: () => emulator.close(),
  };
}

export async function startTestCluster(options: KubeEmulatorOptions = {}): Promise<TestCluster> {
  return clientsFor(await startKubeEmulator({ host: '127.0.0.1', port: 0, ...options }));
}

/** A fresh DNS-label name, so tests sharing one server never collide. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

export async function createNamespace(cluster: TestCluster, prefix = 'ns'): Promise<string> {
  const name = uniqueName(prefix);
  await cluster.core.createNamespace({ body: { metadata: { name } } });
  return name;
}

export interface StatusFailure {
  kind: string;
  apiVersion: string;
  metadata: Record<string, unknown>;
  status: string;
  message: string;
  reason: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
  };
  code: number;
}

/**
 * Awaits a call that must fail and returns the HTTP code and the parsed Status body
 * (client-node 2, like 1.x, hands the body over as a JSON string).
 */
export async function apiFailure(call: Promise<unknown>): Promise<{ code: number; body: StatusFailure }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException) {
      const raw = error.body as unknown;
      const body = (typeof raw === 'string' ? JSON.parse(raw) : raw) as StatusFailure;
      return { code: error.code, body };
    }
    throw error;
  }
  throw new Error('expected the call to fail, it succeeded');
}

export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
export const strategicMergePatch = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
export const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
/** Server-side apply, as DESIGN §3 says client-node must be told (it would send json-patch otherwise). */
export const serverSideApply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

export function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Every value of one header, one entry per header line (Node joins repeated headers in `headers`). */
  headerLines(name: string): string[];
  text: string;
  json(): unknown;
}

/**
 * A plain HTTPS request to the emulator, trusting its CA (for paths no typed client covers, such
 * as /admin/faults and /openapi, and for exact headers).
 */
export function emulatorRequest(
  emulator: KubeEmulator,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // Node sends a DELETE body with neither Content-Length nor chunking unless told its length.
    const length = init.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(init.body)) };
    const request = httpsRequest(`${emulator.url}${path}`, { method: init.method ?? 'GET', headers: { ...length, ...init.headers }, ca: emulator.caCertificate }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const raw = response.rawHeaders;
        const headerLines = (name: string): string[] => {
          const lines: string[] = [];
          for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]?.toLowerCase() === name.toLowerCase()) lines.push(raw[i + 1] ?? '');
          return lines;
        };
        resolve({ status: response.statusCode ?? 0, headers: response.headers, headerLines, text, json: () => JSON.parse(text) as unknown });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(init.body);
  });
}
