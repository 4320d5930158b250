// deploy/ on a real kube-apiserver (E8 lane only: vitest.real.config.ts; the default config leaves
// *.real-only.test.ts out, since the emulator has no RBAC to ask). kubectl of the server's release
// renders the kustomization (so `apply -k` works with kustomize as old as 1.20's), applies it
// server-side, reads it back, and `kubectl auth can-i --as=system:serviceaccount:…` answers for what
// the product needs and for what it must not have.

import { execFile } from 'node:child_process';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOY_DIR, renderDeploy } from './deploy-manifests.ts';
import { KUBE_TARGET, uniqueName } from './testing.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SA = 'system:serviceaccount:occ-system:occ-api';
const MIGRATE_SA = 'system:serviceaccount:occ-system:occ-migrate';
/** The install step's apply (see beforeAll for why it forces conflicts). */
const APPLY = ['apply', '--server-side', '--force-conflicts', '--field-manager=occ-deploy', '-f', '-'];

let kubectlPath: string;
let kubeconfig: string;

async function kubectl(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = execFile(kubectlPath, ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 32 * 1024 * 1024 });
  if (input !== undefined) child.stdin?.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return { code, stdout, stderr };
}

async function ok(args: string[], input?: string): Promise<string> {
  const result = await kubectl(args, input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

/** `kubectl auth can-i` answers yes (exit 0) or no (exit 1); anything else is a failure of the check itself. */
async function canI(as: string, ...args: string[]): Promise<boolean> {
  const result = await kubectl(['auth', 'can-i', `--as=${as}`, ...args]);
  if (result.code > 1) throw new Error(`can-i ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim() === 'yes';
}

let tenant: string;
let foreign: string;
/** deploy/ as beforeAll applied it (rendered, the PodDisruptionBudget as 1.20 takes it). */
let installed: string;

beforeAll(async () => {
  if (KUBE_TARGET.target !== 'real') throw new Error('this file needs the E8 lane (OCC_KUBE_TARGET=real, KUBECONFIG)');
  kubectlPath = KUBE_TARGET.kubectl;
  kubeconfig = KUBE_TARGET.kubeconfig;
  // kubectl of the server's release renders the kustomization; the one object 1.20 lacks the
  // version of (PodDisruptionBudget policy/v1, D8 in REAL-SERVER-DIFFERENCES.md) is sent as v1beta1.
  const rendered = await ok(['kustomize', DEPLOY_DIR]);
  const for120 = rendered.replace(/^apiVersion: policy\/v1\nkind: PodDisruptionBudget$/m, 'apiVersion: policy/v1beta1\nkind: PodDisruptionBudget');
  expect(for120).not.toBe(rendered);
  // --force-conflicts: the lane's harness applied the same CRDs first (manager occ-test-harness,
  // with L5's string quantities), as an earlier install by another manager would have; taking them
  // over is what the README's install step does on a cluster that has them.
  installed = for120;
  await ok(APPLY, installed);

  // A tenant namespace as the product provisions it (K1): labelled ours, then the RoleBinding to
  // occ-tenant made by the product's own service account.
  tenant = uniqueName('tenant');
  foreign = uniqueName('foreign');
  await ok(['create', 'namespace', tenant]);
  await ok(['label', 'namespace', tenant, 'app.kubernetes.io/managed-by=openclaw-control-plane']);
  await ok(['create', 'namespace', foreign]);
  await ok(['create', 'rolebinding', 'occ-tenant', '-n', tenant, '--clusterrole=occ-tenant', '--serviceaccount=occ-system:occ-api', `--as=${SA}`]);
});

// The install's SelfConfig webhook (failurePolicy Fail) names occ-system/occ-api, which no process
// serves on this shared server: left in place it would refuse every later file's SelfConfig
// requests. (The product serving it is proven by apps/api's kube/webhook-certificates.test.ts.)
afterAll(async () => {
  await kubectl(['delete', 'validatingwebhookconfiguration', 'openclaw-selfconfig', '--ignore-not-found']);
});

describe('E8 deploy/ applied to a real kube-apiserver', () => {
  it('E8 K2 kubectl apply --server-side takes every object, and each reads back as written', async () => {
    const objects = (await renderDeploy()) as Obj[];
    expect(objects.length).toBeGreaterThan(10);
    for (const object of objects) {
      const kind = object.kind === 'PodDisruptionBudget' ? 'poddisruptionbudgets.policy' : object.kind;
      const args = ['get', kind, object.metadata.name, '-o', 'json', ...(object.metadata.namespace ? ['-n', object.metadata.namespace] : [])];
      const live = JSON.parse(await ok(args)) as Obj;
      const { apiVersion: _a, metadata, ...rest } = object;
      // The server adds defaults (and status), it must keep every field the file sets.
      expect({ ...live, metadata: { ...live.metadata } }, `${object.kind} ${metadata.name}`).toMatchObject({ ...rest, metadata: { name: metadata.name, ...(metadata.labels ? { labels: metadata.labels } : {}) } });
      const managers = (live.metadata.managedFields as Obj[]).map((e) => `${e.manager}/${e.operation}`);
      expect(managers, `${object.kind} ${metadata.name}`).toContain('occ-deploy/Apply');
    }
  });

  it('K2 the CRDs from deploy/ are Established on the real server with their list and map markers', async () => {
    const crd = JSON.parse(await ok(['get', 'crd', 'openclawinstances.openclaw.rocks', '-o', 'json'])) as Obj;
    expect(crd.status.conditions.find((c: Obj) => c.type === 'Established')?.status).toBe('True');
    const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    expect(spec.skills['x-kubernetes-list-type']).toBe('set');
    expect(spec.env['x-kubernetes-list-map-keys']).toEqual(['name']);
    expect(spec.workspace.properties.initialFiles['x-kubernetes-map-type']).toBe('granular');
    // config.raw carries no map type: a preserve-unknown-fields object whose values the server
    // types itself (granular at every level since 1.22, at its first level on 1.20: D10).
    expect(spec.config.properties.raw['x-kubernetes-map-type']).toBeUndefined();
    expect(spec.config.properties.raw['x-kubernetes-preserve-unknown-fields']).toBe(true);
  });

  it('E8 the service account can do what the product needs', async () => {
    const needs: string[][] = [
      ['create', 'namespaces'],
      ['get', 'namespaces'],
      ['list', 'namespaces'],
      ['create', 'rolebindings', '-n', tenant],
      ['create', 'secrets', '-n', tenant],
      ['get', 'secrets', '-n', tenant],
      ['list', 'secrets', '-n', tenant],
      ['update', 'secrets', '-n', tenant],
      ['delete', 'secrets', '-n', tenant],
      ['patch', 'deployments.apps', '-n', tenant],
      ['create', 'configmaps', '-n', tenant],
      ['create', 'serviceaccounts', '-n', tenant],
      ['patch', 'openclawinstances.openclaw.rocks', '-n', tenant],
      ['update', 'openclawselfconfigs.openclaw.rocks', '--subresource=status', '-n', tenant],
      ['create', 'events', '-n', tenant],
      ['watch', 'pods', '-n', tenant],
      // RC2: the instance reconciler's caches (cluster-wide, read-only) and its writes in a tenant namespace.
      ['watch', 'openclawinstances.openclaw.rocks', '--all-namespaces'],
      ['list', 'deployments.apps', '--all-namespaces'],
      ['watch', 'configmaps', '--all-namespaces'],
      ['watch', 'serviceaccounts', '--all-namespaces'],
      ['watch', 'rolebindings.rbac.authorization.k8s.io', '--all-namespaces'],
      ['watch', 'pods', '--all-namespaces'],
      ['update', 'rolebindings.rbac.authorization.k8s.io', '-n', tenant],
      ['update', 'deployments.apps', '-n', tenant],
      ['patch', 'openclawinstances.openclaw.rocks', '--subresource=status', '-n', tenant],
      ['update', 'openclawinstances.openclaw.rocks', '--subresource=finalizers', '-n', tenant],
      ['create', 'leases.coordination.k8s.io', '-n', 'occ-system'],
      ['update', 'leases.coordination.k8s.io', '-n', 'occ-system'],
      ['create', 'secrets', '-n', 'occ-system'],
      ['get', 'secrets/occ-bootstrap-key', '-n', 'occ-system'],
      ['delete', 'secrets/occ-bootstrap-key', '-n', 'occ-system'],
    ];
    const answers = await Promise.all(needs.map(async (args) => [args.join(' '), await canI(SA, ...args)] as const));
    expect(answers.filter(([, yes]) => !yes).map(([what]) => what)).toEqual([]);
  });

  it('E8 the service account cannot read secrets outside namespaces labelled ours, nor escalate', async () => {
    const forbidden: string[][] = [
      ['get', 'secrets', '-n', 'default'],
      ['get', 'secrets', '-n', 'kube-system'],
      ['list', 'secrets', '-n', foreign],
      ['list', 'secrets', '--all-namespaces'],
      ['watch', 'secrets', '--all-namespaces'],
      ['get', 'secrets', '-n', 'occ-system'],
      ['get', 'secrets/occ-database', '-n', 'occ-system'],
      ['list', 'secrets', '-n', 'occ-system'],
      ['delete', 'namespaces'],
      ['update', 'namespaces'],
      ['create', 'clusterrolebindings'],
      ['create', 'roles', '-n', tenant],
      ['bind', 'clusterroles/cluster-admin'],
      ['escalate', 'clusterroles'],
      ['impersonate', 'users'],
      ['create', 'pods', '-n', tenant],
      ['create', 'pods/exec', '-n', tenant],
      ['update', 'customresourcedefinitions.apiextensions.k8s.io'],
      ['create', 'deployments.apps', '-n', 'kube-system'],
    ];
    const answers = await Promise.all(forbidden.map(async (args) => [args.join(' '), await canI(SA, ...args)] as const));
    expect(answers.filter(([, yes]) => yes).map(([what]) => what)).toEqual([]);
  });

  // Not `edit`: it is an aggregated role whose rules the controller-manager fills in, so on the lane
  // (L1: no controllers) it has none, and binding an empty role escalates nothing. Its largest
  // piece, system:aggregate-to-edit, carries its rules itself.
  it('E8 binding occ-tenant is all the service account can bind: cluster-admin or edit\'s rules in a namespace are refused', async () => {
    for (const role of ['cluster-admin', 'system:aggregate-to-edit']) {
      const attempt = await kubectl(['create', 'rolebinding', uniqueName('grab'), '-n', foreign, `--clusterrole=${role}`, '--serviceaccount=occ-system:occ-api', `--as=${SA}`]);
      expect(attempt.code, role).not.toBe(0);
      expect(attempt.stderr, role).toMatch(/forbidden/i);
    }
    // After the product binds occ-tenant in its own namespace, secrets there are readable, and still nowhere else.
    expect(await canI(SA, 'get', 'secrets', '-n', tenant)).toBe(true);
    expect(await canI(SA, 'get', 'secrets', '-n', foreign)).toBe(false);
  });

  it('SC5 E8 in a tenant namespace the service account binds occ-selfconfig-agent to an agent, which may then file SelfConfig requests there and do nothing else', async () => {
    const agent = `system:serviceaccount:${tenant}:agent-sc5`;
    expect(await canI(agent, 'create', 'openclawselfconfigs.openclaw.rocks', '-n', tenant)).toBe(false);
    // As the product does it (an apply as occ-api); RBAC allows it because occ-api holds every permission the role grants there.
    await ok(['create', 'rolebinding', 'agent-sc5-selfconfig', '-n', tenant, '--clusterrole=occ-selfconfig-agent', `--serviceaccount=${tenant}:agent-sc5`, `--as=${SA}`]);
    for (const verb of ['create', 'get', 'list', 'watch']) expect(await canI(agent, verb, 'openclawselfconfigs.openclaw.rocks', '-n', tenant), verb).toBe(true);
    const forbidden = [
      ['create', 'openclawselfconfigs.openclaw.rocks', '-n', foreign],
      ['patch', 'openclawinstances.openclaw.rocks', '-n', tenant],
      ['update', 'openclawselfconfigs.openclaw.rocks', '--subresource=status', '-n', tenant],
      ['get', 'secrets', '-n', tenant],
      ['create', 'pods', '-n', tenant],
    ];
    for (const args of forbidden) expect(await canI(agent, ...args), args.join(' ')).toBe(false);
    // And occ-api cannot bind it outside a namespace that is ours.
    const outside = await kubectl(['create', 'rolebinding', uniqueName('sc5'), '-n', foreign, '--clusterrole=occ-selfconfig-agent', `--serviceaccount=${foreign}:agent-sc5`, `--as=${SA}`]);
    expect(outside.stderr).toMatch(/forbidden/i);
  });

  it('SC5 E8 the install\'s webhook is in effect as applied: with no replica serving it, failurePolicy Fail refuses SelfConfig requests; occ-api may write its CA and its certificate Secret, nothing broader', async () => {
    const request = JSON.stringify({
      apiVersion: 'openclaw.rocks/v1alpha1',
      kind: 'OpenClawSelfConfig',
      metadata: { name: 'refused', namespace: tenant },
      spec: { instanceRef: 'nobody', addSkills: ['x'] },
    });
    // A real server applies a new webhook configuration once its informer has seen it.
    let outcome = await kubectl(['create', '-f', '-'], request);
    for (let i = 0; outcome.code === 0 && i < 40; i++) {
      await kubectl(['delete', 'openclawselfconfigs.openclaw.rocks', 'refused', '-n', tenant]);
      await new Promise((r) => setTimeout(r, 250));
      outcome = await kubectl(['create', '-f', '-'], request);
    }
    expect(outcome.stderr).toContain('failed calling webhook "selfconfig.openclaw.rocks"');
    expect(outcome.stderr).toContain('https://occ-api.occ-system.svc:443/validate/openclawselfconfigs');
    expect(await canI(SA, 'update', 'validatingwebhookconfigurations/openclaw-selfconfig')).toBe(true);
    expect(await canI(SA, 'update', 'validatingwebhookconfigurations/another')).toBe(false);
    expect(await canI(SA, 'delete', 'validatingwebhookconfigurations/openclaw-selfconfig')).toBe(false);
    expect(await canI(SA, 'update', 'secrets/occ-api-webhook-tls', '-n', 'occ-system')).toBe(true);
    expect(await canI(SA, 'get', 'secrets/occ-database', '-n', 'occ-system')).toBe(false);
  });

  it('E8 the migration Job has no Kubernetes permissions at all', async () => {
    for (const args of [['get', 'secrets', '-n', 'occ-system'], ['list', 'namespaces'], ['create', 'leases.coordination.k8s.io', '-n', 'occ-system']]) {
      expect(await canI(MIGRATE_SA, ...args), args.join(' ')).toBe(false);
    }
    const sa = yaml.load(await ok(['get', 'serviceaccount', 'occ-migrate', '-n', 'occ-system', '-o', 'yaml'])) as Obj;
    expect(sa.automountServiceAccountToken).toBe(false);
  });

  it("R2 E8 a new release as the README's install step 6 gives it: the changed Job is refused (a Job's template cannot change) while the rest applies, and after deleting the finished Job the same apply takes it", async () => {
    const image = 'registry.example/openclaw-control-plane:release-2';
    const next = installed.replace(/^(\s+image: )\S+$/gm, `$1${image}`);
    expect(next.match(/^\s+image: /gm)).toHaveLength(3); // the Job, the API, the worker
    const refused = await kubectl(APPLY, next);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/The Job "occ-migrate" is invalid: spec\.template: Invalid value: .*: field is immutable/s);
    const imageOf = async (kind: string, name: string) => ok(['get', kind, name, '-n', 'occ-system', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']);
    expect(await imageOf('deployment', 'occ-api')).toBe(image);
    expect(await imageOf('job', 'occ-migrate')).not.toBe(image);
    await ok(['delete', 'job', 'occ-migrate', '-n', 'occ-system', '--wait=true']);
    await ok(APPLY, next);
    expect(await imageOf('job', 'occ-migrate')).toBe(image);
    expect(await imageOf('deployment', 'occ-worker')).toBe(image);
    // Back to the install as written, by the same step (later files on this server apply deploy/
    // as written, and would meet the Job's other template).
    await ok(['delete', 'job', 'occ-migrate', '-n', 'occ-system', '--wait=true']);
    await ok(APPLY, installed);
    expect(await imageOf('job', 'occ-migrate')).not.toBe(image);
  });
});
