/**
 * @occ/kube-emulator: an embedded Kubernetes API server over HTTPS, for `npm start` and for
 * tests. `@kubernetes/client-node`, kubectl and any client-go program reach it through the
 * kubeconfig it hands out (bearer token; the emulator's own CA in certificate-authority-data,
 * tls.ts, rule E5).
 *
 * Emulates (rule E1): core/v1 namespaces, secrets, configmaps, events, nodes and pods/log; coordination.k8s.io/v1
 * leases; apps/v1 deployments (with /status, which takes annotations as a real server's does, and /scale); apiextensions.k8s.io/v1 customresourcedefinitions, whose custom resources
 * become servable (namespaced or cluster-scoped, every served version, /status when declared).
 * Verbs: get; list (label and field selectors, limit/continue); watch (replay from a bounded
 * history of recent writes, 410 Expired beyond it, selector transitions as ADDED/DELETED); create
 * (generateName); replace; merge, strategic-merge (by patch merge keys on built-in kinds) and JSON patch; delete (uid and
 * resourceVersion preconditions, finalizers); deletecollection; dryRun=All. Metadata: uid, one
 * global resourceVersion counter, generation, creationTimestamp; a write that changes nothing is
 * not written. Failures carry the Status bodies of a real kube-apiserver (1.33), including where
 * those differ from intuition: a body namespace that differs from the path's and non-base64
 * secret data are 400 BadRequest; DELETE of a secret, configmap, event or deployment answers a
 * Status Success naming it, of a namespace, CRD or custom resource the object; built-in list
 * items carry no kind/apiVersion. Discovery documents at /api, /apis and each group/version.
 * Deleting a namespace deletes its contents at once: it turns Terminating (one MODIFIED event),
 * its objects are deleted, then it is; there is no lingering Terminating phase.
 *
 * Server-side apply (rule E2, ssa/): PATCH application/apply-patch+yaml (JSON accepted) with a
 * required fieldManager and optional force merges by a schema (CRD structural schemas; built-in
 * ones for Secret, ConfigMap and Deployment; deduced for other kinds), prunes what the applier
 * dropped and nobody else owns, and answers 409 FieldManagerConflict causes naming managers and
 * paths. Every write keeps metadata.managedFields in exact FieldsV1 (Update entries from the
 * fieldManager parameter or the User-Agent before its first "/"); /status is tracked apart.
 * Custom resources are pruned and validated against their CRD's schema (422 per field). CRD
 * files can be preloaded (`crdDirs`; deploy/crds via OPENCLAW_CRD_DIR in crds.ts). Fault
 * injection (rule E4, faults.ts): `emulator.faults`, and /admin/faults with an `adminToken`.
 * The kubelet simulator (rule E3) is a separate client, kubelet/simulator.ts.
 *
 * Authentication and admission (SC5, auth.ts, tokens.ts, admission.ts): the admin token is a
 * system:masters user; TokenRequest tokens authenticate as their ServiceAccount; validating
 * admission webhooks are called over HTTPS before a write is stored.
 *
 * managedFields written by clients are taken as a real server takes them (E10): an update or a
 * JSON / merge patch that sends them replaces the stored ones, `[]` or `[{}]` clears them, entries
 * the server cannot decode leave them; kubectl's own manager gets fieldmanager's client-side to
 * server-side hand-over (conflicts on what last-applied-configuration holds are forgiven, the
 * annotation follows the applied configuration). Protobuf (E10, protobuf.ts) is read and written
 * for every built-in kind served but CustomResourceDefinition, their lists and TokenRequest, from a
 * table generated from k8s.io/api's Go types (protobuf-generate.ts); error Status bodies and watch
 * events stay JSON.
 *
 * Does not emulate (yet): CRD defaulting, CEL rules and conversion, controllers other than the
 * garbage collector (gc.ts: ownerReferences, background, foreground and orphan deletion) and the
 * kubelet simulator (kubelet/), mutating admission, aggregated discovery,
 * protobuf for CustomResourceDefinitions; nodes are served but only the kubelet simulator's is
 * there (registered Ready at its start, never turned NotReady: no node controller), and pods/log
 * (pod-log.ts) asks that simulator, whose gateways write a few lines (kubelet/logs.ts; `follow`
 * answers what there is and ends, `sinceSeconds` is ignored); Services, Jobs, NetworkPolicies and PodDisruptionBudgets are served so the
 * install applies (deploy-install.emulator-only.test.ts) but stored as given (no cluster IP, no Job
 * runs, no policy is enforced, no disruption counted); built-in kinds are checked against kube-apiserver
 * 1.20.2's schemas (kinds/openapi-captured.ts: unknown fields and the decoder's type errors, decode-types.ts)
 * plus the hand-written validation of each kind, so fields added after 1.20 are unknown here. Table output gives every built-in
 * kind the columns of kube-apiserver 1.33's printers (printers/columns.ts; Pod STATUS by printPod's
 * rules), with descriptions shortened. Pod Security Admission's `enforce` label is (E10,
 * pod-security.ts: Pods are judged at creation; `audit` and `warn` are not). Validating admission
 * webhooks are called (admission.ts; one named by service at an address of the Service's
 * Endpoints, which are written by hand: no endpoints controller, as with --enable-aggregator-routing)
 * and ValidatingAdmissionPolicies with their bindings enforced
 * (admission-policy.ts, Kubernetes 1.30's API; no paramKind, CEL without Kubernetes' libraries).
 * RBAC is enforced (E9, rbac-authorizer.ts), with user impersonation (impersonation.ts: `kubectl
 * --as`, `--as-group`, checked as the real filter checks them), and a
 * strategic merge patch on a custom resource answers 415 as on a real server (patch.test.ts).
 *
 * Layers: http.ts (authentication, routing, parsing, Status) → api.ts (verbs) → kinds/ (what
 * differs per kind) → store.ts (objects, resourceVersion, event history, watchers); registry.ts
 * maps paths to kinds and grows with CRDs; persistence.ts keeps the store in `dataFile` (a
 * snapshot and a write-ahead log compacted by a worker thread).
 */

import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import { isIP, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { installAdmissionPolicy, readAdmissionPolicyFiles } from './admission-policy.ts';
import { WebhookAdmission } from './admission.ts';
import { KubeApi } from './api.ts';
import { createAuthenticator } from './auth.ts';
import { readCrdFiles } from './crds.ts';
import { Faults, type FaultInjector } from './faults.ts';
import { GarbageCollector } from './gc.ts';
import { createHttpLayer } from './http.ts';
import { kubeConfigFor, kubeconfigYaml } from './kubeconfig.ts';
import { DataFileWriter, loadDataFile } from './persistence.ts';
import { ResourceRegistry, SERVICEACCOUNTS, storageKeyOf } from './registry.ts';
import { ClusterRoleAggregation } from './rbac-aggregation.ts';
import { Authorizer } from './rbac-authorizer.ts';
import { ensureBootstrapPolicy, installClusterRole, readClusterRoleFiles } from './rbac-bootstrap.ts';
import { ObjectStore } from './store.ts';
import { issueServingCertificate, loadOrCreateCertificateAuthority } from './tls.ts';
import { createTokenRequest, loadOrCreateSigningKey, ServiceAccountTokens } from './tokens.ts';

export interface KubeEmulatorOptions {
  /** Interface to listen on; 127.0.0.1 by default. */
  host?: string;
  /** Port to listen on; 0 (any free port) by default. */
  port?: number;
  /**
   * JSON file holding every object and the resourceVersion counter across restarts, with the log of
   * writes since it beside it (`<dataFile>.wal-NNNNNN`, persistence.ts); memory only without it.
   */
  dataFile?: string;
  /** The write log's budget before a worker thread folds it into the data file (4 MiB, or half the data file when larger). */
  compactLogAfterBytes?: number;
  /**
   * Directory keeping the certificate authority (ca.crt, ca.key) across restarts, so kubeconfigs
   * written earlier stay valid; the data file's directory by default, memory only without either.
   */
  caDir?: string;
  /** Bearer token clients must send; random when not given. */
  token?: string;
  /** How many recent writes a watch can resume from (2000 by default); older resourceVersions get 410 Expired. */
  watchHistorySize?: number;
  /** How often watches that allow bookmarks get one (60 s by default, as a real server). */
  watchBookmarkIntervalMs?: number;
  /**
   * Directories of CustomResourceDefinition YAML files to install at start (created, or updated
   * when the stored one differs), e.g. `[OPENCLAW_CRD_DIR]` from ./crds.ts.
   */
  crdDirs?: string[];
  /**
   * YAML files whose ClusterRole documents are installed at start (created, or updated when the
   * stored rules differ), as a platform's manifests would be: e.g. `[OPENCLAW_RBAC_FILE]` from
   * ./crds.ts, whose occ-selfconfig-agent role the product binds agents to (SC5, E9).
   */
  clusterRoleFiles?: string[];
  /**
   * YAML files whose ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding documents are
   * installed at start (created, or updated when the stored spec differs), e.g.
   * `[OPENCLAW_TENANT_POLICY_FILE]` from ./crds.ts (the occ-tenant binding restriction).
   */
  admissionPolicyFiles?: string[];
  /** The time managedFields entries are stamped with and tokens are issued and checked at; the wall clock by default. */
  clock?: () => Date;
  /**
   * PEM file of the key ServiceAccount tokens are signed with, made on first start; beside
   * `dataFile` by default, so tokens outlive a restart; in memory without either.
   */
  serviceAccountKeyFile?: string;
  /**
   * Turns on the fault-injection admin path /admin/faults for bearers of this token (distinct
   * from `token`). Off when absent; `emulator.faults` works either way.
   */
  adminToken?: string;
}

export interface KubeEmulator {
  /** https://host:port */
  url: string;
  token: string;
  /** PEM certificate of the CA that signed the serving certificate (the kubeconfig carries it too). */
  caCertificate: string;
  kubeConfig(): KubeConfig;
  kubeconfigYaml(): string;
  /** Fault injection (E4): make chosen verb + path requests fail, wait, or lose their response. */
  faults: FaultInjector;
  close(): Promise<void>;
}

const BUILT_IN_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function startKubeEmulator(options: KubeEmulatorOptions = {}): Promise<KubeEmulator> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  const loaded = options.dataFile ? await loadDataFile(options.dataFile) : undefined;
  const store = new ObjectStore(loaded?.snapshot, options.watchHistorySize);
  const registry = new ResourceRegistry();
  const api = new KubeApi(store, registry, options.clock);
  const writer = options.dataFile ? new DataFileWriter(options.dataFile, loaded, { compactAfterBytes: options.compactLogAfterBytes }) : undefined;
  const unsubscribe = writer ? store.subscribe((event) => writer.record(event)) : () => undefined;
  api.restoreCustomResources();
  const gc = new GarbageCollector(store, registry, api);
  for (const name of BUILT_IN_NAMESPACES) api.ensureNamespace(name);
  for (const crd of await readCrdFiles(options.crdDirs ?? [])) api.install(crd);
  // E9: the default roles, then their aggregation, before the first request is judged.
  const aggregation = new ClusterRoleAggregation(store, api);
  ensureBootstrapPolicy(store, api);
  for (const role of await readClusterRoleFiles(options.clusterRoleFiles ?? [])) installClusterRole(store, api, role);
  aggregation.sync();
  for (const policy of await readAdmissionPolicyFiles(options.admissionPolicyFiles ?? [])) installAdmissionPolicy(store, api, policy);

  const clock = options.clock ?? (() => new Date());
  const keyFile = options.serviceAccountKeyFile ?? (options.dataFile ? join(dirname(options.dataFile), 'service-account-key.pem') : undefined);
  const serviceAccountTokens = new ServiceAccountTokens(await loadOrCreateSigningKey(keyFile), clock);
  const serviceAccount = (namespace: string, name: string) => store.get(storageKeyOf(SERVICEACCOUNTS), namespace, name);
  const authenticate = createAuthenticator({
    adminToken: token,
    serviceAccountTokens,
    serviceAccountUid: (namespace, name) => serviceAccount(namespace, name)?.metadata.uid,
  });
  const requestToken = (namespace: string, name: string, body: unknown) =>
    createTokenRequest(serviceAccountTokens, serviceAccount(namespace, name), namespace, name, body);

  let address = '';
  const faults = new Faults();
  const http = createHttpLayer({
    api,
    registry,
    authenticate,
    authorizer: new Authorizer(store),
    admission: new WebhookAdmission(store, api),
    requestToken,
    serverAddress: () => address,
    faults,
    adminToken: options.adminToken,
    bookmarkIntervalMs: options.watchBookmarkIntervalMs,
  });
  const ca = await loadOrCreateCertificateAuthority(options.caDir ?? (options.dataFile ? dirname(options.dataFile) : undefined));
  const wildcard = host === '0.0.0.0' || host === '::';
  const hosts = [...new Set([...(wildcard ? [] : [host]), '127.0.0.1', '::1', 'localhost'])].filter((h) => h !== '');
  const serving = issueServingCertificate(ca, hosts);
  const server = createServer({ cert: serving.cert, key: serving.key }, (request, response) => http.handle(request, response));
  await listen(server, options.port ?? 0, host);
  const { port } = server.address() as AddressInfo;
  const reachable = wildcard ? '127.0.0.1' : host;
  address = `${isIP(reachable) === 6 ? `[${reachable}]` : reachable}:${port}`;
  const url = `https://${address}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    token,
    caCertificate: ca.cert,
    kubeConfig: () => kubeConfigFor(url, token, ca.cert),
    kubeconfigYaml: () => kubeconfigYaml(url, token, ca.cert),
    faults,
    close() {
      closing ??= (async () => {
        gc.stop();
        aggregation.stop();
        http.endWatches();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await stopped;
        unsubscribe();
        await writer?.close();
      })();
      return closing;
    },
  };
}
