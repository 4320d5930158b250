// E10 Table columns for every built-in kind: what `kubectl get` prints for each kind the server
// serves, as kube-apiserver 1.33's printers give it (k8s.io/kubernetes
// pkg/printers/internalversion/printers.go). The expected columns are written out here from those
// printers, not read from printers/columns.ts, and the kinds are found by walking discovery, so a
// kind served later without a column description fails the matrix.
// Emulator only: the lane's kube-apiserver 1.20 prints older columns (Jobs without STATUS, RESTARTS
// without the last restart's age), and the emulator follows 1.33.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlFor, type Kubectl } from './kubectl-testing.ts';
import { clusterRequest, createNamespace, startTestCluster, type TestCluster } from './testing.ts';

let cluster: TestCluster;
let kubectl: Kubectl;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  kubectl = await kubectlFor(cluster);
  ns = await createNamespace(cluster, 'printers');
}, 60_000);
afterAll(async () => {
  await kubectl?.close();
  await cluster?.close();
});

/** Column names in order; `*` marks priority 1, the columns kubectl shows only with -o wide. */
const EXPECTED: Record<string, string[]> = {
  pods: ['Name', 'Ready', 'Status', 'Restarts', 'Age', '*IP', '*Node', '*Nominated Node', '*Readiness Gates'],
  events: ['Last Seen', 'Type', 'Reason', 'Object', '*Subobject', '*Source', 'Message', '*First Seen', '*Count', '*Name'],
  namespaces: ['Name', 'Status', 'Age'],
  secrets: ['Name', 'Type', 'Data', 'Age'],
  configmaps: ['Name', 'Data', 'Age'],
  serviceaccounts: ['Name', 'Secrets', 'Age'],
  services: ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', '*Selector'],
  endpoints: ['Name', 'Endpoints', 'Age'],
  'apps/deployments': ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', '*Containers', '*Images', '*Selector'],
  'apps/replicasets': ['Name', 'Desired', 'Current', 'Ready', 'Age', '*Containers', '*Images', '*Selector'],
  'batch/jobs': ['Name', 'Status', 'Completions', 'Duration', 'Age', '*Containers', '*Images', '*Selector'],
  'coordination.k8s.io/leases': ['Name', 'Holder', 'Age'],
  'networking.k8s.io/networkpolicies': ['Name', 'Pod-Selector', 'Age'],
  'policy/poddisruptionbudgets': ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age'],
  'rbac.authorization.k8s.io/roles': ['Name', 'Created At'],
  'rbac.authorization.k8s.io/clusterroles': ['Name', 'Created At'],
  'rbac.authorization.k8s.io/rolebindings': ['Name', 'Role', 'Age', '*Users', '*Groups', '*ServiceAccounts'],
  'rbac.authorization.k8s.io/clusterrolebindings': ['Name', 'Role', 'Age', '*Users', '*Groups', '*ServiceAccounts'],
  'admissionregistration.k8s.io/validatingwebhookconfigurations': ['Name', 'Webhooks', 'Age'],
  'admissionregistration.k8s.io/validatingadmissionpolicies': ['Name', 'Validations', 'ParamKind', 'Age'],
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': ['Name', 'PolicyName', 'ParamRef', 'Age'],
  'apiextensions.k8s.io/customresourcedefinitions': ['Name', 'Created At'],
  nodes: ['Name', 'Status', 'Roles', 'Age', 'Version', '*Internal-IP', '*External-IP', '*OS-Image', '*Kernel-Version', '*Container-Runtime'],
};

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

async function getJson<T>(path: string, accept = 'application/json'): Promise<T> {
  const response = await clusterRequest(cluster, path, { headers: { accept } });
  expect(response.status, path).toBe(200);
  return JSON.parse(response.body.toString('utf8')) as T;
}

interface Table {
  columnDefinitions: Array<{ name: string; priority: number }>;
  rows: Array<{ cells: unknown[] }>;
}

interface Served {
  key: string;
  path: string;
}

/** Every listable resource discovery names, custom resources left out. */
async function servedBuiltIns(): Promise<Served[]> {
  type Crds = { items: Array<{ spec: { group: string; names: { plural: string } } }> };
  const crds = (await getJson<Crds>('/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).items.map((c) => `${c.spec.group}/${c.spec.names.plural}`);
  type Groups = { groups: Array<{ preferredVersion: { groupVersion: string } }> };
  const groupVersions = ['v1', ...(await getJson<Groups>('/apis')).groups.map((g) => g.preferredVersion.groupVersion)];
  const served: Served[] = [];
  for (const gv of groupVersions) {
    const base = gv === 'v1' ? '/api/v1' : `/apis/${gv}`;
    const group = gv === 'v1' ? '' : gv.split('/')[0];
    type Resources = { resources: Array<{ name: string; verbs: string[] }> };
    for (const r of (await getJson<Resources>(base)).resources) {
      if (r.name.includes('/') || !r.verbs.includes('list')) continue;
      const key = group ? `${group}/${r.name}` : r.name;
      if (!crds.includes(key)) served.push({ key, path: `${base}/${r.name}` });
    }
  }
  return served;
}

/** Splits `kubectl get` output into its header cells and rows, by the header's column starts. */
function columnsOf(output: string): { header: string[]; rows: Array<Record<string, string>> } {
  const [headerLine = '', ...lines] = output.trimEnd().split('\n');
  const starts = [...headerLine.matchAll(/(\S+(?: \S+)*)/g)].map((m) => ({ name: m[1] ?? '', at: m.index ?? 0 }));
  const rows = lines.map((line) => Object.fromEntries(starts.map((c, i) => [c.name, line.slice(c.at, starts[i + 1]?.at ?? line.length).trim()])));
  return { header: starts.map((c) => c.name), rows };
}

describe('E10 every built-in kind the server serves has the columns of the real printers', () => {
  it('E10 discovery walked: each listable built-in resource answers a Table with its printer\'s columns, one cell per column in every row', async () => {
    const served = await servedBuiltIns();
    expect(served.length).toBeGreaterThanOrEqual(Object.keys(EXPECTED).length);
    for (const { key, path } of served) {
      expect(EXPECTED[key], `${key} is served but the matrix has no columns for it: describe it in printers/columns.ts and here`).toBeDefined();
      const table = await getJson<Table>(path, TABLE);
      const columns = table.columnDefinitions.map((c) => `${c.priority === 1 ? '*' : ''}${c.name}`);
      expect(columns, key).toEqual(EXPECTED[key]);
      for (const row of table.rows) expect(row.cells, key).toHaveLength(columns.length);
    }
    const servedKeys = served.map((s) => s.key);
    for (const key of Object.keys(EXPECTED)) expect(servedKeys, `${key} is expected but not served`).toContain(key);
  });
});

describe('E10 kubectl get prints what a real cluster prints', { timeout: 60_000 }, () => {
  const since = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();

  beforeAll(async () => {
    const pod = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns },
      spec: { nodeName: 'occ-node', containers: [{ name: 'gateway', image: 'ghcr.io/openclaw/gateway:1' }] },
    });
    for (const name of ['crashing', 'unconfigured', 'serving']) await kubectl.ok(['apply', '-f', '-'], JSON.stringify(pod(name)));
    const statuses: Record<string, unknown> = {
      crashing: {
        phase: 'Running',
        podIPs: [{ ip: '10.244.0.7' }],
        containerStatuses: [
          {
            name: 'gateway',
            image: 'ghcr.io/openclaw/gateway:1',
            imageID: '',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container=gateway pod=crashing' } },
            lastState: { terminated: { exitCode: 3, reason: 'Error', startedAt: since(95), finishedAt: since(90) } },
          },
        ],
      },
      unconfigured: {
        phase: 'Pending',
        containerStatuses: [{ name: 'gateway', image: 'ghcr.io/openclaw/gateway:1', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'CreateContainerConfigError', message: 'secret "creds" not found' } } }],
      },
      serving: {
        phase: 'Running',
        podIPs: [{ ip: '10.244.0.9' }],
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [{ name: 'gateway', image: 'ghcr.io/openclaw/gateway:1', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: since(30) } } }],
      },
    };
    for (const [name, status] of Object.entries(statuses)) {
      await kubectl.ok(['-n', ns, 'patch', 'pod', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
    }
    await kubectl.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'crashing.back-off', namespace: ns },
        involvedObject: { kind: 'Pod', name: 'crashing', namespace: ns, fieldPath: 'spec.containers{gateway}' },
        reason: 'BackOff',
        message: 'Back-off restarting failed container gateway in pod crashing',
        type: 'Warning',
        source: { component: 'kubelet', host: 'occ-node' },
        // Days ago, so the ages printed do not tick while the test runs.
        firstTimestamp: since(10 * 86_400),
        lastTimestamp: since(3 * 86_400),
        count: 4,
      }),
    );
  });

  it('E10 kubectl get pods: NAME READY STATUS RESTARTS AGE, the waiting reason as STATUS (CrashLoopBackOff, CreateContainerConfigError), restarts with the last one\'s age', async () => {
    const { header, rows } = columnsOf(await kubectl.ok(['-n', ns, 'get', 'pods']));
    expect(header).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    const byName = Object.fromEntries(rows.map((r) => [r.NAME, r]));
    expect(byName.crashing).toMatchObject({ READY: '0/1', STATUS: 'CrashLoopBackOff' });
    expect(byName.crashing?.RESTARTS).toMatch(/^3 \((9\d|1\d\d)s ago\)$/);
    expect(byName.unconfigured).toMatchObject({ READY: '0/1', STATUS: 'CreateContainerConfigError', RESTARTS: '0' });
    expect(byName.serving).toMatchObject({ READY: '1/1', STATUS: 'Running', RESTARTS: '0' });
    for (const row of rows) expect(row.AGE).toMatch(/^\d+s$/);
  });

  it('E10 kubectl get pods -o wide adds IP, NODE, NOMINATED NODE and READINESS GATES', async () => {
    const { header, rows } = columnsOf(await kubectl.ok(['-n', ns, 'get', 'pods', '-o', 'wide']));
    expect(header).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    const byName = Object.fromEntries(rows.map((r) => [r.NAME, r]));
    expect(byName.crashing).toMatchObject({ STATUS: 'CrashLoopBackOff', IP: '10.244.0.7', NODE: 'occ-node', 'NOMINATED NODE': '<none>', 'READINESS GATES': '<none>' });
    expect(byName.unconfigured).toMatchObject({ IP: '<none>', NODE: 'occ-node' });
  });

  it('E10 kubectl get pod crashing --no-headers: one row, its STATUS CrashLoopBackOff', async () => {
    const run = await kubectl.ok(['-n', ns, 'get', 'pod', 'crashing', '--no-headers']);
    expect(run.split(/\s+/).slice(0, 3)).toEqual(['crashing', '0/1', 'CrashLoopBackOff']);
  });

  it('E10 kubectl get events: LAST SEEN TYPE REASON OBJECT MESSAGE; -o wide adds SUBOBJECT SOURCE FIRST SEEN COUNT NAME', async () => {
    const narrow = columnsOf(await kubectl.ok(['-n', ns, 'get', 'events']));
    expect(narrow.header).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(narrow.rows).toEqual([
      { 'LAST SEEN': '3d', TYPE: 'Warning', REASON: 'BackOff', OBJECT: 'pod/crashing', MESSAGE: 'Back-off restarting failed container gateway in pod crashing' },
    ]);
    const wide = columnsOf(await kubectl.ok(['-n', ns, 'get', 'events', '-o', 'wide']));
    expect(wide.header).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']);
    expect(wide.rows[0]).toMatchObject({ SUBOBJECT: 'spec.containers{gateway}', SOURCE: 'kubelet, occ-node', 'FIRST SEEN': '10d', COUNT: '4', NAME: 'crashing.back-off' });
  });
});
