import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import { AdmissionregistrationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, KubernetesObjectApi, loadAllYaml, type KubernetesObject } from '@kubernetes/client-node';
import { OPENCLAW_CRD_DIR } from '@occ/kube-emulator/crds';
import { DEPLOY_DIR } from '@occ/kube-emulator/deploy-manifests';
import { startKubeEmulator } from '@occ/kube-emulator/server';
import { endpointAddress, KUBE_TARGET } from '@occ/kube-emulator/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../env.ts';
import { kubeStatus } from '../kube/errors.ts';
import { dropDatabase, recreateDatabase, repeatsOnSecondDatabase, testDatabaseMode } from '../test/database.ts';
import { argvOf, containerPort, envOf, freePort, ingressAdmitting, labelSelectorSelects, readImageConfig, workloadsOf, type Workload } from '../test/manifests.ts';
import { waitFor } from '../test/operations.ts';

// The production build: `npm run build`, then scripts/stage-production (the very script the
// Containerfile runs) into a temporary folder: compiled JavaScript, the package files and
// `npm ci --omit=dev` from the npm cache. Built and staged once for this file's tests:
// - R1: the result started as the image starts it, with plain node, NODE_ENV=production, a real
//   PostgreSQL and an API server reached through a kubeconfig, migrates, serves /readyz, GraphQL
//   and the console, and stops on SIGTERM; its node_modules hold no development tool;
// - R7: the containers of `kubectl kustomize deploy/`, run as written (command, args, env, ports)
//   on that tree, against PostgreSQL and the API server of the run (the embedded one, or the E8
//   lane's real kube-apiserver: vitest.real.config.ts includes this file).

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}
type Running = ReturnType<typeof run>;

/** Resolves with the exit code, or rejects naming `what` when the process is still running at the deadline. */
async function exitWithin(process: Running, what: string, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not exit within ${ms} ms:\n${process.output()}`)), ms)));
  try {
    return await Promise.race([process.exited, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

let stagedApp: Promise<string> | undefined;
/** The built product staged as the image holds it (built once per run of this file). */
function staged(): Promise<string> {
  stagedApp ??= (async () => {
    // turbo rebuilds only what changed since the last build (the Prisma schema included). The
    // Prisma client in src/generated is current (`npm test` generates it first) and is not written
    // again: other test files run beside this one and spawn processes that import it, and
    // `prisma generate` empties the folder while it writes (ERR_MODULE_NOT_FOUND in a CI run).
    const build = run('npx', ['turbo', 'run', 'build', '--filter=@occ/api', '--filter=@occ/console', '--output-logs=errors-only'], { cwd: REPO_ROOT, env: { ...process.env, OCC_PRISMA_CLIENT_CURRENT: '1' } });
    expect(await build.exited, build.output()).toBe(0);
    const dir = await mkdtemp(path.join(tmpdir(), 'occ-image-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const app = path.join(dir, 'app');
    const stage = run(path.join(REPO_ROOT, 'scripts/stage-production'), [app], { cwd: REPO_ROOT, env: process.env });
    expect(await stage.exited, stage.output()).toBe(0);
    return app;
  })();
  return stagedApp;
}

/** The packages of a node_modules tree, nested ones included, by name. */
async function packagesIn(nodeModules: string): Promise<Set<string>> {
  const names = new Set<string>();
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
      if (entry.name.startsWith('@')) {
        for (const scoped of await readdir(path.join(dir, entry.name), { withFileTypes: true })) {
          names.add(`${entry.name}/${scoped.name}`);
          await walk(path.join(dir, entry.name, scoped.name, 'node_modules'));
        }
      } else {
        names.add(entry.name);
        await walk(path.join(dir, entry.name, 'node_modules'));
      }
    }
  };
  await walk(nodeModules);
  return names;
}

// Compilers, bundlers, test runners, linters, the console's framework and turbo (type declarations
// that client-node depends on, @types/*, are inert files and stay; so does fast-check, a run-time
// dependency of effect, which Prisma's config loader uses):
// none runs in production (DESIGN.md §3: tsx for development only, production runs compiled JavaScript).
const DEVELOPMENT_TOOLS = [/^typescript$/, /^tsx$/, /^ts-node$/, /^esbuild$/, /^@esbuild\//, /^vite$/, /^vitest$/, /^@vitest\//, /^eslint$/, /^@eslint\//, /^typescript-eslint$/, /^@typescript-eslint\//, /^turbo$/, /^turbo-/, /^next$/, /^@next\//, /^@playwright\//, /^playwright/, /^prettier$/, /^@occ\/e2e$/, /^@occ\/console$/];

describe('the production build', () => {
  it.runIf(testDatabaseMode() === 'postgres' && KUBE_TARGET.target === 'emulator')(
    'R1 the built product, staged as the Containerfile stages it (npm ci --omit=dev, offline), migrates, starts with plain node and NODE_ENV=production, answers /readyz, GraphQL and the console, and stops on SIGTERM (PostgreSQL only)',
    async () => {
      const app = await staged();
      const dir = path.dirname(app);
      // What an image holds: compiled JavaScript and run-time dependencies, nothing for development.
      for (const absent of ['apps/api/src', 'packages/domain/src', 'node_modules/tsx', 'node_modules/vitest', 'node_modules/next', 'node_modules/turbo', 'node_modules/@occ/e2e', 'node_modules/@playwright']) {
        expect(existsSync(path.join(app, absent)), absent).toBe(false);
      }
      for (const present of ['apps/api/dist/cli/start.js', 'apps/api/dist/generated/prisma/client.js', 'node_modules/pg', 'node_modules/@prisma/client', 'node_modules/prisma', 'apps/console/out/index.html']) {
        expect(existsSync(path.join(app, present)), present).toBe(true);
      }

      const dbName = `occ_test_image_${process.pid}`;
      const databaseUrl = await recreateDatabase(process.env.DATABASE_URL!, dbName);
      cleanups.push(() => dropDatabase(process.env.DATABASE_URL!, dbName));
      const kube = await startKubeEmulator({});
      cleanups.push(() => kube.close());
      const kubeconfig = path.join(dir, 'kubeconfig.yaml');
      await writeFile(kubeconfig, kube.kubeconfigYaml());
      const keyFile = path.join(dir, 'bootstrap-key');
      // Only what a pod would have: no TEST_DATABASE, no tsx loader, no variables of this run.
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: dir,
        NODE_ENV: 'production',
        DATABASE_URL: databaseUrl,
        KUBECONFIG: kubeconfig,
        OCC_PORT: '0',
        OCC_DATA_DIR: path.join(dir, 'data'),
        OCC_BOOTSTRAP_KEY_FILE: keyFile,
        OCC_METRICS_PORT: '0',
      };

      // The migration step (the manifests' Job), then a replica.
      // Without the export condition each command says what to run, and migrates nothing.
      for (const entry of ['migrate', 'start', 'worker']) {
        const bare = run(process.execPath, [`apps/api/dist/cli/${entry}.js`], { cwd: app, env });
        expect(await exitWithin(bare, `${entry}.js without --conditions`, 60_000), bare.output()).toBe(1);
        expect(bare.output().trim()).toBe(`Start the built product with \`node --conditions=occ-dist apps/api/dist/cli/${entry}.js\` (README: Production).`);
      }
      const migrate = run(process.execPath, ['--conditions=occ-dist', 'apps/api/dist/cli/migrate.js'], { cwd: app, env });
      expect(await migrate.exited, migrate.output()).toBe(0);
      const replica = run(process.execPath, ['--conditions=occ-dist', 'apps/api/dist/cli/start.js'], { cwd: app, env });
      const url = await waitFor(
        async () => /GraphQL:\s+(\S+)\/graphql/.exec(replica.output())?.[1] ?? (replica.child.exitCode !== null ? Promise.reject(new Error(replica.output())) : null),
        'the built product to start',
        120_000,
      );

      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', checks: { database: 'ok', kubernetes: 'ok' } });
      const key = (await readFile(keyFile, 'utf8')).trim();
      expect(replica.output()).not.toContain(key);
      const answer = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: '{ viewer { id kind } }' }),
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ data: { viewer: { id: expect.stringMatching(/^spn_/), kind: 'SERVICE' } } });
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-/);

      // R6: the metrics listener, on its own port.
      const metricsUrl = /Metrics:\s+(\S+)/.exec(replica.output())?.[1];
      expect(metricsUrl, replica.output()).toBeDefined();
      const metrics = await (await fetch(metricsUrl!)).text();
      expect(metrics).toMatch(/occ_http_request_duration_seconds_count\{method="POST",route="\/graphql",status="200"\} [1-9]/);

      replica.child.kill('SIGTERM');
      expect(await replica.exited, replica.output()).toBe(0);
    },
    1_500_000,
  );

  it.runIf(KUBE_TARGET.target === 'emulator' && !repeatsOnSecondDatabase())(
    'R1 the staged runtime tree holds no compiler, bundler, test runner or linter: every package in its node_modules is listed and none is a development tool (TypeScript included)',
    async () => {
      const app = await staged();
      const packages = await packagesIn(path.join(app, 'node_modules'));
      expect(packages.size).toBeGreaterThan(50);
      for (const needed of ['pg', '@prisma/client', 'prisma', 'pino', 'prom-client', '@kubernetes/client-node']) expect(packages.has(needed), needed).toBe(true);
      expect([...packages].filter((name) => DEVELOPMENT_TOOLS.some((tool) => tool.test(name))).sort()).toEqual([]);
    },
    1_500_000,
  );

  it.runIf(testDatabaseMode() === 'postgres')(
    'R7 R1 R3 R6 SC5 the containers of `kubectl kustomize deploy/` run as written on the built tree: a replica on an unmigrated database refuses in one JSON line naming the migrations, the Job migrates, the API and the worker pass their probes, serve Prometheus text on their metrics ports, which NetworkPolicies admit, the API serves the SelfConfig webhook with a certificate it made for its Service and the API server calls it through the Service, one names where the bootstrap key went, a replica of a new release waits for its Job while the old one serves (README step 6), and both stop on SIGTERM (PostgreSQL only)',
    async () => {
      const app = await staged();
      const dir = await mkdtemp(path.join(tmpdir(), 'occ-r7-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const rendered = await promisify(execFile)('/usr/bin/kubectl', ['kustomize', DEPLOY_DIR], { maxBuffer: 32 * 1024 * 1024 });
      const objects = (loadAllYaml(rendered.stdout) as Obj[]).filter(Boolean);
      const image = await readImageConfig(path.join(REPO_ROOT, 'Containerfile'));
      const workloads = workloadsOf(objects);
      // Every container deploy/ runs is run here: a new one must be added to this test.
      expect(workloads.map((w) => `${w.kind}/${w.name}/${w.container.name}`).sort()).toEqual(['Deployment/occ-api/api', 'Deployment/occ-worker/worker', 'Job/occ-migrate/migrate']);
      const workload = (name: string) => workloads.find((w) => w.name === name)!;

      // A fresh database, and the cluster of this run with the install's namespace.
      const dbName = `occ_test_r7_${randomBytes(6).toString('hex')}`;
      const databaseUrl = await recreateDatabase(process.env.DATABASE_URL!, dbName);
      cleanups.push(() => dropDatabase(process.env.DATABASE_URL!, dbName));
      const admin = new KubeConfig();
      let kubeconfig: string;
      if (KUBE_TARGET.target === 'real') {
        admin.loadFromFile(KUBE_TARGET.kubeconfig);
        // As the README's install step: the whole of deploy/ applied (the one kind kube-apiserver
        // 1.20 serves in an older version, PodDisruptionBudget, as policy/v1beta1: D8 in
        // REAL-SERVER-DIFFERENCES.md), then the processes run as its service account occ-api,
        // with a token the TokenRequest API issues, so its RBAC is what they may do.
        const for120 = rendered.stdout.replace(/^apiVersion: policy\/v1\nkind: PodDisruptionBudget$/m, 'apiVersion: policy/v1beta1\nkind: PodDisruptionBudget');
        const apply = execFile(KUBE_TARGET.kubectl, ['--kubeconfig', KUBE_TARGET.kubeconfig, 'apply', '--server-side', '--force-conflicts', '--field-manager=occ-deploy', '-f', '-']);
        apply.stdin!.end(for120);
        let applyOutput = '';
        apply.stderr!.on('data', (d: Buffer) => (applyOutput += d.toString()));
        expect(await new Promise((resolve) => apply.on('close', resolve)), applyOutput).toBe(0);
        const token = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({ name: 'occ-api', namespace: 'occ-system', body: { spec: { audiences: [], expirationSeconds: 3600 } } });
        const cluster = admin.getCurrentCluster()!;
        const asServiceAccount = new KubeConfig();
        asServiceAccount.loadFromOptions({
          clusters: [cluster],
          users: [{ name: 'occ-api', token: token.status!.token }],
          contexts: [{ name: 'occ-api', cluster: cluster.name, user: 'occ-api' }],
          currentContext: 'occ-api',
        });
        kubeconfig = path.join(dir, 'kubeconfig-occ-api.json');
        await writeFile(kubeconfig, asServiceAccount.exportConfig(), { mode: 0o600 });
      } else {
        const kube = await startKubeEmulator({ crdDirs: [OPENCLAW_CRD_DIR] });
        cleanups.push(() => kube.close());
        admin.loadFromString(kube.kubeconfigYaml());
        // The install's namespace, and what the API server needs to call the webhook: the Service
        // and the webhook configuration (the rest of deploy/ is what the real branch applies).
        for (const kind of ['Namespace', 'Service', 'ValidatingWebhookConfiguration']) {
          await KubernetesObjectApi.makeApiClient(admin).create(objects.find((o) => o.kind === kind && (kind !== 'Service' || o.metadata.name === 'occ-api')) as KubernetesObject);
        }
        kubeconfig = path.join(dir, 'kubeconfig.yaml');
        await writeFile(kubeconfig, kube.kubeconfigYaml(), { mode: 0o600 });
      }
      // The install's webhook (failurePolicy Fail) must not outlive this run: on the lane's shared
      // server it would refuse every later SelfConfig request.
      cleanups.push(() => admin.makeApiClient(AdmissionregistrationV1Api).deleteValidatingWebhookConfiguration({ name: 'openclaw-selfconfig' }));
      const core = admin.makeApiClient(CoreV1Api);
      // A fresh installation refuses to overwrite a bootstrap Secret an earlier one left (R3).
      await core.deleteNamespacedSecret({ name: 'occ-bootstrap-key', namespace: 'occ-system' }).catch(() => {});

      /**
       * Starts the container's command line on the staged tree. Pods have a network namespace each
       * and these processes share one host, so each declared container port is mapped to a free
       * one: an env value equal to a container port becomes the mapped port (a port the process
       * listens on without such a value would not answer its probe). Its volume mounts become
       * temporary folders, the image's WORKDIR the staged tree, `node` this Node 24.
       */
      async function start(w: Workload) {
        const env = envOf(w, image, { secrets: { 'occ-database/url': databaseUrl } });
        const ports = new Map<number, number>();
        for (const p of (w.container.ports ?? []) as Obj[]) ports.set(p.containerPort, await freePort());
        const mounts = new Map<string, string>();
        for (const m of (w.container.volumeMounts ?? []) as Obj[]) {
          const local = path.join(dir, w.name, m.name);
          await mkdir(local, { recursive: true });
          mounts.set(m.mountPath, local);
        }
        for (const [name, value] of Object.entries(env)) {
          const port = ports.get(Number(value));
          if (port !== undefined && /^\d+$/.test(value)) env[name] = String(port);
          for (const [mountPath, local] of mounts) if (value === mountPath || value.startsWith(`${mountPath}/`)) env[name] = local + value.slice(mountPath.length);
        }
        const argv = argvOf(w.container, image);
        expect(argv[0], `${w.name} runs node`).toBe('node');
        const workdir = w.container.workingDir ?? image.workdir;
        expect(workdir, 'the image holds the staged tree at its WORKDIR').toBe('/app');
        // What a pod has besides: PATH and HOME, and a service account (here its kubeconfig).
        const automount = w.kind !== 'Job' && objects.find((o) => o.kind === w.kind && o.metadata.name === w.name)!.spec.template.spec.automountServiceAccountToken !== false;
        const processEnv = { PATH: process.env.PATH, HOME: path.join(dir, w.name), ...env, ...(automount ? { KUBECONFIG: kubeconfig } : {}) };
        const started = run(process.execPath, argv.slice(1), { cwd: app, env: processEnv });
        const port = (name: string | number) => ports.get(containerPort(w.container, name))!;
        return { ...started, port };
      }

      /** Where the kubelet would GET an httpGet probe of this process. */
      const probeUrl = (p: Awaited<ReturnType<typeof start>>, spec: Obj) => `http://127.0.0.1:${p.port(spec.httpGet.port)}${spec.httpGet.path}`;

      /** GETs the probe until it answers 200, as the kubelet would; fails when the process exits first. */
      async function probe(p: Awaited<ReturnType<typeof start>>, what: string, spec: Obj) {
        expect(spec?.httpGet, `${what} is an httpGet probe`).toBeDefined();
        const url = probeUrl(p, spec);
        return waitFor(
          async () => {
            if (p.child.exitCode !== null) throw new Error(`${what}: the process exited (${p.child.exitCode}):\n${p.output()}`);
            const answer = await fetch(url).catch(() => null);
            return answer?.status === 200 ? answer : null;
          },
          `${what} (${spec.httpGet.path})`,
          120_000,
        );
      }

      // 1. A replica before the migration step: one JSON log line naming the missing migrations.
      const migrations = (await readdir(path.join(app, 'prisma/migrations'), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
      const early = await start(workload('occ-api'));
      expect(await exitWithin(early, 'a replica on an unmigrated database', 120_000), early.output()).toBe(1);
      const lines = early.output().trim().split('\n');
      expect(lines, early.output()).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', code: 'SCHEMA_BEHIND', missingMigrations: migrations, msg: expect.stringContaining(migrations.at(-1)!) });

      // 2. The migration Job.
      const job = await start(workload('occ-migrate'));
      expect(await exitWithin(job, 'the migration Job', 300_000), job.output()).toBe(0);

      // 3. The API and the worker: probes, metrics, and the NetworkPolicies in front of them.
      const api = await start(workload('occ-api'));
      const worker = await start(workload('occ-worker'));
      for (const [name, p] of [['occ-api', api], ['occ-worker', worker]] as const) {
        const w = workload(name);
        for (const kind of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
          if (kind !== 'startupProbe' || w.container[kind]) await probe(p, `${name} ${kind}`, w.container[kind]);
        }
        expect(await (await fetch(probeUrl(p, w.container.readinessProbe))).json(), name).toMatchObject({ status: 'ready', checks: { database: 'ok', kubernetes: 'ok', ...(name === 'occ-api' ? { webhook: 'ok' } : {}) } });
        const metrics = await fetch(`http://127.0.0.1:${p.port('metrics')}/metrics`);
        expect(metrics.status, name).toBe(200);
        expect(metrics.headers.get('content-type'), name).toMatch(/^text\/plain; version=0\.0\.4/);
        const text = await metrics.text();
        expect(text, name).toMatch(/^# TYPE occ_work_queue_depth gauge$/m);
        expect(text, name).toMatch(/^occ_kubernetes_request_duration_seconds_count\{/m);
        // Reachable with deploy/'s default deny: the probe ports from anywhere (the kubelet), the
        // metrics port at least from the monitoring namespace.
        for (const kind of ['readinessProbe', 'livenessProbe']) {
          const port = containerPort(w.container, w.container[kind].httpGet.port);
          expect(ingressAdmitting(objects, w, port), `${name} ${kind} port ${port}`).toContainEqual([]);
        }
        expect(ingressAdmitting(objects, w, containerPort(w.container, 'metrics')).length, `${name} metrics`).toBeGreaterThan(0);
      }
      // SC5: the API serves the SelfConfig webhook on its webhook port with a certificate it made for
      // the Service's name (kept in the Secret occ-api-webhook-tls), open to the API server.
      const webhookSecret = await admin.makeApiClient(CoreV1Api).readNamespacedSecret({ name: 'occ-api-webhook-tls', namespace: 'occ-system' });
      const served = await new Promise<string>((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', port: api.port('webhook'), servername: 'occ-api.occ-system.svc', ca: Buffer.from(webhookSecret.data!['ca-bundle.crt']!, 'base64').toString('utf8') }, () => {
          resolve(socket.getPeerX509Certificate()?.checkHost('occ-api.occ-system.svc') ?? '');
          socket.end();
        });
        socket.on('error', reject);
      });
      expect(served).toBe('occ-api.occ-system.svc');
      // ... and the API server calls it through the Service: this replica as its endpoint (written
      // here, as no endpoints controller runs; this machine's address, since loopback is refused),
      // a SelfConfig request from the cluster's administrator refused by the webhook's decision.
      await core.createNamespacedEndpoints({
        namespace: 'occ-system',
        body: { metadata: { name: 'occ-api' }, subsets: [{ addresses: [{ ip: endpointAddress() }], ports: [{ name: 'webhook', port: api.port('webhook'), protocol: 'TCP' }] }] },
      });
      cleanups.push(() => core.deleteNamespacedEndpoints({ namespace: 'occ-system', name: 'occ-api' }));
      const custom = admin.makeApiClient(CustomObjectsApi);
      const request = { group: 'openclaw.rocks', version: 'v1alpha1', namespace: 'occ-system', plural: 'openclawselfconfigs' };
      const refusal = await waitFor(async () => {
        const outcome = await custom
          .createNamespacedCustomObject({ ...request, body: { apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawSelfConfig', metadata: { name: 'r7-webhook' }, spec: { instanceRef: 'nobody', addSkills: ['x'] } } })
          .then(() => null, (error: unknown) => kubeStatus(error));
        if (outcome === null) await custom.deleteNamespacedCustomObject({ ...request, name: 'r7-webhook' });
        // 500: the Endpoints or the configuration not yet seen by the real server's informers.
        return outcome && outcome.code !== 500 ? outcome : null;
      }, 'the webhook called through the Service');
      expect(refusal).toMatchObject({ code: 403, message: 'admission webhook "selfconfig.openclaw.rocks" denied the request: OpenClawInstance "nobody" not found in namespace "occ-system"' });
      expect(ingressAdmitting(objects, workload('occ-api'), containerPort(workload('occ-api').container, 'webhook')), 'the webhook port').toContainEqual([]);
      // The Service reaches the API's pods only, on a port the API listens on and the policies admit.
      const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'occ-api')!;
      expect(labelSelectorSelects({ matchLabels: service.spec.selector }, workload('occ-api').labels)).toBe(true);
      expect(labelSelectorSelects({ matchLabels: service.spec.selector }, workload('occ-worker').labels)).toBe(false);
      for (const port of service.spec.ports as Obj[]) {
        expect(ingressAdmitting(objects, workload('occ-api'), containerPort(workload('occ-api').container, port.targetPort)), `Service port ${port.name}`).toContainEqual([]);
      }

      // R3: one of them made the installation; its log line names the Secret, never the key.
      const key = await waitFor(async () => {
        const secret = await core.readNamespacedSecret({ name: 'occ-bootstrap-key', namespace: 'occ-system' }).catch(() => null);
        return secret?.data?.apiKey ? Buffer.from(secret.data.apiKey, 'base64').toString('utf8') : null;
      }, 'the bootstrap Secret');
      const logLines = [api, worker].flatMap((p) => p.output().split('\n')).filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Obj);
      expect(logLines.filter((l) => l.msg === 'bootstrap API key written').map((l) => l.to)).toEqual([expect.stringContaining('Secret occ-system/occ-bootstrap-key')]);
      for (const p of [early, job, api, worker]) expect(p.output()).not.toContain(key);
      const viewer = await fetch(`http://127.0.0.1:${api.port('http')}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: '{ viewer { kind } }' }),
      });
      expect(await viewer.json()).toEqual({ data: { viewer: { kind: 'SERVICE' } } });

      // R2, the README's install step 6, a new release: its tree has a migration the database lacks.
      // A replica of it refuses, naming that one migration, while the old replica goes on serving;
      // the Job (made again) migrates under it, and then the new replica starts and is ready.
      const release = '99991231000000_r2_next_release';
      await mkdir(path.join(app, 'prisma/migrations', release));
      await writeFile(path.join(app, 'prisma/migrations', release, 'migration.sql'), 'CREATE TABLE "R2NextRelease" ("id" INTEGER PRIMARY KEY);\n');
      const apiReady = async () => (await fetch(probeUrl(api, workload('occ-api').container.readinessProbe))).status;
      const behind = await start(workload('occ-api'));
      expect(await exitWithin(behind, 'a replica of the new release before its Job', 120_000), behind.output()).toBe(1);
      expect(JSON.parse(behind.output().trim())).toMatchObject({ code: 'SCHEMA_BEHIND', missingMigrations: [release] });
      expect(await apiReady()).toBe(200);
      const nextJob = await start(workload('occ-migrate'));
      expect(await exitWithin(nextJob, "the new release's migration Job", 300_000), nextJob.output()).toBe(0);
      expect(await apiReady(), 'the old replica serves on the new schema').toBe(200);
      const nextApi = await start(workload('occ-api'));
      await probe(nextApi, 'a replica of the new release', workload('occ-api').container.readinessProbe);
      nextApi.child.kill('SIGTERM');
      expect(await exitWithin(nextApi, 'the new replica after SIGTERM', 60_000), nextApi.output()).toBe(0);

      // R5: both stop cleanly on SIGTERM, within the pod's grace period.
      for (const [name, p] of [['occ-api', api], ['occ-worker', worker]] as const) {
        p.child.kill('SIGTERM');
        const grace = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!.spec.template.spec.terminationGracePeriodSeconds as number;
        expect(await exitWithin(p, `${name} after SIGTERM`, grace * 1000), p.output()).toBe(0);
      }
    },
    1_500_000,
  );
});
