import {
  ApisApi,
  CoreApi,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  VersionApi,
  type KubernetesObject,
  type V1Secret,
} from '@kubernetes/client-node';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, b64, createNamespace, startTestCluster, type TestCluster } from './testing.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(() => cluster.close());

function configWithToken(yaml: string, token: string | undefined): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(yaml);
  const user = config.getCurrentUser();
  if (user) Object.assign(user, { token });
  return config;
}

describe('server', () => {
  it('E1 requests without the right bearer token get a 401 Unauthorized Status', async () => {
    const yaml = cluster.emulator.kubeconfigYaml();
    for (const token of ['wrong-token', undefined]) {
      const config = configWithToken(yaml, token);
      // The typed clients drop 401 bodies; KubernetesObjectApi keeps the body it got.
      expect((await apiFailure(config.makeApiClient(CoreV1Api).listNamespace())).code).toBe(401);
      const { code, body } = await apiFailure(KubernetesObjectApi.makeApiClient(config).list('v1', 'Namespace'));
      expect(code).toBe(401);
      expect(body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
    await expect(configWithToken(yaml, cluster.emulator.token).makeApiClient(CoreV1Api).listNamespace()).resolves.toBeTruthy();
  });

  it('E1 E5 the kubeconfig names the https server, its CA, the token and a current context', async () => {
    const config = new KubeConfig();
    config.loadFromString(cluster.emulator.kubeconfigYaml());
    expect(config.getCurrentCluster()?.server).toBe(cluster.emulator.url);
    expect(config.getCurrentCluster()?.skipTLSVerify).toBeFalsy();
    expect(Buffer.from(config.getCurrentCluster()?.caData ?? '', 'base64').toString()).toBe(cluster.emulator.caCertificate);
    expect(config.getCurrentUser()?.token).toBe(cluster.emulator.token);
    expect(cluster.emulator.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('E1 serves discovery documents for /api, /apis and each group version', async () => {
    const versions = await cluster.kubeConfig.makeApiClient(CoreApi).getAPIVersions();
    expect(versions.versions).toEqual(['v1']);
    const groups = await cluster.kubeConfig.makeApiClient(ApisApi).getAPIVersions();
    expect(groups.groups.map((g) => g.name)).toEqual(expect.arrayContaining(['apps', 'apiextensions.k8s.io']));
    const core = await cluster.core.getAPIResources();
    const secrets = core.resources.find((r) => r.name === 'secrets');
    expect(secrets).toMatchObject({ kind: 'Secret', namespaced: true, verbs: expect.arrayContaining(['watch', 'patch']) });
    expect(core.resources.find((r) => r.name === 'namespaces')?.namespaced).toBe(false);
    const apps = await cluster.apps.getAPIResources();
    expect(apps.resources.map((r) => r.name)).toEqual(['deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']);
    const version = await cluster.kubeConfig.makeApiClient(VersionApi).getCode();
    expect(version.major).toBe('1');
  });

  it('E1 KubernetesObjectApi finds kinds through discovery and does create, read, patch, delete', async () => {
    const ns = await createNamespace(cluster, 'objapi');
    const spec: V1Secret & KubernetesObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'generic', namespace: ns },
      stringData: { value: 'x' },
    };
    const created = await cluster.objects.create(spec);
    expect(created.metadata?.uid).toBeTruthy();
    const read = (await cluster.objects.read({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'generic', namespace: ns } })) as V1Secret;
    expect(read.data).toEqual({ value: b64('x') });
    const patched = (await cluster.objects.patch(
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'generic', namespace: ns, labels: { a: 'b' } } },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    )) as V1Secret;
    expect(patched.metadata?.labels).toEqual({ a: 'b' });
    await cluster.objects.delete({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'generic', namespace: ns } });
    expect((await apiFailure(cluster.core.readNamespacedSecret({ name: 'generic', namespace: ns }))).code).toBe(404);
  });

  it('E2 server-side apply without a fieldManager is a 422 naming the parameter', async () => {
    const ns = await createNamespace(cluster, 'ssa');
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'a' } } });
    const { code, body } = await apiFailure(
      cluster.objects.patch(
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a', namespace: ns } },
        undefined,
        undefined,
        undefined,
        undefined,
        PatchStrategy.ServerSideApply,
      ),
    );
    expect(code).toBe(422);
    expect(body.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    expect(body.details?.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' },
    ]);
  });

  it('E1 the CLI starts a standalone server, writes a kubeconfig and stops on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kube-emulator-cli-'));
    const kubeconfig = join(dir, 'kubeconfig.yaml');
    const dataFile = join(dir, 'data.json');
    const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', cli, '--port', '0', '--data-file', dataFile, '--kubeconfig', kubeconfig], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      // tsx compiles the CLI's imports at start: slow on a loaded machine.
      const deadline = Date.now() + 40_000;
      while (!output.includes('listening on') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      expect(output).toContain('listening on');

      const config = new KubeConfig();
      config.loadFromString(await readFile(kubeconfig, 'utf8'));
      const core = config.makeApiClient(CoreV1Api);
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'from-cli' } } });

      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const data = JSON.parse(await readFile(dataFile, 'utf8')) as { collections: Record<string, { metadata: { name: string } }[]> };
      expect(data.collections.configmaps?.map((c) => c.metadata.name)).toContain('from-cli');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
