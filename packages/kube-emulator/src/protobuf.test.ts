// E10: protobuf for every kind served, read and written, on both servers (the E8 lane runs this
// file against a real kube-apiserver, whose generated codecs then check the emulator's encoder and
// decoder): kubectl 1.33's typed clients send and ask for protobuf (`create serviceaccount`,
// `create rolebinding`, `create token`, `create secret`, `create configmap`); an object sent in
// protobuf is stored as the same object sent in JSON, and one read in protobuf decodes to its JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlFor, type Kubectl } from './kubectl-testing.ts';
import { decodeProtobufObject, encodeProtobufObject, PROTOBUF_MEDIA_TYPE } from './protobuf.ts';
import { b64, clusterRequest, createNamespace, startTestCluster, uniqueName, type TestCluster } from './testing.ts';

let cluster: TestCluster;
let kubectl: Kubectl;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  kubectl = await kubectlFor(cluster);
  ns = await createNamespace(cluster, 'protobuf');
});
afterAll(async () => {
  await kubectl.close();
  await cluster.close();
});

type Json = Record<string, unknown>;

/** What two writes of the same object may differ in: name, identity, times. */
function comparable(object: Json): Json {
  const copy = JSON.parse(JSON.stringify(object)) as Json & { metadata: Json };
  for (const key of ['name', 'uid', 'resourceVersion', 'creationTimestamp', 'selfLink']) delete copy.metadata[key];
  for (const entry of (copy.metadata.managedFields ?? []) as Json[]) delete entry.time;
  return copy;
}

/** Without Go's zero values (a protobuf reader takes a missing field as zero, JSON writes some of them). */
function withoutZeros(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutZeros);
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) {
    const kept = withoutZeros(item);
    if (kept === null || kept === '' || kept === 0 || kept === false) continue;
    if (typeof kept === 'object' && !Array.isArray(kept) && Object.keys(kept as Json).length === 0) continue;
    if (Array.isArray(kept) && kept.length === 0) continue;
    out[key] = kept;
  }
  return out;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const PROTOBUF_HEADERS = { 'content-type': PROTOBUF_MEDIA_TYPE, accept: 'application/json' };

async function send(path: string, body: Buffer, headers: Record<string, string>): Promise<Json> {
  const response = await clusterRequest(cluster, path, { method: 'POST', headers, body });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${response.body.toString('utf8')}`);
  return JSON.parse(response.body.toString('utf8')) as Json;
}

async function readProtobuf(path: string): Promise<Json> {
  const response = await clusterRequest(cluster, path, { headers: { accept: `${PROTOBUF_MEDIA_TYPE},application/json` } });
  expect([response.status, response.contentType]).toEqual([200, PROTOBUF_MEDIA_TYPE]);
  return decodeProtobufObject(response.body);
}

async function readJson(path: string): Promise<Json> {
  const response = await clusterRequest(cluster, path, { headers: { accept: 'application/json' } });
  expect(response.status).toBe(200);
  return JSON.parse(response.body.toString('utf8')) as Json;
}

const template = {
  metadata: { labels: { app: 'pb' }, annotations: { note: 'x' } },
  spec: {
    containers: [
      {
        name: 'main',
        image: 'example.com/main:1',
        args: ['--port', '8080'],
        env: [
          { name: 'A', value: '1' },
          { name: 'B', valueFrom: { secretKeyRef: { name: 'creds', key: 'token', optional: false } } },
          { name: 'C', valueFrom: { configMapKeyRef: { name: 'conf', key: 'c' } } },
        ],
        envFrom: [{ prefix: 'P_', secretRef: { name: 'creds' } }],
        ports: [{ name: 'http', containerPort: 8080 }],
        readinessProbe: { httpGet: { path: '/ready', port: 'http' }, periodSeconds: 5 },
        livenessProbe: { tcpSocket: { port: 8080 } },
        resources: { limits: { cpu: '250m', memory: '64Mi' }, requests: { cpu: '100m' } },
        volumeMounts: [{ name: 'conf', mountPath: '/etc/conf', readOnly: true }],
        securityContext: { runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      },
    ],
    volumes: [
      { name: 'conf', configMap: { name: 'conf', defaultMode: 420, items: [{ key: 'c', path: 'c.txt' }] } },
      { name: 'tok', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600, audience: 'x' } }, { secret: { name: 'creds' } }] } },
      { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
    ],
    automountServiceAccountToken: false,
    terminationGracePeriodSeconds: 0,
    nodeSelector: { disk: 'ssd' },
    tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }],
  },
};

/** One object of every kind served, each with fields of every shape its message has (maps, lists, pointers, inlined structs, times). */
function objectsIn(namespace: string): { path: string; body: Json }[] {
  const core = `/api/v1/namespaces/${namespace}`;
  return [
    { path: `${core}/configmaps`, body: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1', empty: '' }, binaryData: { b: b64('bytes') }, immutable: false } },
    { path: `${core}/secrets`, body: { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/basic-auth', data: { username: b64('u'), password: b64('p') } } },
    { path: `${core}/serviceaccounts`, body: { apiVersion: 'v1', kind: 'ServiceAccount', automountServiceAccountToken: false, imagePullSecrets: [{ name: 'registry' }] } },
    {
      path: `${core}/events`,
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        involvedObject: { kind: 'Pod', namespace, name: 'p', apiVersion: 'v1' },
        reason: 'Tested',
        message: 'read and written',
        type: 'Normal',
        count: 2,
        firstTimestamp: '2026-01-02T03:04:05Z',
        lastTimestamp: '2026-01-02T03:04:06Z',
        source: { component: 'test' },
      },
    },
    { path: `${core}/pods`, body: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { app: 'pb' } }, spec: template.spec } },
    {
      path: `/apis/apps/v1/namespaces/${namespace}/deployments`,
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        spec: { replicas: 0, selector: { matchLabels: { app: 'pb' } }, template, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } }, revisionHistoryLimit: 3 },
      },
    },
    {
      path: `/apis/apps/v1/namespaces/${namespace}/replicasets`,
      body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', spec: { replicas: 0, selector: { matchLabels: { app: 'pb' } }, template } },
    },
    {
      path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        spec: { holderIdentity: 'holder', leaseDurationSeconds: 15, acquireTime: '2026-01-02T03:04:05.123456Z', renewTime: '2026-01-02T03:04:06.000001Z', leaseTransitions: 0 },
      },
    },
    {
      path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'ServiceAccount', name: 'agent', namespace }],
      },
    },
    {
      path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/roles`,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['conf'], verbs: ['get', 'watch'] }],
      },
    },
    {
      path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { labels: { 'occ.test/aggregate-pb': 'true' } },
        rules: [
          { apiGroups: ['apps'], resources: ['deployments', 'deployments/scale'], verbs: ['get', 'update'] },
          { nonResourceURLs: ['/healthz', '/metrics/*'], verbs: ['get'] },
        ],
      },
    },
    {
      path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [
          { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'occ-pb-readers' },
          { kind: 'ServiceAccount', name: 'agent', namespace },
        ],
      },
    },
    {
      path: '/api/v1/nodes',
      body: {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { labels: { 'node-role.kubernetes.io/worker': '' } },
        spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'], unschedulable: true, taints: [{ key: 'occ.test/pb', value: 'x', effect: 'NoSchedule' }] },
      },
    },
  ];
}

describe('protobuf for every kind served', () => {
  it('E10 kubectl create serviceaccount, rolebinding, token, secret generic and configmap (protobuf both ways), then get -o yaml of each', async () => {
    await kubectl.ok(['-n', ns, 'create', 'serviceaccount', 'agent-1']);
    await kubectl.ok(['-n', ns, 'create', 'rolebinding', 'agent-1-view', '--clusterrole=view', `--serviceaccount=${ns}:agent-1`]);
    const token = (await kubectl.ok(['-n', ns, 'create', 'token', 'agent-1', '--duration=10m'])).trim();
    expect(token.split('.')).toHaveLength(3); // a JWT
    await kubectl.ok(['-n', ns, 'create', 'secret', 'generic', 'creds', '--from-literal=token=s3cret-value']);
    await kubectl.ok(['-n', ns, 'create', 'configmap', 'conf', '--from-literal=c=value']);

    expect(await kubectl.ok(['-n', ns, 'get', 'serviceaccount', 'agent-1', '-o', 'yaml'])).toMatch(/kind: ServiceAccount\n[\s\S]*name: agent-1/);
    const binding = await kubectl.ok(['-n', ns, 'get', 'rolebinding', 'agent-1-view', '-o', 'yaml']);
    expect(binding).toContain('name: view');
    expect(binding).toContain(`namespace: ${ns}`);
    expect(await kubectl.ok(['-n', ns, 'get', 'secret', 'creds', '-o', 'yaml'])).toContain(`token: ${b64('s3cret-value')}`);
    expect(await kubectl.ok(['-n', ns, 'get', 'configmap', 'conf', '-o', 'yaml'])).toContain('c: value');
  });

  it('E9 E10 kubectl create role, clusterrole and clusterrolebinding, and auth can-i (SelfSubjectAccessReview, SelfSubjectRulesReview) for a service account token, all in protobuf', async () => {
    const clusterRole = uniqueName('occ-pb-deploy-scaler');
    await kubectl.ok(['-n', ns, 'create', 'serviceaccount', 'agent-3']);
    await kubectl.ok(['-n', ns, 'create', 'role', 'conf-reader', '--verb=get', '--resource=configmaps', '--resource-name=conf']);
    await kubectl.ok(['-n', ns, 'create', 'rolebinding', 'agent-3-conf', '--role=conf-reader', `--serviceaccount=${ns}:agent-3`]);
    await kubectl.ok(['create', 'clusterrole', clusterRole, '--verb=get,update', '--resource=deployments/scale']);
    await kubectl.ok(['create', 'clusterrolebinding', clusterRole, `--clusterrole=${clusterRole}`, `--serviceaccount=${ns}:agent-3`]);
    try {
      expect(await kubectl.ok(['-n', ns, 'get', 'role', 'conf-reader', '-o', 'yaml'])).toMatch(/resourceNames:\n\s*- conf/);
      expect(await kubectl.ok(['get', 'clusterrole', clusterRole, '-o', 'yaml'])).toContain('deployments/scale');
      const token = (await kubectl.ok(['-n', ns, 'create', 'token', 'agent-3', '--duration=10m'])).trim();
      const canI = async (...args: string[]) => {
        const r = await kubectl.run(['--token', token, 'auth', 'can-i', ...args]);
        return [r.code, r.stdout.trim()];
      };
      expect(await canI('-n', ns, 'get', 'configmaps/conf')).toEqual([0, 'yes']);
      expect(await canI('-n', ns, 'get', 'configmaps/other')).toEqual([1, 'no']);
      expect(await canI('-n', ns, 'list', 'configmaps')).toEqual([1, 'no']);
      expect(await canI('-n', 'kube-system', 'update', 'deployments', '--subresource=scale')).toEqual([0, 'yes']);
      expect(await canI('-n', ns, 'get', 'secrets')).toEqual([1, 'no']);
      // An administrator asks on the agent's behalf (SubjectAccessReview through impersonation's --as).
      const asAgent = await kubectl.run(['auth', 'can-i', '-n', ns, 'get', 'configmaps/conf', `--as=system:serviceaccount:${ns}:agent-3`]);
      expect([asAgent.code, asAgent.stdout.trim()]).toEqual([0, 'yes']);
      const rules = await kubectl.ok(['--token', token, 'auth', 'can-i', '--list', '-n', ns]);
      expect(rules).toMatch(/configmaps\s+\[\]\s+\[conf\]\s+\[get\]/);
    } finally {
      await kubectl.run(['delete', 'clusterrolebinding', clusterRole]);
      await kubectl.run(['delete', 'clusterrole', clusterRole]);
    }
  });

  it('E10 an object of every kind served sent in protobuf is stored as the same object sent in JSON; read in protobuf it decodes to its JSON', async () => {
    for (const { path, body } of objectsIn(ns)) {
      const viaJson = await send(path, Buffer.from(JSON.stringify({ ...body, metadata: { ...(body.metadata as Json), name: uniqueName('json') } })), JSON_HEADERS);
      const encoded = encodeProtobufObject({ ...body, metadata: { ...(body.metadata as Json), name: uniqueName('pb') } });
      if (encoded === undefined) throw new Error(`${String(body.kind)} has no protobuf form`);
      const viaProtobuf = await send(path, encoded, PROTOBUF_HEADERS);
      expect(comparable(viaProtobuf), String(body.kind)).toEqual(comparable(viaJson));

      const name = String((viaJson.metadata as Json).name);
      const read = await readProtobuf(`${path}/${name}`);
      expect(withoutZeros(read), String(body.kind)).toEqual(withoutZeros(await readJson(`${path}/${name}`)));
    }
  });

  it('E10 a list, a namespace and a TokenRequest read and written in protobuf', async () => {
    const list = await readProtobuf(`/api/v1/namespaces/${ns}/configmaps`);
    expect(list.kind).toBe('ConfigMapList');
    const names = ((list.items ?? []) as Json[]).map((item) => (item.metadata as Json).name);
    expect(names).toEqual(((await readJson(`/api/v1/namespaces/${ns}/configmaps`)).items as Json[]).map((item) => (item.metadata as Json).name));

    const namespace = uniqueName('pb-ns');
    const created = await send('/api/v1/namespaces', encodeProtobufObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { team: 'pb' } } }) ?? Buffer.alloc(0), PROTOBUF_HEADERS);
    expect((created.metadata as Json).labels).toMatchObject({ team: 'pb' });

    await kubectl.ok(['-n', ns, 'create', 'serviceaccount', 'agent-2']);
    const request = encodeProtobufObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['occ'], expirationSeconds: 3600 } });
    const response = await clusterRequest(cluster, `/api/v1/namespaces/${ns}/serviceaccounts/agent-2/token`, {
      method: 'POST',
      headers: { 'content-type': PROTOBUF_MEDIA_TYPE, accept: `${PROTOBUF_MEDIA_TYPE},application/json` },
      body: request ?? Buffer.alloc(0),
    });
    expect([response.status, response.contentType]).toEqual([201, PROTOBUF_MEDIA_TYPE]);
    const token = decodeProtobufObject(response.body) as { kind: string; spec: Json; status: { token: string; expirationTimestamp: string } };
    expect(token.kind).toBe('TokenRequest');
    expect(token.spec.audiences).toEqual(['occ']);
    expect(token.status.token.split('.')).toHaveLength(3);
    expect(Date.parse(token.status.expirationTimestamp)).toBeGreaterThan(Date.now());
  });
});
