// E8: one kubectl script, the machine's kubectl (1.33), run against the emulator and against the
// lane's real kube-apiserver 1.20.2, each command's exit code, stdout and stderr normalised
// (namespace, uids, resourceVersions, times, ages, tokens, addresses) and compared. Every command
// whose answers differ is listed in KNOWN with the reason, and in REAL-SERVER-DIFFERENCES.md
// ("The kubectl script"); the test fails when an unlisted difference appears and when a listed one
// disappears, so the list stays the list of what a kubectl user meets. Only the E8 lane runs this
// file (vitest.real.config.ts), since it needs the real server.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENCLAW_CRD_DIR } from './crds.ts';
import { kubectlWith, normalise, type Kubectl, type KubectlRun } from './kubectl-testing.ts';
import { startKubeEmulator, type KubeEmulator } from './server.ts';
import { KUBE_TARGET, realCluster, uniqueName } from './testing.ts';

interface Step {
  /** Unique: the key of KNOWN and of the table in REAL-SERVER-DIFFERENCES.md. */
  name: string;
  args: string[];
  input?: object | string;
}

const NS = '$NS';
const cm = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, ...extra }, data });
const instance = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance', metadata: { name, namespace: NS }, spec });

/** What a kubectl user does with the kinds both servers serve alike, in order: each step sees the state the earlier ones left. */
const SCRIPT: Step[] = [
  { name: 'create configmap', args: ['create', 'configmap', 'settings', '-n', NS, '--from-literal=a=1', '--from-literal=b=2'] },
  { name: 'create configmap again', args: ['create', 'configmap', 'settings', '-n', NS, '--from-literal=a=1'] },
  { name: 'get configmap yaml', args: ['get', 'configmap', 'settings', '-n', NS, '-o', 'yaml'] },
  { name: 'get configmaps table', args: ['get', 'configmaps', 'settings', '-n', NS] },
  { name: 'get configmap missing', args: ['get', 'configmap', 'missing', '-n', NS] },
  { name: 'label', args: ['label', 'configmap', 'settings', '-n', NS, 'tier=web'] },
  { name: 'annotate', args: ['annotate', 'configmap', 'settings', '-n', NS, 'owner=team-a'] },
  { name: 'get by label', args: ['get', 'configmaps', '-n', NS, '-l', 'tier=web', '-o', 'name'] },
  { name: 'get by label, none', args: ['get', 'configmaps', '-n', NS, '-l', 'tier=db'] },
  { name: 'patch merge', args: ['patch', 'configmap', 'settings', '-n', NS, '--type', 'merge', '-p', '{"data":{"c":"3"}}'] },
  { name: 'patch json', args: ['patch', 'configmap', 'settings', '-n', NS, '--type', 'json', '-p', '[{"op":"remove","path":"/data/b"}]'] },
  { name: 'patch json, bad path', args: ['patch', 'configmap', 'settings', '-n', NS, '--type', 'json', '-p', '[{"op":"remove","path":"/data/nothing"}]'] },
  { name: 'patch strategic', args: ['patch', 'configmap', 'settings', '-n', NS, '-p', '{"data":{"d":"4"}}'] },
  { name: 'get jsonpath', args: ['get', 'configmap', 'settings', '-n', NS, '-o', 'jsonpath={.data}'] },
  { name: 'apply client-side, create', args: ['apply', '-f', '-'], input: cm('applied', { a: '1' }) },
  { name: 'apply client-side, unchanged', args: ['apply', '-f', '-'], input: cm('applied', { a: '1' }) },
  { name: 'diff', args: ['diff', '-f', '-'], input: cm('applied', { a: '2' }) },
  { name: 'apply --dry-run=server', args: ['apply', '-f', '-', '--dry-run=server'], input: cm('applied', { a: '2' }) },
  { name: 'apply client-side, configured', args: ['apply', '-f', '-'], input: cm('applied', { a: '2' }) },
  { name: 'apply --server-side, create', args: ['apply', '--server-side', '-f', '-'], input: cm('ssa', { a: '1' }) },
  { name: 'apply --server-side, other manager conflicts', args: ['apply', '--server-side', '--field-manager', 'other', '-f', '-'], input: cm('ssa', { a: '2' }) },
  { name: 'apply --server-side, forced', args: ['apply', '--server-side', '--field-manager', 'other', '--force-conflicts', '-f', '-'], input: cm('ssa', { a: '2' }) },
  { name: 'get managed fields', args: ['get', 'configmap', 'ssa', '-n', NS, '-o', 'jsonpath={range .metadata.managedFields[*]}{.manager} {.operation} {.fieldsV1}{"\\n"}{end}'] },
  { name: 'diff --server-side', args: ['diff', '--server-side', '-f', '-'], input: cm('ssa', { a: '3' }) },
  { name: 'replace with a stale resourceVersion', args: ['replace', '-f', '-'], input: cm('ssa', { a: '9' }, { resourceVersion: '1' }) },
  { name: 'create secret generic', args: ['create', 'secret', 'generic', 'token', '-n', NS, '--from-literal=value=s3cr3t'] },
  { name: 'get secret table', args: ['get', 'secret', 'token', '-n', NS] },
  { name: 'get secret data', args: ['get', 'secret', 'token', '-n', NS, '-o', 'jsonpath={.data.value}'] },
  { name: 'create secret basic-auth without username', args: ['create', '-f', '-'], input: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'basic', namespace: NS }, type: 'kubernetes.io/basic-auth', stringData: { password: 'p' } } },
  { name: 'create instance', args: ['create', '-f', '-'], input: instance('agent', { image: 'gw:1', model: 'gpt' }) },
  { name: 'get instances table', args: ['get', 'openclawinstances', '-n', NS] },
  { name: 'get instance spec', args: ['get', 'oci', 'agent', '-n', NS, '-o', 'jsonpath={.spec}'] },
  { name: 'apply --server-side instance, unknown field', args: ['apply', '--server-side', '-f', '-'], input: instance('agent', { image: 'gw:2', colour: 'red' }) },
  { name: 'patch strategic on a custom resource', args: ['patch', 'oci', 'agent', '-n', NS, '-p', '{"spec":{"image":"gw:3"}}'] },
  { name: 'patch merge on a custom resource', args: ['patch', 'oci', 'agent', '-n', NS, '--type', 'merge', '-p', '{"spec":{"image":"gw:3"}}'] },
  { name: 'create serviceaccount', args: ['create', 'serviceaccount', 'runner', '-n', NS] },
  { name: 'create role', args: ['create', 'role', 'reader', '-n', NS, '--verb=get', '--resource=configmaps'] },
  { name: 'create rolebinding', args: ['create', 'rolebinding', 'runner-reads', '-n', NS, '--role=reader', `--serviceaccount=${NS}:runner`] },
  { name: 'auth can-i, granted', args: ['auth', 'can-i', 'get', 'configmaps', '-n', NS, `--as=system:serviceaccount:${NS}:runner`] },
  { name: 'auth can-i, not granted', args: ['auth', 'can-i', 'get', 'secrets', '-n', NS, `--as=system:serviceaccount:${NS}:runner`] },
  { name: 'get as the service account, refused', args: ['get', 'secret', 'token', '-n', NS, `--as=system:serviceaccount:${NS}:runner`] },
  { name: 'create token', args: ['create', 'token', 'runner', '-n', NS] },
  { name: 'create deployment', args: ['create', 'deployment', 'web', '-n', NS, '--image=nginx:1.27'] },
  { name: 'get deployment spec, defaulted', args: ['get', 'deployment', 'web', '-n', NS, '-o', 'jsonpath={.spec}'] },
  { name: 'set image', args: ['set', 'image', 'deployment/web', '-n', NS, 'nginx=nginx:1.28'] },
  { name: 'scale', args: ['scale', 'deployment', 'web', '-n', NS, '--replicas=2'] },
  { name: 'get deployment image and replicas', args: ['get', 'deployment', 'web', '-n', NS, '-o', 'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.metadata.generation}'] },
  { name: 'explain a built-in field', args: ['explain', 'configmap.data'] },
  // Since 2026-12-07 the built-in schemas are the real server's (REAL-SERVER-DIFFERENCES.md D17):
  // merge keys, nested fields and types as kubectl meets them.
  {
    name: 'patch deployment strategic, a container added and env merged',
    args: ['patch', 'deployment', 'web', '-n', NS, '--type', 'strategic', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox:1.36"},{"name":"nginx","env":[{"name":"A","value":"1"}]}]}}}}'],
  },
  { name: 'get deployment containers', args: ['get', 'deployment', 'web', '-n', NS, '-o', 'jsonpath={.spec.template.spec.containers[*].name} {.spec.template.spec.containers[*].image} {.spec.template.spec.containers[*].env}'] },
  { name: 'explain a nested built-in field', args: ['explain', 'deployment.spec.template.spec.containers.ports'] },
  {
    name: 'create deployment with a port of the wrong type',
    args: ['create', '-f', '-', '-n', NS],
    input: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'typed', namespace: NS }, spec: { selector: { matchLabels: { app: 't' } }, template: { metadata: { labels: { app: 't' } }, spec: { containers: [{ name: 't', image: 'x', ports: [{ containerPort: 'http' }] }] } } } },
  },
  { name: 'get the mistyped deployment, not stored', args: ['get', 'deployment', 'typed', '-n', NS] },
  { name: 'get configmaps wide, with labels', args: ['get', 'configmaps', '-n', NS, '-o', 'wide', '--show-labels'] },
  { name: 'get configmaps custom columns, sorted', args: ['get', 'configmaps', '-n', NS, '--sort-by=.metadata.name', '-o', 'custom-columns=NAME:.metadata.name,KEYS:.data'] },
  { name: 'label --overwrite', args: ['label', 'configmap', 'settings', '-n', NS, 'tier=api', '--overwrite'] },
  { name: 'label without --overwrite', args: ['label', 'configmap', 'settings', '-n', NS, 'tier=db'] },
  { name: 'label removed', args: ['label', 'configmap', 'settings', '-n', NS, 'tier-'] },
  { name: 'annotate --overwrite', args: ['annotate', 'configmap', 'settings', '-n', NS, 'owner=team-b', '--overwrite'] },
  { name: 'get by set-based selector', args: ['get', 'configmaps', '-n', NS, '-l', '!tier', '-o', 'name'] },
  { name: 'get by field selector', args: ['get', 'configmaps', '-n', NS, '--field-selector', 'metadata.name=applied', '-o', 'name'] },
  { name: 'get by unsupported field selector', args: ['get', 'configmaps', '-n', NS, '--field-selector', 'data.a=1'] },
  { name: 'get secrets by type', args: ['get', 'secrets', '-n', NS, '--field-selector', 'type=kubernetes.io/basic-auth', '-o', 'name'] },
  { name: 'get secrets by unsupported field selector', args: ['get', 'secrets', '-n', NS, '--field-selector', 'data.value=x'] },
  { name: 'get instances by unsupported field selector', args: ['get', 'oci', '-n', NS, '--field-selector', 'spec.image=gw:3'] },
  { name: 'create secret docker-registry', args: ['create', 'secret', 'docker-registry', 'pull', '-n', NS, '--docker-server=registry.example', '--docker-username=u', '--docker-password=p'] },
  { name: 'get secret type', args: ['get', 'secret', 'pull', '-n', NS, '-o', 'jsonpath={.type} {.data}'] },
  { name: 'create configmap from a dry run', args: ['create', 'configmap', 'preview', '-n', NS, '--from-literal=a=1', '--dry-run=server', '-o', 'yaml'] },
  { name: 'get the dry run, not stored', args: ['get', 'configmap', 'preview', '-n', NS] },
  { name: 'delete by label', args: ['delete', 'configmaps', '-n', NS, '-l', 'tier=nothing'] },
  { name: 'auth can-i --list as the service account', args: ['auth', 'can-i', '--list', '-n', NS, `--as=system:serviceaccount:${NS}:runner`] },
  { name: 'rollout history', args: ['rollout', 'history', 'deployment/web', '-n', NS] },
  { name: 'get namespace json', args: ['get', 'namespace', NS, '-o', 'jsonpath={.status.phase} {.spec.finalizers}'] },
  { name: 'describe configmap', args: ['describe', 'configmap', 'applied', '-n', NS] },
  { name: 'describe secret', args: ['describe', 'secret', 'token', '-n', NS] },
  { name: 'describe serviceaccount', args: ['describe', 'serviceaccount', 'runner', '-n', NS] },
  { name: 'describe role', args: ['describe', 'role', 'reader', '-n', NS] },
  { name: 'get events', args: ['get', 'events', '-n', NS] },
  { name: 'get pods, none', args: ['get', 'pods', '-n', NS] },
  { name: 'create service clusterip', args: ['create', 'service', 'clusterip', 'api', '-n', NS, '--tcp=80:8080'] },
  { name: 'get service port', args: ['get', 'service', 'api', '-n', NS, '-o', 'jsonpath={.spec.type} {.spec.ports}'] },
  { name: 'patch service strategic, a second port', args: ['patch', 'service', 'api', '-n', NS, '--type', 'strategic', '-p', '{"spec":{"ports":[{"name":"metrics","port":9090,"targetPort":9090}]}}'] },
  { name: 'get service ports after the patch', args: ['get', 'service', 'api', '-n', NS, '-o', 'jsonpath={.spec.ports[*].name} {.spec.ports[*].port}'] },
  { name: 'create job', args: ['create', 'job', 'once', '-n', NS, '--image=busybox:1.36', '--', 'true'] },
  { name: 'get job spec', args: ['get', 'job', 'once', '-n', NS, '-o', 'jsonpath={.spec.backoffLimit} {.spec.completions} {.spec.parallelism} {.spec.template.spec.restartPolicy}'] },
  { name: 'get --raw healthz', args: ['get', '--raw', '/healthz'] },
  { name: 'delete configmap', args: ['delete', 'configmap', 'settings', '-n', NS] },
  { name: 'delete configmap again', args: ['delete', 'configmap', 'settings', '-n', NS] },
  { name: 'delete --ignore-not-found', args: ['delete', 'configmap', 'settings', '-n', NS, '--ignore-not-found'] },
  { name: 'get configmaps -o name', args: ['get', 'configmaps', '-n', NS, '-o', 'name'] },
];

/**
 * Commands whose normalised answers differ on purpose or for want of the real server's parts, each
 * with its reason (the entries of REAL-SERVER-DIFFERENCES.md it comes from).
 */
const KNOWN: Record<string, string> = {
  'apply --server-side instance, unknown field':
    'Newer APIs: 1.20 has no server-side field validation (fieldValidation, 1.25+), so kubectl 1.33 validates on the client from OpenAPI v2 and words the refusal its own way; the emulator refuses on the server, as current servers do.',
  'get deployment spec, defaulted':
    '1.20 writes creationTimestamp: null in the pod template’s metadata (Go marshals a zero metav1.Time as null); the emulator omits it. Every other default is the same.',
  'auth can-i --list as the service account':
    'Newer APIs: system:basic-user grants create on selfsubjectreviews.authentication.k8s.io (SelfSubjectReview, 1.28+; kubectl auth whoami), which 1.20 does not serve; every other rule is the same.',
  'explain a built-in field':
    'Newer APIs: kubectl explains from OpenAPI v3 (1.27+) on the emulator and from v2 on 1.20, laid out differently; the descriptions are the same (the emulator serves the real server’s definitions, kinds/openapi-captured.ts).',
  'explain a nested built-in field': 'As `explain a built-in field`: v3 against v2 layout (GROUP line, `FIELD` against `RESOURCE`, the item type named); the fields, types and descriptions are the same.',
  'create deployment with a port of the wrong type':
    'Newer APIs: as `apply --server-side instance, unknown field`, kubectl 1.33 validates on the client from 1.20’s OpenAPI v2 (`invalid type … got "string", expected "integer"`); the emulator refuses on the server with the decoder’s 400, as current servers do (D17). Both exit 1 and store nothing (the next step is the same on both).',
};

interface Target {
  name: 'emulator' | 'real';
  kubectl: Kubectl;
}

let emulator: KubeEmulator;
let targets: [Target, Target];
let ns: string;
const answers = new Map<string, { emulator: string; real: string }>();

beforeAll(async () => {
  if (KUBE_TARGET.target !== 'real') throw new Error('the kubectl differential test needs OCC_KUBE_TARGET=real and KUBECONFIG (npm run test:real)');
  await realCluster(KUBE_TARGET.kubeconfig, [OPENCLAW_CRD_DIR]);
  emulator = await startKubeEmulator({ crdDirs: [OPENCLAW_CRD_DIR] });
  targets = [
    { name: 'emulator', kubectl: await kubectlWith({ yaml: emulator.kubeconfigYaml() }) },
    { name: 'real', kubectl: await kubectlWith({ path: KUBE_TARGET.kubeconfig }) },
  ];
  ns = uniqueName('kubectl-diff');
  for (const target of targets) {
    const created = await target.kubectl.run(['create', 'namespace', ns]);
    if (created.code !== 0) throw new Error(`${target.name}: ${created.stderr}`);
  }
  for (const step of SCRIPT) {
    const args = step.args.map((a) => a.replaceAll(NS, ns));
    const input = step.input === undefined ? undefined : typeof step.input === 'string' ? step.input : JSON.stringify(step.input).replaceAll(NS, ns);
    const [onEmulator, onReal] = await Promise.all(targets.map(async (target) => target.kubectl.run(args, input)));
    const shown = (r: KubectlRun) => normalise(`exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`, ns);
    answers.set(step.name, { emulator: shown(onEmulator!), real: shown(onReal!) });
  }
}, 600_000);
afterAll(async () => {
  await emulator?.close();
  for (const target of targets ?? []) await target.kubectl.close();
});

describe('E8 the kubectl script on both servers', () => {
  it('E8 every step’s answer is the same on both servers, except the listed differences, each still there', () => {
    const differing = SCRIPT.filter((s) => answers.get(s.name)!.emulator !== answers.get(s.name)!.real).map((s) => s.name);
    const report = differing.map((name) => `## ${name}\n# emulator\n${answers.get(name)!.emulator}\n# real\n${answers.get(name)!.real}`).join('\n');
    expect(differing.filter((name) => !(name in KNOWN)), `unlisted differences:\n${report}`).toEqual([]);
    expect(Object.keys(KNOWN).filter((name) => !differing.includes(name)), 'listed differences that no longer occur').toEqual([]);
  });

  it('E8 the script is whole: unique step names, every listed difference a step, and each in REAL-SERVER-DIFFERENCES.md', async () => {
    expect(new Set(SCRIPT.map((s) => s.name)).size).toBe(SCRIPT.length);
    const doc = await readFile(path.join(path.dirname(fileURLToPath(import.meta.url)), '../REAL-SERVER-DIFFERENCES.md'), 'utf8');
    for (const [name, reason] of Object.entries(KNOWN)) {
      expect(SCRIPT.some((s) => s.name === name), name).toBe(true);
      expect(reason.length, name).toBeGreaterThan(10);
      expect(doc, name).toContain(`\`${name}\``);
    }
  });
});
