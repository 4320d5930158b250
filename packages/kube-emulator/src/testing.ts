// Test support: a real emulator on 127.0.0.1:0 and client-node clients pointed at it through its
// kubeconfig. Nothing here reaches into the server; tests talk HTTP only.
//
// One suite, two servers (rule E8): with OCC_KUBE_TARGET=real and KUBECONFIG naming a kubeconfig
// file, startTestCluster hands out clients for that server instead (the lane's real kube-apiserver,
// scripts/kube-apiserver/cluster). This file is the one place the target is read. Tests whose
// subject exists only in the emulator (fault injection, persistence, its own kubeconfig) live in
// *.emulator-only.test.ts files, which the real lane's vitest.real.config.ts leaves out; asking a
// real target for an emulator-only option throws rather than quietly testing something else.

import {
  ApiException,
  ApiextensionsV1Api,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  makeInformer,
  PatchStrategy,
  KubeConfig,
  setHeaderOptions,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { networkInterfaces } from 'node:os';
import { reuseConnections } from './client-connections.ts';
import { crdForClientModels, readCrdFiles } from './crds.ts';
import { startKubeEmulator, type KubeEmulator, type KubeEmulatorOptions } from './server.ts';
import type { KubeObject } from './types.ts';

export type KubeTarget = 'emulator' | 'real';

export interface TestCluster {
  /** Which server this is: the embedded emulator, or the real kube-apiserver of the E8 lane. */
  target: KubeTarget;
  /** The emulator itself (faults, url, token); throws on the real target, whose tests must not need it. */
  emulator: KubeEmulator;
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  custom: CustomObjectsApi;
  extensions: ApiextensionsV1Api;
  objects: KubernetesObjectApi;
  close(): Promise<void>;
}

function clientsOf(kubeConfig: KubeConfig) {
  return {
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    apps: kubeConfig.makeApiClient(AppsV1Api),
    custom: kubeConfig.makeApiClient(CustomObjectsApi),
    extensions: kubeConfig.makeApiClient(ApiextensionsV1Api),
    objects: KubernetesObjectApi.makeApiClient(kubeConfig),
  };
}

export function clientsFor(emulator: KubeEmulator): TestCluster {
  return { target: 'emulator', emulator, ...clientsOf(emulator.kubeConfig()), close: () => emulator.close() };
}

/**
 * E8: the server the conformance suites run against, read once, here. On the real target, KUBECONFIG
 * names its kubeconfig and OCC_KUBE_KUBECTL the kubectl of the same release (scripts/kube-apiserver/
 * cluster sets both), or the machine's kubectl.
 */
export function kubeTarget(
  env: NodeJS.ProcessEnv = process.env,
): { target: 'emulator' } | { target: 'real'; kubeconfig: string; kubectl: string } {
  const target = env.OCC_KUBE_TARGET ?? 'emulator';
  if (target === 'emulator') return { target };
  if (target !== 'real') throw new Error(`OCC_KUBE_TARGET must be "emulator" or "real", not ${JSON.stringify(target)}`);
  const kubeconfig = env.KUBECONFIG;
  if (!kubeconfig) throw new Error('OCC_KUBE_TARGET=real needs KUBECONFIG naming the real server\'s kubeconfig file');
  return { target, kubeconfig, kubectl: env.OCC_KUBE_KUBECTL || 'kubectl' };
}

export const KUBE_TARGET = kubeTarget();

/** Options that only an emulator started for the test can honour; a real server refuses them here. */
const EMULATOR_ONLY_OPTIONS = ['dataFile', 'compactLogAfterBytes', 'token', 'adminToken', 'watchHistorySize', 'host', 'port', 'admissionPolicyFiles'] as const;

export async function startTestCluster(options: KubeEmulatorOptions = {}): Promise<TestCluster> {
  if (KUBE_TARGET.target === 'emulator') {
    return clientsFor(await startKubeEmulator({ host: '127.0.0.1', port: 0, ...options }));
  }
  const unsupported = EMULATOR_ONLY_OPTIONS.filter((option) => options[option] !== undefined);
  if (unsupported.length > 0) {
    throw new Error(`emulator-only: ${unsupported.join(', ')} cannot be given to a real kube-apiserver; move the test to a *.emulator-only.test.ts file`);
  }
  return realCluster(KUBE_TARGET.kubeconfig, options.crdDirs ?? []);
}

/**
 * Clients for the real server named by a kubeconfig file. The CRDs asked for are applied (server-side,
 * forced, so that test files starting together agree) and awaited until Established, which is what the
 * emulator's `crdDirs` gives at start. `close` leaves the server running: the lane stops it. A test's
 * `clock` option cannot reach a real server; tests compare times through `managedTimes`.
 */
export async function realCluster(kubeconfigPath: string, crdDirs: readonly string[]): Promise<TestCluster> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const clients = clientsOf(reuseConnections(kubeConfig));
  for (const crd of await readCrdFiles(crdDirs)) await installCrd(clients, crd);
  return {
    target: 'real',
    get emulator(): KubeEmulator {
      throw new Error('emulator-only: this test reaches into the emulator, so it belongs in a *.emulator-only.test.ts file');
    },
    ...clients,
    close: async () => {},
  };
}

async function installCrd(clients: CrdClients & { objects: KubernetesObjectApi }, crd: KubeObject): Promise<void> {
  // Spelled for client-node's typed CRD model, which would otherwise drop the x-kubernetes-* keys (crds.ts).
  await clients.objects.patch(crdForClientModels(withoutMapIntOrString(crd)) as never, undefined, undefined, 'occ-test-harness', true, PatchStrategy.ServerSideApply);
  await untilServed(clients, crd.metadata.name ?? '');
}

type CrdClients = Pick<TestCluster, 'extensions' | 'custom'>;

/**
 * Waits, as a client must, until a CRD is Established and its resources answer: a real server
 * serves a new CRD's resources a moment after creating it (404 until then); the emulator at once.
 * Answers the CRD as then stored.
 */
async function untilServed(clients: CrdClients, name: string): Promise<V1CustomResourceDefinition> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const stored = await clients.extensions.readCustomResourceDefinition({ name });
    if (stored.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) {
      const version = stored.spec.versions.find((v) => v.served)?.name ?? '';
      const served = await clients.custom.listClusterCustomObject({ group: stored.spec.group, version, plural: stored.spec.names.plural }).then(
        () => true,
        () => false,
      );
      if (served) return stored;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`CRD ${name} was not served within 10 s`);
}

/**
 * REAL-SERVER-DIFFERENCES.md L5: kube-apiserver 1.20 cannot build the type model server-side apply
 * needs for a kind whose schema has an int-or-string inside `additionalProperties` (it publishes it
 * as `anyOf`, which its model builder refuses there; logged as "error building openapi models"),
 * and then applies that whole kind with a deduced schema: every list atomic, every map owned with
 * ".". The instance CRD's resources.limits and requests are such maps, so on the lane their values
 * are plain strings (the tests write quantities as strings); nothing else changes.
 */
export function withoutMapIntOrString(crd: KubeObject): KubeObject {
  const copy = structuredClone(crd);
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    const extra = record.additionalProperties as Record<string, unknown> | undefined;
    if (extra && typeof extra === 'object' && extra['x-kubernetes-int-or-string'] === true) {
      record.additionalProperties = { type: 'string' };
    }
    Object.values(record).forEach(visit);
  };
  visit(copy.spec);
  return copy;
}

/**
 * managedFields as a test with a fixed `clock` expects them: on the emulator, unchanged; on a real
 * server, whose clock no test sets, each entry's time (checked to be a recent RFC 3339 second) read
 * as `time`. Entry order is kept: the real server sorts by operation, time, then manager.
 */
export function atFixedTime(cluster: TestCluster, managedFields: unknown, time: string): unknown {
  if (cluster.target === 'emulator' || !Array.isArray(managedFields)) return managedFields;
  return managedFields.map((entry: Record<string, unknown>) => {
    const stamped = String(entry.time);
    const age = Date.now() - Date.parse(stamped);
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(stamped) || !(age > -60_000 && age < 3_600_000)) {
      throw new Error(`managedFields time ${stamped} is not a recent RFC 3339 second`);
    }
    return { ...entry, time };
  });
}

/** A fresh DNS-label name, so tests sharing one server never collide. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/** Creates a CRD and waits until it is served (untilServed). */
export async function createEstablishedCrd(cluster: TestCluster, body: V1CustomResourceDefinition): Promise<V1CustomResourceDefinition> {
  const created = await cluster.extensions.createCustomResourceDefinition({ body });
  return untilServed(cluster, created.metadata?.name ?? '');
}

export async function createNamespace(cluster: TestCluster, prefix = 'ns'): Promise<string> {
  const name = uniqueName(prefix);
  await cluster.core.createNamespace({ body: { metadata: { name } } });
  // L1: on the lane no serviceaccount controller gives the namespace its `default` ServiceAccount,
  // without which the ServiceAccount admission plugin refuses every Pod there; play that controller.
  // No token controller either, and a Pod that mounts a token waits for one (500, "No API token
  // found"): this account mounts none.
  if (cluster.target === 'real') {
    await cluster.core.createNamespacedServiceAccount({ namespace: name, body: { metadata: { name: 'default' }, automountServiceAccountToken: false } });
  }
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

type Cause = NonNullable<NonNullable<StatusFailure['details']>['causes']>[number];

/**
 * The causes of a 422, in the form the two servers agree on. The emulator words them as current
 * Kubernetes does, and a test compares them whole. The lane's 1.20 CRD validator (D2 in
 * REAL-SERVER-DIFFERENCES.md) names an array item's field without its index, words maxItems and
 * maxProperties as FieldValueInvalid, and orders causes by its own walk; there the fields refused,
 * indices dropped, are what must match.
 */
export function causesAsServed(cluster: Pick<TestCluster, 'target'>, causes: readonly Cause[] | undefined): unknown {
  if (cluster.target === 'emulator') return causes;
  return [...new Set((causes ?? []).map((c) => (c.field ?? '').replace(/\[\d+\]/g, '')))].sort();
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
      return { code: error.code, body: typeof raw === 'string' ? statusOrText(raw, error.code) : (raw as StatusFailure) };
    }
    throw error;
  }
  throw new Error('expected the call to fail, it succeeded');
}

/**
 * A Status body, or, for a real server's plain "404 page not found" (a path no API group serves),
 * the text as the message of a Status-shaped record, so callers compare codes and messages alike.
 */
function statusOrText(raw: string, code: number): StatusFailure {
  try {
    return JSON.parse(raw) as StatusFailure;
  } catch {
    return { kind: 'Text', apiVersion: '', metadata: {}, status: 'Failure', message: raw.trim(), reason: '', code };
  }
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

/** The CA certificate the kubeconfig's current cluster names, inline or as a file; undefined when it names none. */
function clusterCa(kubeConfig: KubeConfig): Buffer | undefined {
  const cluster = kubeConfig.getCurrentCluster();
  return cluster?.caData ? Buffer.from(cluster.caData, 'base64') : cluster?.caFile ? readFileSync(cluster.caFile) : undefined;
}

/**
 * L1 on the E8 lane: the lane runs no kube-controller-manager, whose root-CA publisher puts the
 * ConfigMap kube-root-ca.crt (the cluster's CA) into every namespace; a Pod that mounts its
 * service-account token (a projected volume that includes that ConfigMap, BoundServiceAccountTokenVolume)
 * cannot start without it. This plays that publisher: for each namespace, as it appears.
 */
export async function startRootCaPublisher(kubeConfig: KubeConfig): Promise<{ stop(): Promise<void> }> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const ca = clusterCa(kubeConfig)?.toString('utf8') ?? '';
  const publish = async (namespace: string) => {
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'kube-root-ca.crt' }, data: { 'ca.crt': ca } } }).catch(() => undefined);
  };
  const informer = makeInformer(kubeConfig, '/api/v1/namespaces', () => core.listNamespace());
  informer.on('add', (ns) => void publish(ns.metadata?.name ?? ''));
  informer.on('error', () => setTimeout(() => void informer.start().catch(() => undefined), 1000));
  await informer.start();
  return { stop: () => informer.stop() };
}

/**
 * A plain HTTPS request to the test cluster's server, emulator or real, with the credentials of
 * its kubeconfig (for bodies no typed client writes, such as protobuf), or, given `token`, as that
 * bearer token alone, trusting the kubeconfig's CA. The body comes back as bytes.
 */
export async function clusterRequest(
  cluster: Pick<TestCluster, 'kubeConfig'>,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: Buffer; token?: string } = {},
): Promise<{ status: number; contentType: string; body: Buffer }> {
  const server = cluster.kubeConfig.getCurrentCluster()?.server ?? '';
  const options: RequestOptions = { method: init.method ?? 'GET', headers: { ...init.headers, ...(init.body ? { 'content-length': String(init.body.length) } : {}) } };
  if (init.token === undefined) {
    await cluster.kubeConfig.applyToHTTPSOptions(options);
  } else {
    options.headers = { ...options.headers, authorization: `Bearer ${init.token}` };
    options.ca = clusterCa(cluster.kubeConfig);
  }
  return new Promise((resolve, reject) => {
    const request = httpsRequest(`${server}${path}`, options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

/**
 * An address of this machine that a Kubernetes API server may dial through an Endpoints object
 * (which refuses loopback and link-local addresses): the first non-internal IPv4, else IPv6.
 */
export function endpointAddress(): string {
  const addresses = Object.values(networkInterfaces()).flatMap((entries) => entries ?? []).filter((entry) => !entry.internal);
  const usable = addresses.filter((entry) => !(entry.family === 'IPv6' && entry.address.toLowerCase().startsWith('fe80')));
  const chosen = usable.find((entry) => entry.family === 'IPv4') ?? usable[0];
  if (!chosen) throw new Error('this machine has no non-loopback address for an Endpoints object to name');
  return chosen.address;
}
