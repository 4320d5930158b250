// deploy/: what the manifests promise, read from the files as `kubectl apply -k`
// would render them. The E8 lane also applies them to a real kube-apiserver and asks it about their
// RBAC (deploy-manifests.real-only.test.ts).

import { execFileSync } from 'node:child_process';
import yaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPENCLAW_CRD_DIR, readCrdFiles } from './crds.ts';
import { DEPLOY_DIR, renderDeploy } from './deploy-manifests.ts';
import type { KubeObject } from './types.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let objects: Obj[];
const find = (kind: string, name: string): Obj => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`deploy/ has no ${kind} ${name}`);
  return found;
};

beforeAll(async () => {
  objects = (await renderDeploy()) as Obj[];
});

function rulesOf(kind: 'ClusterRole' | 'Role', name: string): Obj[] {
  return find(kind, name).rules as Obj[];
}

function grants(rules: Obj[], group: string, resource: string, verb: string): boolean {
  return rules.some(
    (r) => r.apiGroups.includes(group) && (r.resources.includes(resource) || r.resources.includes('*')) && (r.verbs.includes(verb) || r.verbs.includes('*')),
  );
}

describe('deploy/ manifests', () => {
  // Found by the E8 lane: the reader ignored the kustomization's `images`, so what these tests
  // checked was not what `kubectl apply -k` sends (the Job's image had no tag).
  it('E8 K2 read as kustomize renders them: the same objects, namespaces and images as `kubectl kustomize deploy/`', () => {
    const rendered = yaml.loadAll(execFileSync('kubectl', ['kustomize', DEPLOY_DIR], { encoding: 'utf8' })) as Obj[];
    const key = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    const images = (list: Obj[]) => Object.fromEntries(list.map((o) => [key(o), JSON.stringify(o).match(/"image":"[^"]*"/g) ?? []]));
    expect(objects.map(key).sort()).toEqual(rendered.map(key).sort());
    expect(images(objects)).toEqual(images(rendered));
    expect(Object.values(images(objects)).flat()).toContain('"image":"openclaw-control-plane:dev"');
  });


  it('K2 carry the CRDs of deploy/crds unchanged, with their list and map markers', async () => {
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
    expect(crds).toEqual((await readCrdFiles([OPENCLAW_CRD_DIR])) as KubeObject[]);
    const spec = crds[0]!.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    expect(spec.skills['x-kubernetes-list-type']).toBe('set');
    expect(spec.config.properties.raw['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(spec.config.properties.raw['x-kubernetes-map-type']).toBeUndefined();
  });

  it('E8 the API runs two replicas, probed on /healthz and /readyz, with resources, as non-root on a read-only root filesystem', () => {
    const api = find('Deployment', 'occ-api');
    expect(api.spec.replicas).toBe(2);
    const pod = api.spec.template.spec;
    const [container] = pod.containers;
    expect(container.command).toEqual(['node', '--conditions=occ-dist', 'apps/api/dist/cli/start.js']);
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits.memory).toEqual(expect.any(String));
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    const env = Object.fromEntries(container.env.map((e: Obj) => [e.name, e.value ?? e.valueFrom]));
    expect(env).toMatchObject({ NODE_ENV: 'production', OCC_MIGRATE_AT_START: 'false', DATABASE_URL: { secretKeyRef: { name: 'occ-database', key: 'url' } } });
  });

  it('E8 every workload is non-root with a read-only root filesystem; the migration Job runs migrate.js without a token', () => {
    for (const [kind, name] of [['Deployment', 'occ-api'], ['Deployment', 'occ-worker'], ['Job', 'occ-migrate']] as const) {
      const pod = find(kind, name).spec.template.spec;
      expect(pod.securityContext.runAsNonRoot, `${kind} ${name}`).toBe(true);
      for (const c of pod.containers) expect(c.securityContext.readOnlyRootFilesystem, `${kind} ${name}`).toBe(true);
    }
    const job = find('Job', 'occ-migrate').spec.template.spec;
    expect(job.containers[0].command).toEqual(['node', '--conditions=occ-dist', 'apps/api/dist/cli/migrate.js']);
    expect(job.automountServiceAccountToken).toBe(false);
  });

  it('E8 the Service and the PodDisruptionBudget select the API pods only', () => {
    const apiLabels = find('Deployment', 'occ-api').spec.template.metadata.labels;
    const workerLabels = find('Deployment', 'occ-worker').spec.template.metadata.labels;
    const selects = (selector: Obj, labels: Obj) => Object.entries(selector).every(([k, v]) => labels[k] === v);
    const service = find('Service', 'occ-api').spec.selector;
    const pdb = find('PodDisruptionBudget', 'occ-api').spec.selector.matchLabels;
    for (const selector of [service, pdb]) {
      expect(selects(selector, apiLabels)).toBe(true);
      expect(selects(selector, workerLabels)).toBe(false);
    }
    expect(find('PodDisruptionBudget', 'occ-api').spec.minAvailable).toBe(1);
  });

  it('E8 no cluster-wide secret access: the ClusterRoles bound cluster-wide grant no verb on secrets', () => {
    const clusterBound = objects.filter((o) => o.kind === 'ClusterRoleBinding').map((b) => b.roleRef.name as string);
    expect(clusterBound.sort()).toEqual(['occ-controller-read', 'occ-provisioner', 'occ-webhook-ca']);
    // SC5: the webhook's CA goes into one configuration, by name, and nothing else is written cluster-wide by it.
    expect(rulesOf('ClusterRole', 'occ-webhook-ca')).toEqual([
      { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], resourceNames: ['openclaw-selfconfig'], verbs: ['get', 'update'] },
    ]);
    // RC2: the reconciler's caches read cluster-wide, and only read.
    for (const r of rulesOf('ClusterRole', 'occ-controller-read')) expect(r.verbs.filter((v: string) => !['get', 'list', 'watch'].includes(v))).toEqual([]);
    for (const name of clusterBound) {
      expect(rulesOf('ClusterRole', name).filter((r) => r.resources.includes('secrets') || r.resources.includes('*'))).toEqual([]);
    }
    // occ-tenant (secrets) is bound per tenant namespace at provisioning, never by a ClusterRoleBinding.
    expect(grants(rulesOf('ClusterRole', 'occ-tenant'), '', 'secrets', 'get')).toBe(true);
    // Bind exactly occ-tenant, and nothing lets occ-api escalate or impersonate.
    const provisioner = rulesOf('ClusterRole', 'occ-provisioner');
    expect(provisioner.filter((r) => r.verbs.includes('bind'))).toEqual([
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['occ-tenant'] },
    ]);
    for (const rules of [provisioner, rulesOf('ClusterRole', 'occ-tenant'), rulesOf('Role', 'occ-api')]) {
      for (const r of rules) expect(r.verbs.filter((v: string) => ['escalate', 'impersonate', '*'].includes(v))).toEqual([]);
    }
  });

  it('SC5 E8 an agent may only file and read SelfConfig requests: occ-selfconfig-agent grants nothing else, and occ-tenant holds all of it (so occ-api can bind it without bind or escalate)', () => {
    const agent = rulesOf('ClusterRole', 'occ-selfconfig-agent');
    expect(agent).toEqual([{ apiGroups: ['openclaw.rocks'], resources: ['openclawselfconfigs'], verbs: ['create', 'get', 'list', 'watch'] }]);
    const tenant = rulesOf('ClusterRole', 'occ-tenant');
    for (const verb of agent[0]!.verbs as string[]) expect(grants(tenant, 'openclaw.rocks', 'openclawselfconfigs', verb), verb).toBe(true);
    for (const verb of ['create', 'patch', 'delete']) expect(grants(tenant, 'rbac.authorization.k8s.io', 'rolebindings', verb), verb).toBe(true);
    expect(objects.some((o) => o.kind === 'ClusterRoleBinding' && o.roleRef.name === 'occ-selfconfig-agent')).toBe(false);
  });

  it('E8 R7 SC5 NetworkPolicy: default deny in the namespace, ingress to the API port and its webhook port (the API server calls it), the worker\'s probe port and (from the monitoring namespace) the metrics port only, egress to DNS, PostgreSQL and the API server', () => {
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const deny = policies.find((p) => Object.keys(p.spec.podSelector).length === 0)!;
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const ingress = policies.flatMap((p) => (p.spec.ingress ?? []).map((i: Obj) => ({ policy: p.metadata.name, from: i.from ?? 'anywhere', ports: i.ports.map((port: Obj) => port.port) })));
    expect(ingress).toEqual([
      { policy: 'occ-api-ingress', from: 'anywhere', ports: [4000] },
      { policy: 'occ-api-ingress', from: 'anywhere', ports: [9443] },
      { policy: 'occ-worker-probes', from: 'anywhere', ports: [4000] },
      { policy: 'occ-metrics-scrape', from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }], ports: [9464] },
    ]);
    const egressPorts = policies.flatMap((p) => p.spec.egress ?? []).flatMap((e: Obj) => e.ports.map((port: Obj) => `${port.protocol}/${port.port}`));
    expect(egressPorts.sort()).toEqual(['TCP/443', 'TCP/53', 'TCP/5432', 'TCP/6443', 'UDP/53']);
  });
});
