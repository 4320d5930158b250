// The machine's kubectl (/usr/bin/kubectl, 1.33 against this server's version) against the
// emulator, spawned as a user would run it: KUBECONFIG pointing at the file the emulator writes.
// Each test names the rule (E5, E6, E7) whose user-visible part it holds.

import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENCLAW_CRD_DIR } from './crds.ts';
import { startKubeEmulator, type KubeEmulator } from './server.ts';
import { uniqueName } from './testing.ts';

const KUBECTL = '/usr/bin/kubectl';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;
let emulator: KubeEmulator;
let kubeconfig: string;

/** Runs kubectl with a kubeconfig (the emulator's by default) and a private HOME (its discovery cache). */
function kubectl(args: string[], options: { input?: string; kubeconfig?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      KUBECTL,
      args,
      { env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: options.kubeconfig ?? kubeconfig }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(options.input ?? '');
  });
}

async function ok(args: string[], input?: string): Promise<string> {
  const run = await kubectl(args, { input });
  if (run.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${run.code}): ${run.stderr}`);
  return run.stdout;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kube-emulator-kubectl-'));
  emulator = await startKubeEmulator({ crdDirs: [OPENCLAW_CRD_DIR] });
  kubeconfig = join(dir, 'kubeconfig.yaml');
  await writeFile(kubeconfig, emulator.kubeconfigYaml(), { mode: 0o600 });
});
afterAll(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('kubectl against the emulator', () => {
  it('E5 signs in over TLS with the written kubeconfig: get namespaces lists the built-in ones', async () => {
    const names = (await ok(['get', 'namespaces', '-o', 'name'])).trim().split('\n');
    expect(names).toEqual(expect.arrayContaining(['namespace/default', 'namespace/kube-system']));
  });

  it('E5 without the CA in the kubeconfig kubectl refuses the server certificate', async () => {
    const document = yaml.load(emulator.kubeconfigYaml()) as { clusters: { cluster: Record<string, unknown> }[] };
    for (const entry of document.clusters) delete entry.cluster['certificate-authority-data'];
    const noCa = join(dir, 'no-ca.yaml');
    await writeFile(noCa, yaml.dump(document), { mode: 0o600 });
    const run = await kubectl(['get', 'namespaces'], { kubeconfig: noCa });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('x509: certificate signed by unknown authority');
  });

  it('E5 the CA is kept with the data file, so a kubeconfig written before a restart still verifies the server', async () => {
    const stateDir = join(dir, 'state');
    const dataFile = join(stateDir, 'objects.json');
    const first = await startKubeEmulator({ dataFile, token: 'kept' });
    const firstCa = first.caCertificate;
    await first.close();
    const second = await startKubeEmulator({ dataFile, token: 'kept' });
    try {
      expect(second.caCertificate).toBe(firstCa);
      const restarted = join(dir, 'restarted.yaml');
      await writeFile(restarted, second.kubeconfigYaml(), { mode: 0o600 });
      const run = await kubectl(['get', 'namespace', 'default', '-o', 'name'], { kubeconfig: restarted });
      expect([run.code, run.stdout.trim()]).toEqual([0, 'namespace/default']);
    } finally {
      await second.close();
    }
    const fresh = await startKubeEmulator({});
    try {
      expect(fresh.caCertificate).not.toBe(firstCa);
    } finally {
      await fresh.close();
    }
  });

  it('E5 creates, patches, reads and deletes a ConfigMap through kubectl', async () => {
    const name = uniqueName('cm');
    await ok(['create', 'configmap', name, '--from-literal=a=1']);
    await ok(['patch', 'configmap', name, '--type=merge', '-p', '{"data":{"b":"2"}}']);
    expect(JSON.parse(await ok(['get', 'configmap', name, '-o', 'json'])).data).toEqual({ a: '1', b: '2' });
    await ok(['delete', 'configmap', name]);
    const gone = await kubectl(['get', 'configmap', name]);
    expect(gone.stderr).toContain(`configmaps "${name}" not found`);
  });

  it('E6 kubectl create namespace, secret, configmap and deployment send protobuf bodies, which the server reads', async () => {
    const ns = uniqueName('pb');
    await ok(['create', 'namespace', ns]);
    await ok(['create', 'secret', 'generic', 's', '-n', ns, '--from-literal=key=value']);
    await ok(['create', 'configmap', 'c', '-n', ns, '--from-literal=a=1']);
    await ok(['create', 'deployment', 'd', '-n', ns, '--image=nginx:1.27', '--replicas=0']);
    const secret = JSON.parse(await ok(['get', 'secret', 's', '-n', ns, '-o', 'json']));
    expect([secret.type, secret.data]).toEqual(['Opaque', { key: Buffer.from('value').toString('base64') }]);
    expect(JSON.parse(await ok(['get', 'configmap', 'c', '-n', ns, '-o', 'json'])).data).toEqual({ a: '1' });
    const deployment = JSON.parse(await ok(['get', 'deployment', 'd', '-n', ns, '-o', 'json', '--show-managed-fields']));
    // replicas is a pointer in Go: an explicit 0 arrives and is kept, not defaulted to 1.
    expect(deployment.spec.replicas).toBe(0);
    expect(deployment.spec.selector).toEqual({ matchLabels: { app: 'd' } });
    expect(deployment.spec.template.spec.containers).toMatchObject([{ name: 'nginx', image: 'nginx:1.27' }]);
    const managers = (deployment.metadata.managedFields as { manager: string }[] | undefined) ?? [];
    expect(managers.map((m) => m.manager)).toEqual(['kubectl-create']);
  });

  it('E6 kubectl get prints a custom resource with its CRD printer columns, and built-in kinds with their own', async () => {
    const ns = uniqueName('table');
    await ok(['create', 'namespace', ns]);
    const instance = { apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance', metadata: { name: 'demo', namespace: ns }, spec: { image: 'gw:1', model: 'gpt' } };
    await ok(['create', '-f', '-'], JSON.stringify(instance));
    const lines = (await ok(['get', 'oci', '-n', ns])).trim().split('\n');
    expect(lines[0]?.split(/\s+/)).toEqual(['NAME', 'IMAGE', 'MODEL', 'REVISION', 'READY', 'REASON', 'AGE']);
    expect(lines[1]).toMatch(/^demo\s+gw:1\s+gpt\s+\d+s$/);
    await ok(['create', 'configmap', 'two', '-n', ns, '--from-literal=a=1', '--from-literal=b=2']);
    const configMaps = (await ok(['get', 'configmaps', '-n', ns])).trim().split('\n');
    expect(configMaps[0]?.split(/\s+/)).toEqual(['NAME', 'DATA', 'AGE']);
    expect(configMaps[1]).toMatch(/^two\s+2\s+\d+s$/);
    const namespaces = (await ok(['get', 'namespace', ns])).trim().split('\n');
    expect(namespaces[1]).toMatch(new RegExp(`^${ns}\\s+Active\\s+\\d+s$`));
  });

  it('E6 kubectl apply (client side, validating on the server), a changed apply, diff and --dry-run=server on a ConfigMap', async () => {
    const ns = uniqueName('apply');
    await ok(['create', 'namespace', ns]);
    const manifest = (value: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns }, data: { a: value } });
    expect(await ok(['apply', '-f', '-'], manifest('1'))).toContain('configmap/settings created');
    const diff = await kubectl(['diff', '-f', '-'], { input: manifest('2') });
    // kubectl diff exits 1 when there are differences.
    expect(diff.code).toBe(1);
    expect(diff.stdout).toMatch(/^-\s+a: "1"$/m);
    expect(diff.stdout).toMatch(/^\+\s+a: "2"$/m);
    expect(await ok(['apply', '-f', '-', '--dry-run=server'], manifest('2'))).toContain('configured (server dry run)');
    expect(JSON.parse(await ok(['get', 'configmap', 'settings', '-n', ns, '-o', 'json'])).data).toEqual({ a: '1' });
    expect(await ok(['apply', '-f', '-'], manifest('2'))).toContain('configmap/settings configured');
    expect(JSON.parse(await ok(['get', 'configmap', 'settings', '-n', ns, '-o', 'json'])).data).toEqual({ a: '2' });
  });

  it('E6 kubectl apply --server-side on a custom resource records kubectl as the applier; unknown fields are refused (Strict)', async () => {
    const ns = uniqueName('ssa');
    await ok(['create', 'namespace', ns]);
    const manifest = (spec: Record<string, unknown>) =>
      JSON.stringify({ apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance', metadata: { name: 'agent', namespace: ns }, spec });
    expect(await ok(['apply', '--server-side', '-f', '-'], manifest({ image: 'gw:1', skills: ['a'] }))).toContain('serverside-applied');
    const applied = JSON.parse(await ok(['get', 'oci', 'agent', '-n', ns, '-o', 'json', '--show-managed-fields']));
    expect(applied.metadata.managedFields.map((e: { manager: string; operation: string }) => [e.manager, e.operation])).toEqual([['kubectl', 'Apply']]);
    const refused = await kubectl(['apply', '--server-side', '-f', '-'], { input: manifest({ image: 'gw:2', colour: 'red' }) });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('strict decoding error: unknown field "spec.colour"');
    const warned = await kubectl(['apply', '--server-side', '--validate=warn', '-f', '-'], { input: manifest({ image: 'gw:2', colour: 'red' }) });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain('Warning: unknown field "spec.colour"');
    expect(JSON.parse(await ok(['get', 'oci', 'agent', '-n', ns, '-o', 'json'])).spec).toEqual({ image: 'gw:2' });
  });

  it('E6 kubectl explain reads the OpenAPI v3 documents: a CRD field and a built-in field', async () => {
    const custom = await ok(['explain', 'openclawinstances.spec.skills']);
    expect(custom).toContain('KIND:       OpenClawInstance');
    expect(custom).toContain('FIELD: skills <[]string>');
    const builtIn = await ok(['explain', 'configmap.data']);
    expect(builtIn).toContain('FIELD: data <map[string]string>');
    // The real server's description, whole (kinds/openapi-captured.ts), not a shortened one.
    expect(builtIn.replace(/\s+/g, ' ')).toContain('Values with non-UTF-8 byte sequences must use the BinaryData field.');
    // Built-in kinds are described to the leaves, as on a real server.
    const containers = await ok(['explain', 'deployment.spec.template.spec.containers']);
    expect(containers).toContain('FIELD: containers <[]Container>');
    expect(containers).toMatch(/name\s+<string> -required-/);
    const port = await ok(['explain', 'pods.spec.containers.ports.containerPort']);
    expect(port).toContain('FIELD: containerPort <integer>');
  });

  it('E6 kubectl refuses a Deployment with an unknown container field (Strict) and one with a port of the wrong type', async () => {
    const ns = uniqueName('typed');
    await ok(['create', 'namespace', ns]);
    const manifest = (container: object) =>
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: ns },
        spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'x', ...container }] } } },
      });
    const unknown = await kubectl(['create', '-f', '-'], { input: manifest({ colour: 'red' }) });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('strict decoding error: unknown field "spec.template.spec.containers[0].colour"');
    const mistyped = await kubectl(['create', '-f', '-'], { input: manifest({ ports: [{ containerPort: 'http' }] }) });
    expect(mistyped.code).toBe(1);
    expect(mistyped.stderr).toContain(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
    );
    expect((await kubectl(['get', 'deployment', 'web', '-n', ns])).code).toBe(1);
  });

  it('E7 kubectl delete --cascade=foreground waits for the dependents; --cascade=orphan leaves them', async () => {
    const ns = uniqueName('gc');
    await ok(['create', 'namespace', ns]);
    const ownerOf = async (name: string) => {
      await ok(['create', 'configmap', name, '-n', ns]);
      const uid = (await ok(['get', 'configmap', name, '-n', ns, '-o', 'jsonpath={.metadata.uid}'])).trim();
      const child = { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-child`, namespace: ns, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid, blockOwnerDeletion: true }] } };
      await ok(['create', '-f', '-'], JSON.stringify(child));
    };
    await ownerOf('fg');
    await ok(['delete', 'configmap', 'fg', '-n', ns, '--cascade=foreground']);
    expect((await kubectl(['get', 'secret', 'fg-child', '-n', ns])).stderr).toContain('not found');
    await ownerOf('or');
    await ok(['delete', 'configmap', 'or', '-n', ns, '--cascade=orphan']);
    const orphan = JSON.parse(await ok(['get', 'secret', 'or-child', '-n', ns, '-o', 'json']));
    expect(orphan.metadata.ownerReferences).toBeUndefined();
  });

  it('E5 E6 kubectl get --watch prints the table rows of the events as they happen', async () => {
    const ns = uniqueName('watch');
    await ok(['create', 'namespace', ns]);
    const child = spawn(KUBECTL, ['get', 'configmaps', '-n', ns, '--watch', '--output-watch-events'], {
      env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: kubeconfig },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      // The watch is open once kubectl has printed its first line (no configmaps yet: a notice on stderr).
      const ready = Date.now() + 20_000;
      while (output === '' && Date.now() < ready) await new Promise((r) => setTimeout(r, 50));
      await ok(['create', 'configmap', 'watched', '-n', ns, '--from-literal=a=1']);
      await ok(['delete', 'configmap', 'watched', '-n', ns]);
      const deadline = Date.now() + 20_000;
      while (!/DELETED\s+watched/.test(output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(output).toMatch(/EVENT\s+NAME\s+DATA\s+AGE/);
      expect(output).toMatch(/ADDED\s+watched\s+1\s+\d+s/);
      expect(output).toMatch(/DELETED\s+watched\s+1\s+\d+s/);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('E6 kubectl apply of a changed Deployment: the strategic merge patch kubectl sends merges containers and env by name', async () => {
    const ns = uniqueName('deploy');
    await ok(['create', 'namespace', ns]);
    const manifest = (image: string, env: { name: string; value: string }[]) =>
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: ns },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image, env }] } },
        },
      });
    await ok(['apply', '-f', '-'], manifest('nginx:1.27', [{ name: 'A', value: '1' }, { name: 'B', value: '2' }]));
    const run = await kubectl(['apply', '-f', '-'], { input: manifest('nginx:1.28', [{ name: 'A', value: '3' }]) });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const containers = JSON.parse(await ok(['get', 'deployment', 'web', '-n', ns, '-o', 'json'])).spec.template.spec.containers;
    expect(containers).toHaveLength(1);
    expect(containers[0]).toMatchObject({ name: 'web', image: 'nginx:1.28', env: [{ name: 'A', value: '3' }] });
    expect(Object.keys(containers[0]).filter((key) => key.startsWith('$'))).toEqual([]);
  });
});
