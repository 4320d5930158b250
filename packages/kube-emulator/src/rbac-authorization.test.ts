import { request as httpsRequest } from 'node:https';
import { RbacAuthorizationV1Api, type V1PolicyRule } from '@kubernetes/client-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forbiddenError, requestAttributes, ruleAllows, type PolicyRule } from './rbac-authorizer.ts';
import { createNamespace, startTestCluster, uniqueName, type TestCluster } from './testing.ts';

// E9, one suite for both servers (E8): the emulator, and on the lane the real kube-apiserver in
// RBAC mode (scripts/kube-apiserver/cluster). A ServiceAccount's token asks the questions of issue
// SC5's threat: another namespace's Secrets, Secrets cluster-wide, its own SelfConfig, the webhook
// registrations; and a generated matrix of roles × requests, whose allow/deny and 403 bodies must be
// those the RBAC rules give (the same expectations on both servers, so the two agree).

let cluster: TestCluster;
let rbac: RbacAuthorizationV1Api;
const RBAC_GROUP = 'rbac.authorization.k8s.io';

beforeAll(async () => {
  cluster = await startTestCluster();
  rbac = cluster.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
});
afterAll(() => cluster.close());

interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

/** A request to the cluster's server with a bearer token of our choosing. */
function call(token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const server = cluster.kubeConfig.getCurrentCluster();
  const ca = Buffer.from(server?.caData ?? '', 'base64');
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      `${server?.server ?? ''}${path}`,
      {
        method,
        ca,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: Record<string, unknown> = {};
          try {
            parsed = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // plain text (healthz)
          }
          resolve({ status: response.statusCode ?? 0, body: parsed, text });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** A ServiceAccount in `namespace` and a token for it. */
async function serviceAccount(namespace: string, name = uniqueName('sa')): Promise<{ name: string; user: string; token: string }> {
  await cluster.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const answer = await cluster.core.createNamespacedServiceAccountToken({ namespace, name, body: { spec: { audiences: [] } } });
  return { name, user: `system:serviceaccount:${namespace}:${name}`, token: answer.status?.token ?? '' };
}

async function bindRole(namespace: string, sa: { name: string; token: string }, rules: V1PolicyRule[]): Promise<string> {
  const name = uniqueName('role');
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: { metadata: { name }, roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name }, subjects: [{ kind: 'ServiceAccount', name: sa.name, namespace }] },
  });
  await untilAllowed(sa.token, probeOf(namespace, rules[0]!));
  return name;
}

type ResourceAttributes = { namespace: string; verb: string; group: string; resource: string; subresource?: string; name?: string };

/** A request the rule allows, as SelfSubjectAccessReview attributes. */
function probeOf(namespace: string, rule: V1PolicyRule): ResourceAttributes {
  const verb = rule.verbs[0] === '*' ? 'get' : rule.verbs[0]!;
  const group = rule.apiGroups?.[0] === '*' ? '' : (rule.apiGroups?.[0] ?? '');
  const [first, subresource] = (rule.resources?.[0] ?? 'configmaps').split('/');
  const resource = first === '*' ? (subresource ? 'deployments' : 'configmaps') : first!;
  const name = rule.resourceNames?.[0];
  return { namespace, verb, group, resource, ...(subresource ? { subresource } : {}), ...(name ? { name } : {}) };
}

/**
 * A real server's authorizer learns a new Role and RoleBinding from its own watch, a moment after
 * they are written (longer on a loaded machine: the lane once saw a 403 right after the binding);
 * a client of a real cluster waits for that, asking the authorizer itself. The emulator answers
 * allowed at once.
 */
async function untilAllowed(token: string, attributes: ResourceAttributes): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const review = await call(token, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: attributes },
    });
    if ((review.body.status as { allowed?: boolean } | undefined)?.allowed === true) return;
    if (Date.now() > deadline) throw new Error(`the binding did not take effect within 15 s: ${JSON.stringify(attributes)} (${review.text})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function forbidden(message: string, details: Record<string, string>): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 };
}

describe('E9 a ServiceAccount bound in one namespace', () => {
  let home: string;
  let other: string;
  let sa: { name: string; user: string; token: string };

  beforeAll(async () => {
    home = await createNamespace(cluster, 'home');
    other = await createNamespace(cluster, 'other');
    sa = await serviceAccount(home);
    await bindRole(home, sa, [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch', 'create'] }]);
    await cluster.core.createNamespacedSecret({ namespace: other, body: { metadata: { name: 'theirs' }, stringData: { k: 'v' } } });
  });

  it('E9 reads and creates Secrets in its own namespace', async () => {
    expect((await call(sa.token, 'GET', `/api/v1/namespaces/${home}/secrets`)).status).toBe(200);
    const created = await call(sa.token, 'POST', `/api/v1/namespaces/${home}/secrets`, { metadata: { name: 'mine' }, stringData: { k: 'v' } });
    expect(created.status).toBe(201);
  });

  it('E9 Secrets cluster-wide are 403, worded as a real server words it', async () => {
    const answer = await call(sa.token, 'GET', '/api/v1/secrets');
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual(
      forbidden(`secrets is forbidden: User "${sa.user}" cannot list resource "secrets" in API group "" at the cluster scope`, { kind: 'secrets' }),
    );
  });

  it('E9 another namespace\'s Secrets are 403 to list, get, create and delete; the value never leaves', async () => {
    const list = await call(sa.token, 'GET', `/api/v1/namespaces/${other}/secrets`);
    expect(list.body).toEqual(forbidden(`secrets is forbidden: User "${sa.user}" cannot list resource "secrets" in API group "" in the namespace "${other}"`, { kind: 'secrets' }));
    const get = await call(sa.token, 'GET', `/api/v1/namespaces/${other}/secrets/theirs`);
    expect(get.body).toEqual(
      forbidden(`secrets "theirs" is forbidden: User "${sa.user}" cannot get resource "secrets" in API group "" in the namespace "${other}"`, { name: 'theirs', kind: 'secrets' }),
    );
    expect(get.text).not.toContain(Buffer.from('v').toString('base64') + '"');
    const create = await call(sa.token, 'POST', `/api/v1/namespaces/${other}/secrets`, { metadata: { name: 'planted' } });
    expect(create.body).toEqual(forbidden(`secrets is forbidden: User "${sa.user}" cannot create resource "secrets" in API group "" in the namespace "${other}"`, { kind: 'secrets' }));
    const remove = await call(sa.token, 'DELETE', `/api/v1/namespaces/${other}/secrets/theirs`);
    expect(remove.status).toBe(403);
    expect((await cluster.core.readNamespacedSecret({ namespace: other, name: 'theirs' })).metadata?.name).toBe('theirs');
  });

  it('E9 webhook registrations are 403 to list and delete, at the cluster scope', async () => {
    const list = await call(sa.token, 'GET', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations');
    expect(list.body).toEqual(
      forbidden(
        `validatingwebhookconfigurations.admissionregistration.k8s.io is forbidden: User "${sa.user}" cannot list resource "validatingwebhookconfigurations" in API group "admissionregistration.k8s.io" at the cluster scope`,
        { group: 'admissionregistration.k8s.io', kind: 'validatingwebhookconfigurations' },
      ),
    );
    const remove = await call(sa.token, 'DELETE', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/anything');
    expect(remove.body).toEqual(
      forbidden(
        `validatingwebhookconfigurations.admissionregistration.k8s.io "anything" is forbidden: User "${sa.user}" cannot delete resource "validatingwebhookconfigurations" in API group "admissionregistration.k8s.io" at the cluster scope`,
        { name: 'anything', group: 'admissionregistration.k8s.io', kind: 'validatingwebhookconfigurations' },
      ),
    );
  });

  it('E9 a subresource is named with its resource; a namespace read names the namespace it is', async () => {
    const scale = await call(sa.token, 'GET', `/apis/apps/v1/namespaces/${home}/deployments/web/scale`);
    expect(scale.body).toEqual(
      forbidden(`deployments.apps "web" is forbidden: User "${sa.user}" cannot get resource "deployments/scale" in API group "apps" in the namespace "${home}"`, { name: 'web', group: 'apps', kind: 'deployments' }),
    );
    const namespace = await call(sa.token, 'GET', `/api/v1/namespaces/${other}`);
    expect(namespace.body).toEqual(
      forbidden(`namespaces "${other}" is forbidden: User "${sa.user}" cannot get resource "namespaces" in API group "" in the namespace "${other}"`, { name: other, kind: 'namespaces' }),
    );
  });

  it('E9 discovery, /version and /openapi/v2 answer every authenticated user (system:discovery); another path is 403 by path', async () => {
    for (const path of ['/api', '/apis', '/api/v1', '/version', '/openapi/v2', '/healthz']) expect([path, (await call(sa.token, 'GET', path)).status]).toEqual([path, 200]);
    const denied = await call(sa.token, 'GET', '/metrics');
    expect(denied.body).toEqual(forbidden(`forbidden: User "${sa.user}" cannot get path "/metrics"`, {}));
  });

  it('E9 a binding to a role that does not exist grants nothing, and the 403 says which role is missing', async () => {
    const name = uniqueName('dangling');
    await rbac.createNamespacedRoleBinding({
      namespace: home,
      body: { metadata: { name }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name }, subjects: [{ kind: 'ServiceAccount', name: sa.name }] },
    });
    // A real server's authorizer names the binding's missing role only once its watch has the
    // binding (untilAllowed above says why); until then it refuses without the reason. The emulator
    // answers with it at once.
    const missing = `"${name}" not found`;
    const deadline = Date.now() + 15_000;
    let answer = await call(sa.token, 'GET', `/api/v1/namespaces/${home}/configmaps`);
    while (!String(answer.body.message).endsWith(missing) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await call(sa.token, 'GET', `/api/v1/namespaces/${home}/configmaps`);
    }
    expect(answer.body.message).toBe(
      `configmaps is forbidden: User "${sa.user}" cannot list resource "configmaps" in API group "" in the namespace "${home}": RBAC: clusterrole.rbac.authorization.k8s.io "${name}" not found`,
    );
    await rbac.deleteNamespacedRoleBinding({ namespace: home, name });
  });
});

describe('E9 SC5 an agent\'s ServiceAccount under the product\'s occ-selfconfig-agent rules', () => {
  it('E9 SC5 may file SelfConfig requests in its own namespace only, and may not touch instances', async () => {
    const home = await createNamespace(cluster, 'agent');
    const other = await createNamespace(cluster, 'agent');
    const sa = await serviceAccount(home);
    // deploy/rbac.yaml's occ-selfconfig-agent, under a name of this test's own (ClusterRoles are cluster-wide).
    const role = uniqueName('selfconfig-agent');
    await rbac.createClusterRole({ body: { metadata: { name: role }, rules: [{ apiGroups: ['openclaw.rocks'], resources: ['openclawselfconfigs'], verbs: ['create', 'get', 'list', 'watch'] }] } });
    await rbac.createNamespacedRoleBinding({
      namespace: home,
      body: { metadata: { name: role }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role }, subjects: [{ kind: 'ServiceAccount', name: sa.name, namespace: home }] },
    });
    await untilAllowed(sa.token, { namespace: home, verb: 'get', group: 'openclaw.rocks', resource: 'openclawselfconfigs' });
    // The question is asked before the path is resolved, so no CRD is needed for the answer.
    const own = await call(sa.token, 'GET', `/apis/openclaw.rocks/v1alpha1/namespaces/${home}/openclawselfconfigs`);
    expect(own.status).not.toBe(403);
    const elsewhere = await call(sa.token, 'POST', `/apis/openclaw.rocks/v1alpha1/namespaces/${other}/openclawselfconfigs`, { metadata: { name: 'x' } });
    expect(elsewhere.body).toEqual(
      forbidden(`openclawselfconfigs.openclaw.rocks is forbidden: User "${sa.user}" cannot create resource "openclawselfconfigs" in API group "openclaw.rocks" in the namespace "${other}"`, {
        group: 'openclaw.rocks',
        kind: 'openclawselfconfigs',
      }),
    );
    const instance = await call(sa.token, 'PATCH', `/apis/openclaw.rocks/v1alpha1/namespaces/${home}/openclawinstances/mine`, {});
    expect(instance.body.message).toBe(
      `openclawinstances.openclaw.rocks "mine" is forbidden: User "${sa.user}" cannot patch resource "openclawinstances" in API group "openclaw.rocks" in the namespace "${home}"`,
    );
    await rbac.deleteClusterRole({ name: role });
  });
});

describe('E9 SelfSubjectAccessReview and SubjectAccessReview', () => {
  it('E9 a ServiceAccount asks what it may do; the admin asks about the ServiceAccount', async () => {
    const home = await createNamespace(cluster, 'review');
    const sa = await serviceAccount(home);
    const role = await bindRole(home, sa, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    const self = await call(sa.token, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace: home, verb: 'get', resource: 'configmaps' } },
    });
    expect(self.status).toBe(201);
    expect(self.body.status).toEqual({ allowed: true, reason: `RBAC: allowed by RoleBinding "${role}/${home}" of Role "${role}" to ServiceAccount "${sa.name}/${home}"` });
    const admin = cluster.kubeConfig.getCurrentUser()?.token ?? '';
    const about = await call(admin, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: sa.user, groups: ['system:serviceaccounts', `system:serviceaccounts:${home}`, 'system:authenticated'], resourceAttributes: { verb: 'list', resource: 'secrets' } },
    });
    expect(about.status).toBe(201);
    expect(about.body.status).toEqual({ allowed: false });
    // A ServiceAccount may not ask about others.
    const refused = await call(sa.token, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { spec: { user: 'x', resourceAttributes: { verb: 'get', resource: 'secrets' } } });
    expect(refused.body.message).toBe(
      `subjectaccessreviews.authorization.k8s.io is forbidden: User "${sa.user}" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope`,
    );
  });
});

// The matrix: one ServiceAccount per case, one Role, one request. The expected answer is RBAC's
// rule (ruleAllows) and the real server's 403 wording (forbiddenError); on the lane the same seed
// makes the same cases, so both servers are held to the same answers.
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', '*'];
const RESOURCES: [string, string][] = [
  ['', 'configmaps'],
  ['', 'secrets'],
  ['', 'pods/log'],
  ['apps', 'deployments'],
  ['apps', 'deployments/scale'],
  ['apps', 'deployments/status'],
  ['coordination.k8s.io', 'leases'],
];

const ruleArb = fc.record({
  verbs: fc.uniqueArray(fc.constantFrom(...VERBS), { minLength: 1, maxLength: 3 }),
  apiGroups: fc.uniqueArray(fc.constantFrom('', 'apps', 'coordination.k8s.io', '*'), { minLength: 1, maxLength: 2 }),
  resources: fc.uniqueArray(fc.constantFrom('configmaps', 'secrets', 'deployments', 'deployments/scale', '*/scale', 'pods/log', 'leases', '*'), { minLength: 1, maxLength: 3 }),
  resourceNames: fc.oneof(fc.constant([] as string[]), fc.uniqueArray(fc.constantFrom('a', 'b'), { minLength: 1, maxLength: 2 })),
});

const requestArb = fc.record({
  resource: fc.constantFrom(...RESOURCES),
  verb: fc.constantFrom('get', 'list', 'list-by-name', 'create', 'patch', 'delete', 'deletecollection'),
  name: fc.constantFrom('a', 'b', 'c'),
  elsewhere: fc.boolean(),
});

type MatrixRequest = { method: string; path: string; body?: unknown };

function matrixRequest(request: { resource: [string, string]; verb: string; name: string }, namespace: string): MatrixRequest {
  const [group, combined] = request.resource;
  const [resource, subresource] = combined.split('/');
  const base = group ? `/apis/${group}/v1/namespaces/${namespace}/${resource}` : `/api/v1/namespaces/${namespace}/${resource}`;
  const item = `${base}/${request.name}${subresource ? `/${subresource}` : ''}`;
  switch (request.verb) {
    case 'get':
      return { method: 'GET', path: item };
    case 'list':
      return { method: 'GET', path: base };
    case 'list-by-name':
      return { method: 'GET', path: `${base}?fieldSelector=metadata.name%3D${request.name}` };
    case 'create':
      return { method: 'POST', path: `${base}?dryRun=All`, body: { metadata: { name: request.name } } };
    case 'patch':
      return { method: 'PATCH', path: `${item}?dryRun=All`, body: {} };
    case 'delete':
      return { method: 'DELETE', path: `${item}?dryRun=All` };
    default:
      return { method: 'DELETE', path: `${base}?dryRun=All` };
  }
}

describe('E9 a generated matrix of roles × requests', () => {
  it('E9 every request is allowed or refused as RBAC\'s rules say, and a refusal is worded as a real server words it', async () => {
    const home = await createNamespace(cluster, 'matrix');
    const other = await createNamespace(cluster, 'matrix');
    const cases = fc.sample(fc.tuple(fc.array(ruleArb, { minLength: 1, maxLength: 2 }), fc.array(requestArb, { minLength: 4, maxLength: 4 })), { numRuns: 12, seed: 9009 });
    for (const [rules, requests] of cases) {
      const sa = await serviceAccount(home);
      await bindRole(home, sa, rules);
      for (const request of requests) {
        const namespace = request.elsewhere ? other : home;
        const { method, path, body } = matrixRequest(request, namespace);
        const url = new URL(path, 'https://server');
        const attributes = requestAttributes({ username: sa.user, groups: [] }, method, url);
        const allowed = namespace === home && rules.some((rule) => ruleAllows(attributes, { nonResourceURLs: [], ...rule } as PolicyRule));
        const answer = await call(sa.token, method, path, body);
        const what = `${JSON.stringify(rules)} ${method} ${path}`;
        if (allowed) expect(answer.status, what).not.toBe(403);
        else expect(answer.body, what).toEqual(forbiddenError(attributes, '').status);
      }
    }
  });
});
