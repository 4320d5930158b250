import { AdmissionregistrationV1Api, CustomObjectsApi, PatchStrategy, RbacAuthorizationV1Api, Watch, setHeaderOptions, type CoreV1Event } from '@kubernetes/client-node';
import { uuidOf } from '@occ/domain/ids';
import { AGENT_ID_LABEL, agentInstanceName, installationLabels, kubernetesNamespaceName, SELFCONFIG_AGENT_ROLE } from '@occ/domain/kubernetes-names';
import { KUBE_TARGET } from '@occ/kube-emulator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase, findCanary } from '../test/canary.ts';
import { createReadyNamespace, createSecretOk, CREATE_AGENT, CREATE_CONFIGURATION, payload, waitFor } from '../test/operations.ts';
import { kubeConfigAsServiceAccount } from '../kube/service-account-client.ts';
import { createLogger } from '../log.ts';
import { untilTerminal } from '../test/selfconfig.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { kubernetesSelfConfigCluster, type SelfConfigCluster, type WatchEvent } from './cluster.ts';
import { REDACTED } from './reconcile.ts';
import { createSelfConfigController, type SelfConfigController } from './controller.ts';

// The SelfConfig scenarios, against the embedded API server through client-node, as a user's kubectl
// or an agent's service account would: each request is an OpenClawSelfConfig object, and the
// controller (on the leader of this one-replica installation) carries it to a terminal phase.

const GROUP = 'openclaw.rocks';
const VERSION = 'v1alpha1';
const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

let stack: TestStack;
let custom: CustomObjectsApi;
let k8sNs: string;
let agentId: string;
let instance: string;
let lockedAgentId: string;
let now = new Date('2026-11-30T20:00:00Z');
const phases = new Map<string, string[]>();
let stopWatch: AbortController;
let counter = 0;

type Obj = { metadata: { name: string; uid: string; resourceVersion: string; generation?: number; ownerReferences?: Array<{ kind: string; name: string; uid: string }>; managedFields?: Array<{ manager: string; operation: string; fieldsV1: unknown }> }; spec: Record<string, any>; status?: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- test objects

async function applyInstance(name: string, manager: string, spec: Record<string, unknown>, labels?: Record<string, string>): Promise<Obj> {
  return (await custom.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, plural: 'openclawinstances', namespace: k8sNs, name, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawInstance', metadata: { name, ...(labels ? { labels } : {}) }, spec }, fieldManager: manager, force: true },
    apply,
  )) as Obj;
}

async function getInstance(name = instance): Promise<Obj> {
  return (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawinstances', namespace: k8sNs, name })) as Obj;
}

/** SC5: requests come from the instance's own ServiceAccount (the webhook refuses anyone else). */
const asInstanceClients = new Map<string, Promise<CustomObjectsApi>>();
function asInstance(instanceRef: string): Promise<CustomObjectsApi> {
  let client = asInstanceClients.get(instanceRef);
  if (!client) {
    client = (async () => {
      await stack.core.createNamespacedServiceAccount({ namespace: k8sNs, body: { metadata: { name: instanceRef } } }).catch((e: { code?: number }) => {
        if (e.code !== 409) throw e;
      });
      // And its permission to file requests, as deploy binds it with selfConfigure on (SC5); a real
      // server refuses the request without it, the emulator authorizes nothing.
      await stack.kubeConfig.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
        namespace: k8sNs,
        body: {
          metadata: { name: `${instanceRef}-selfconfig` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: SELFCONFIG_AGENT_ROLE },
          subjects: [{ kind: 'ServiceAccount', name: instanceRef, namespace: k8sNs }],
        },
      }).catch((e: { code?: number }) => {
        if (e.code !== 409) throw e;
      });
      return (await kubeConfigAsServiceAccount(stack.kubeConfig, k8sNs, instanceRef)).makeApiClient(CustomObjectsApi);
    })();
    asInstanceClients.set(instanceRef, client);
  }
  return client;
}

/** The Status body of a refused client-node call, as text. */
function bodyText(error: unknown): string {
  const body = (error as { body?: unknown }).body;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** Runs `body` with the webhook's registration away, as when it is down (SC5 and SG5 checked by the controller alone). */
async function withoutWebhook(body: () => Promise<void>): Promise<void> {
  const admissions = stack.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const saved = await admissions.readValidatingWebhookConfiguration({ name: 'openclaw-selfconfig' });
  await admissions.deleteValidatingWebhookConfiguration({ name: 'openclaw-selfconfig' });
  try {
    await body();
  } finally {
    await admissions.createValidatingWebhookConfiguration({ body: { metadata: { name: 'openclaw-selfconfig', labels: saved.metadata?.labels }, webhooks: saved.webhooks } });
  }
}

/** Creates a request as the instance's service account would and waits for its terminal phase. */
async function submit(spec: Record<string, unknown>, instanceRef = instance): Promise<Obj> {
  const name = `req-${++counter}`;
  await (await asInstance(instanceRef)).createNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawSelfConfig', metadata: { name }, spec: { instanceRef, ...spec } } });
  return untilTerminal<Obj>(stack, k8sNs, name);
}

async function eventsFor(kind: string, name: string): Promise<CoreV1Event[]> {
  const list = await stack.core.listNamespacedEvent({ namespace: k8sNs });
  return list.items.filter((e) => e.involvedObject.kind === kind && e.involvedObject.name === name);
}

async function createAgent(name: string, input: Record<string, unknown>, namespaceId: string): Promise<string> {
  const created = payload(await stack.gql(CREATE_AGENT, { input: { namespaceId, name, ...input } }), 'createAgent');
  expect(created.__typename, JSON.stringify(created)).toBe('CreateAgentSuccess');
  return created.agent.id;
}

const ALL = ['skills', 'config', 'workspaceFiles', 'envVars'];

beforeAll(async () => {
  // These scenarios file some 40 requests against one instance within one hour of the injected
  // clock; SG4's budgets are proven in budgets.test.ts, so here they are out of the way.
  stack = await startTestStack({ env: { selfConfigTtlSeconds: 600, selfConfigBudget: { requestsPerHour: 1000, appliedPerDay: 1000, pauseAfterRollbacks: 3 } }, selfConfigClock: () => now, selfConfigWebhookOnLoopback: true });
  custom = stack.kubeConfig.makeApiClient(CustomObjectsApi);
  const nsId = await createReadyNamespace(stack, 'selfconfig');
  k8sNs = kubernetesNamespaceName(nsId);
  const telegram = await createSecretOk(stack, nsId, 'telegram', 'canary-telegram-value');
  const model = await createSecretOk(stack, nsId, 'model', 'canary-model-value');
  const cfg = payload(
    await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId: nsId, name: 'cfg', values: {}, secretBindings: [{ envName: 'TELEGRAM_BOT_TOKEN', source: { id: telegram.id } }] } }),
    'createConfiguration',
  );
  expect(cfg.__typename, JSON.stringify(cfg)).toBe('CreateConfigurationSuccess');
  agentId = await createAgent('self', { configurationId: cfg.configuration.id, harnessAuth: { provider: 'anthropic', source: { id: model.id } }, selfConfigure: { enabled: true, allowedActions: ALL } }, nsId);
  lockedAgentId = await createAgent('locked', {}, nsId);
  instance = agentInstanceName(agentId);
  await applyInstance(instance, 'occ-controller', {
    image: 'ghcr.io/openclaw/openclaw:1',
    skills: ['base'],
    env: [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'TELEGRAM_BOT_TOKEN', valueFrom: { secretKeyRef: { name: 'backend-telegram', key: 'value' } } },
    ],
    workspace: { initialFiles: { 'AGENTS.md': '# agents' } },
    config: { raw: { gateway: { auth: { mode: 'token' } }, channels: {} } },
    selfConfigure: { enabled: true, allowedActions: ALL },
  // The agent's label, as a deploy writes it (Agent.fieldOwnership finds a page's instances by it);
  // not the installation's, so that the runtime's instance reconciler leaves this one alone.
  }, { [AGENT_ID_LABEL]: uuidOf(agentId) });
  await applyInstance(instance, 'other-tool', { skills: ['other'] });
  await asInstance(instance); // its ServiceAccount, as deploy makes it (W4)
  // Every phase each request passes through, as a watcher sees them (SC2).
  stopWatch = await new Watch(stack.kubeConfig).watch(
    `/apis/${GROUP}/${VERSION}/namespaces/${k8sNs}/openclawselfconfigs`,
    {},
    (_type: string, obj: Obj) => {
      const seen = phases.get(obj.metadata.name) ?? [];
      const phase = obj.status?.phase as string | undefined;
      if (phase && seen.at(-1) !== phase) seen.push(phase);
      phases.set(obj.metadata.name, seen);
    },
    () => undefined,
  );
  await waitFor(async () => stack.runtime.selfConfig.running(), 'the SelfConfig controller to start on the leader');
}, 120_000);

afterAll(async () => {
  if (process.env.SC_DEBUG) console.log(stack.logs.filter((l) => l.includes('selfconfig')).join('').slice(-6000));
  stopWatch?.abort();
  await stack?.close();
});

// Each scenario waits on a controller; on a loaded machine that takes longer than the default.
describe('SelfConfig scenarios against the embedded server', { timeout: 180_000 }, () => {
  it('SC2 a watcher sees Pending before the terminal phase, and SC8 the applied request is owned by its instance with Normal events on both', async () => {
    const done = await submit({ addSkills: ['fetch'] });
    expect(done.status).toMatchObject({ phase: 'Applied', message: 'applied' });
    await waitFor(async () => (phases.get(done.metadata.name)?.length ?? 0) >= 2, 'both phases seen');
    expect(phases.get(done.metadata.name)).toEqual(['Pending', 'Applied']);
    const live = await getInstance();
    expect(done.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'OpenClawInstance', name: instance, uid: live.metadata.uid })]);
    expect((await eventsFor('OpenClawInstance', instance)).some((e) => e.reason === 'SelfConfigApplied' && e.type === 'Normal' && e.message?.includes(done.metadata.name))).toBe(true);
    expect((await eventsFor('OpenClawSelfConfig', done.metadata.name)).map((e) => [e.type, e.reason])).toEqual([['Normal', 'Applied']]);
  });

  it("SC7 two managers own different skills: removing the other's skill is skipped naming its owner and operation", async () => {
    const done = await submit({ addSkills: ['mcp-server-fetch'], removeSkills: ['other'] });
    expect(done.status?.phase).toBe('Applied');
    expect(done.status?.skippedRemovals).toEqual([{ kind: 'skill', name: 'other', managers: ['other-tool (Apply)'] }]);
    expect(done.status?.message).toContain('"other"');
    expect(done.status?.message).toContain('other-tool (Apply)');
    const live = await getInstance();
    expect(live.spec.skills).toEqual(expect.arrayContaining(['base', 'other', 'fetch', 'mcp-server-fetch']));
    const warnings = (await eventsFor('OpenClawInstance', instance)).filter((e) => e.reason === 'SelfConfigSkippedRemoval' && e.message?.includes(done.metadata.name));
    expect(warnings.map((e) => [e.type, e.message?.includes('other-tool (Apply)')])).toEqual([['Warning', true]]);
  });

  it('SC6 a skills-only request keeps the env vars and files earlier requests added, and still owns them', async () => {
    expect((await submit({ addEnvVars: [{ name: 'MY_VAR', value: 'hello' }], addWorkspaceFiles: { 'notes/today.md': 'remember' } })).status?.phase).toBe('Applied');
    expect((await submit({ addSkills: ['later'] })).status?.phase).toBe('Applied');
    const live = await getInstance();
    expect(live.spec.env).toEqual(expect.arrayContaining([{ name: 'MY_VAR', value: 'hello' }, { name: 'LOG_LEVEL', value: 'info' }]));
    expect(live.spec.workspace.initialFiles).toEqual({ 'AGENTS.md': '# agents', 'notes/today.md': 'remember' });
    expect(live.spec.skills).toEqual(expect.arrayContaining(['base', 'other', 'fetch', 'later']));
    const mine = JSON.stringify(live.metadata.managedFields?.find((m) => m.manager === 'openclaw-selfconfig')?.fieldsV1);
    expect(mine).toContain('k:{\\"name\\":\\"MY_VAR\\"}');
    expect(mine).toContain('f:notes/today.md');
    // Never items only others own: LOG_LEVEL and AGENTS.md stay occ-controller's alone.
    expect(mine).not.toContain('LOG_LEVEL');
    expect(mine).not.toContain('AGENTS.md');
  });

  it('SC7 removing an item both managers own keeps it and says who else owns it', async () => {
    expect((await submit({ addSkills: ['base'] })).status?.phase).toBe('Applied');
    const done = await submit({ removeSkills: ['base'] });
    expect(done.status?.phase).toBe('Applied');
    expect(done.status?.skippedRemovals).toEqual([{ kind: 'skill', name: 'base', managers: ['occ-controller (Apply)'] }]);
    expect(done.status?.message).toContain('also owned by occ-controller (Apply); kept');
    expect((await getInstance()).spec.skills).toContain('base');
  });

  it('SC6 removing an item this manager alone owns removes it', async () => {
    const done = await submit({ removeSkills: ['later'], removeEnvVars: ['MY_VAR'] });
    expect(done.status).toMatchObject({ phase: 'Applied', skippedRemovals: [] });
    const live = await getInstance();
    expect(live.spec.skills).not.toContain('later');
    expect(live.spec.env.map((e: { name: string }) => e.name)).not.toContain('MY_VAR');
  });

  it('SC4 a configPatch touching gateway fails naming it, while {"channels":{"gateway":1}} applies', async () => {
    const refused = await submit({ configPatch: { gateway: { auth: { mode: 'none' } } } });
    expect(refused.status?.phase).toBe('Failed');
    expect(refused.status?.message).toContain('"gateway"');
    const before = await getInstance();
    expect(before.spec.config.raw.gateway).toEqual({ auth: { mode: 'token' } });
    const ok = await submit({ configPatch: { channels: { gateway: 1 } } });
    expect(ok.status?.phase).toBe('Applied');
    expect((await getInstance()).spec.config.raw).toEqual({ gateway: { auth: { mode: 'token' } }, channels: { gateway: 1 } });
  });

  it('SC4 a protected env name, a secret-bound one, the harnessAuth one and the model-auth container\'s fail naming the name', async () => {
    // With the webhook away, so the controller decides: a credential-like name with a literal is
    // refused at admission (SG5, below), and an empty value is refused by a real 1.20 server (D13).
    await withoutWebhook(async () => {
      for (const name of ['OPENCLAW_GATEWAY_TOKEN', 'TELEGRAM_BOT_TOKEN', 'ANTHROPIC_API_KEY', 'PATH', 'MODEL_PROVIDER', 'MODEL_CREDENTIAL_FILE']) {
        const done = await submit({ addEnvVars: [{ name, value: 'x' }] });
        expect(done.status?.phase, name).toBe('Failed');
        expect(done.status?.message).toContain(JSON.stringify(name));
      }
    });
    expect((await getInstance()).spec.env.find((e: { name: string }) => e.name === 'TELEGRAM_BOT_TOKEN')).toEqual({ name: 'TELEGRAM_BOT_TOKEN', valueFrom: { secretKeyRef: { name: 'backend-telegram', key: 'value' } } });
  });

  it('SC3 selfConfigure disabled, and a category outside allowedActions, are Denied with a SelfConfigDenied event on the instance', async () => {
    const locked = agentInstanceName(lockedAgentId);
    await applyInstance(locked, 'occ-controller', { image: 'i', selfConfigure: { enabled: false, allowedActions: ALL } });
    const disabled = await submit({ addSkills: ['x'] }, locked);
    expect(disabled.status?.phase).toBe('Denied');
    await applyInstance(locked, 'occ-controller', { image: 'i', selfConfigure: { enabled: true, allowedActions: ['skills'] } });
    const disallowed = await submit({ addSkills: ['x'], addEnvVars: [{ name: 'A', value: '1' }] }, locked);
    expect(disallowed.status?.phase).toBe('Denied');
    expect(disallowed.status?.message).toContain('envVars');
    const denied = (await eventsFor('OpenClawInstance', locked)).filter((e) => e.reason === 'SelfConfigDenied');
    expect(denied.map((e) => e.type)).toEqual(['Warning', 'Warning']);
    expect((await getInstance(locked)).spec.skills).toBeUndefined();
  });

  it('SC3 SC5 a request for a missing instance is refused at admission, and one that got in while the webhook was away is Failed', async () => {
    const ghost = 'agent-00000000-0000-4000-8000-000000000000';
    await expect(submit({ addSkills: ['x'] }, ghost)).rejects.toMatchObject({ code: 403 });
    // The controller cannot count on the webhook (it may be down with failurePolicy Ignore, or
    // removed): with its registration away, the same request reaches the controller, which fails it.
    await withoutWebhook(async () => {
      const done = await submit({ addSkills: ['x'] }, ghost);
      expect(done.status?.phase).toBe('Failed');
      expect(done.status?.message).toContain('not found');
    });
  });

  it('SG5 SC2 a configPatch nested around the limit: refused at admission naming it; with the webhook away each one still gets a phase, Failed naming the limit, and a history row', async () => {
    const own = 'agent-00000000-0000-4000-8000-0000000000d1';
    await applyInstance(own, 'occ-controller', { image: 'i', selfConfigure: { enabled: true, allowedActions: ['skills'] } });
    const nested = (levels: number) => {
      let node: Record<string, unknown> = { a: 1 };
      for (let i = 1; i < levels; i++) node = { a: node };
      return node;
    };
    // 64 is the limit (C1's MAX_VALUES_DEPTH); 128 and more once wedged the request (a
    // recursive walk that overflowed the stack).
    const depths = [64, 65, 127, 128, 129, 500];
    for (const levels of depths) {
      if (levels <= 64) {
        expect((await submit({ configPatch: nested(levels) }, own)).status?.phase, String(levels)).toBe('Denied');
        continue;
      }
      const refused = submit({ configPatch: nested(levels) }, own);
      await expect(refused, String(levels)).rejects.toMatchObject({ code: 400 });
      expect(bodyText(await refused.catch((e: unknown) => e))).toContain('deeper than 64');
    }
    await withoutWebhook(async () => {
      const done: Obj[] = [];
      for (const levels of depths.filter((d) => d > 64)) {
        const request = await submit({ configPatch: nested(levels) }, own);
        expect(request.status?.phase, String(levels)).toBe('Failed');
        expect(request.status?.message).toContain('deeper than 64');
        done.push(request);
      }
      // History keeps a row for each, without the patch SC1 refused (C1's limit holds for history too).
      for (const request of done) {
        const row = await waitFor(() => stack.runtime.db.selfConfigRequest.findFirst({ where: { uid: request.metadata.uid, phase: 'Failed' }, select: { request: true } }), 'history row Failed');
        expect((row.request as { configPatch: unknown }).configPatch).toBeNull();
      }
    });
  });

  it('SG5 SC4 a credential-like env name with a literal is refused at admission and never stored; a plain name with a literal applies; with the webhook away a refused request keeps no literal', async () => {
    const name = `req-${++counter}`;
    const create = (spec: Record<string, unknown>) =>
      asInstance(instance).then((client) =>
        client.createNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawSelfConfig', metadata: { name }, spec: { instanceRef: instance, ...spec } } }),
      );
    for (const env of ['MY_API_KEY', 'SERVICE_TOKEN', 'dbPassword']) {
      const refused = await create({ addEnvVars: [{ name: env, value: 'sk-literal-canary' }] }).catch((e: unknown) => e as { code?: number; body?: unknown });
      expect((refused as { code?: number }).code, env).toBe(400);
      expect(bodyText(refused)).toContain(`env var \\"${env}\\" is named like a credential`);
      expect(bodyText(refused)).not.toContain('sk-literal-canary');
      await expect(custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs, name })).rejects.toMatchObject({ code: 404 });
    }
    expect((await submit({ addEnvVars: [{ name: 'MY_GREETING', value: 'hello' }] })).status?.phase).toBe('Applied');
    // With the webhook away the object is stored; the controller fails it and blanks every literal
    // it holds before the terminal phase, so none stays for the hour until SC9 deletes it.
    await withoutWebhook(async () => {
      const done = await submit({
        addEnvVars: [{ name: 'MY_API_KEY', value: 'sk-literal-canary' }, { name: 'PLAIN', value: 'plain-literal-canary' }],
        addWorkspaceFiles: { 'notes.md': 'file-literal-canary' },
        configPatch: { channels: { slack: { botToken: 'config-literal-canary' } } },
      });
      expect(done.status?.phase).toBe('Failed');
      expect(done.status?.message).toContain('configPatch.channels.slack.botToken holds a literal value under a credential-like key');
      expect(done.spec).toEqual({ instanceRef: instance, addEnvVars: [{ name: 'MY_API_KEY', value: REDACTED }, { name: 'PLAIN', value: REDACTED }], addWorkspaceFiles: { 'notes.md': REDACTED } });
      expect(JSON.stringify(done)).not.toMatch(/literal-canary/);
    });
  });

  it('SC6 the 21st skill fails naming the instance\'s limit, not a bare 422', async () => {
    const full = 'agent-00000000-0000-4000-8000-0000000000d2';
    await applyInstance(full, 'occ-controller', { image: 'i', skills: Array.from({ length: 19 }, (_, i) => `base-${i}`), selfConfigure: { enabled: true, allowedActions: ['skills'] } });
    expect((await submit({ addSkills: ['twentieth'] }, full)).status?.phase).toBe('Applied');
    const done = await submit({ addSkills: ['twenty-first'] }, full);
    expect(done.status?.phase).toBe('Failed');
    expect(done.status?.message).toMatch(/spec\.skills: (must|should) have at most 20 items/);
  });

  it('SC6 an identical request changes nothing: the instance keeps its resourceVersion', async () => {
    expect((await submit({ addSkills: ['same'] })).status?.phase).toBe('Applied');
    const before = await getInstance();
    expect((await submit({ addSkills: ['same'] })).status?.phase).toBe('Applied');
    expect((await getInstance()).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('SC6 a resourceVersion conflict re-plans and applies; conflicts that never end fail the request after a bounded number of tries (emulator faults)', async () => {
    const path = `/apis/${GROUP}/${VERSION}/namespaces/${k8sNs}/openclawinstances/${instance}`;
    const twice = stack.runtime.emulator!.faults.add({ verb: 'patch', path, times: 2, action: { type: 'error', status: 409, message: 'the object has been modified' } });
    expect((await submit({ addSkills: ['after-conflicts'] })).status?.phase).toBe('Applied');
    expect(twice.hits).toBe(2);
    const always = stack.runtime.emulator!.faults.add({ verb: 'patch', path, action: { type: 'error', status: 409, message: 'the object has been modified' } });
    const done = await submit({ addSkills: ['never'] });
    stack.runtime.emulator!.faults.remove(always.id);
    expect(done.status?.phase).toBe('Failed');
    expect(done.status?.message).toContain('kept changing');
    expect(always.hits).toBe(6);
  });

  it('SC2 a failing Pending write is requeued with growing backoff and the request still ends Applied (emulator faults)', async () => {
    const name = `req-${++counter}`;
    // The controller reads the request from its watch, never with a GET: its first request about
    // it is the Pending write, on the status subresource.
    const path = `/apis/${GROUP}/${VERSION}/namespaces/${k8sNs}/openclawselfconfigs/${name}/status`;
    const failing = stack.runtime.emulator!.faults.add({ verb: 'patch', path, times: 2, action: { type: 'error', status: 500, message: 'injected' } });
    const requeuedBefore = stack.logs.filter((l) => l.includes('selfconfig reconcile failed; requeued')).length;
    await (await asInstance(instance)).createNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawSelfConfig', metadata: { name }, spec: { instanceRef: instance, addSkills: ['backoff'] } } });
    const done = await waitFor(async () => {
      const list = (await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs })) as { items: Obj[] };
      const obj = list.items.find((o) => o.metadata.name === name);
      return obj?.status?.phase === 'Applied' ? obj : null;
    }, `${name} applied after retries`, 60_000);
    expect(failing.hits).toBe(2);
    const requeued = stack.logs.filter((l) => l.includes('selfconfig reconcile failed; requeued')).slice(requeuedBefore).map((l) => JSON.parse(l) as { attempt: number; delayMs: number });
    expect(requeued.map((l) => l.attempt)).toEqual([1, 2]);
    expect(requeued[1]!.delayMs).toBeGreaterThan(requeued[0]!.delayMs);
    expect(done.status?.phase).toBe('Applied');
  }, 90_000);

  it('SC9 a terminal request is deleted once its TTL has passed, and its history stays in PostgreSQL', async () => {
    const done = await submit({ addSkills: ['ttl'] });
    now = new Date(now.getTime() + 599_000);
    await stack.runtime.selfConfig.resync();
    // Not idle(): requests not yet due requeue themselves for the rest of their TTL, so the queue
    // refills while the fake clock stands still. A second's real time lets the resync act.
    await new Promise((r) => setTimeout(r, 1_000));
    await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs, name: done.metadata.name });
    now = new Date(now.getTime() + 2_000);
    await stack.runtime.selfConfig.resync();
    await waitFor(async () => {
      try {
        await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs, name: done.metadata.name });
        return false;
      } catch {
        return true;
      }
    }, 'the request deleted', 90_000);
    const row = await waitFor(() => stack.runtime.db.selfConfigRequest.findFirst({ where: { uid: done.metadata.uid, deletedAt: { not: null } } }), 'history marked deleted');
    expect(row).toMatchObject({ phase: 'Applied', message: 'applied', agentId, instanceRef: instance, name: done.metadata.name });
    expect(row.completedAt).not.toBeNull();
    expect(row.pendingAt).not.toBeNull();
    expect(row.request).toMatchObject({ addSkills: ['ttl'] });
    expect((row.events as Array<{ reason: string }>).map((e) => e.reason)).toEqual(['SelfConfigApplied', 'Applied']);
  }, 180_000);
});

const REQUEST = `mutation($input: RequestSelfConfigInput!) { requestSelfConfig(input: $input) {
  __typename
  ... on RequestSelfConfigSuccess { request { id name instanceRef agentId phase requestedBy { id } } }
  ... on Error { code message } ... on ValidationError { field } } }`;

const HISTORY = `query($agentId: ID, $namespaceId: ID, $phase: String, $first: Int, $after: String) {
  selfConfigRequests(agentId: $agentId, namespaceId: $namespaceId, phase: $phase, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { node { id name phase message agentId requestedBy { id } request skippedRemovals { kind name why managers { manager operation } } events { type reason on } pendingAt completedAt deletedAt } } } }`;

async function keyFor(principalId: string): Promise<string> {
  const created = payload(await stack.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { __typename ... on CreateApiKeySuccess { apiKey } ... on Error { code message } } }`, { i: { principalId } }), 'createApiKey');
  expect(created.__typename, JSON.stringify(created)).toBe('CreateApiKeySuccess');
  return created.apiKey;
}

async function servicePrincipalOf(id: string): Promise<string> {
  return (await stack.runtime.db.agent.findUniqueOrThrow({ where: { id } })).servicePrincipalId;
}

describe('SelfConfig over GraphQL', { timeout: 180_000 }, () => {
  it("SC5 the Agent's own service principal requests a change of its own instance; the controller applies it and history names the requester", async () => {
    const sp = await servicePrincipalOf(agentId);
    const key = await keyFor(sp);
    const r = payload(await stack.gql(REQUEST, { input: { agentId, addSkills: ['via-graphql'], addEnvVars: [{ name: 'GQL_VAR', value: 'literal-env-canary' }], addWorkspaceFiles: [{ path: 'gql.md', content: 'hi' }] } }, { key }), 'requestSelfConfig');
    expect(r.__typename, JSON.stringify(r)).toBe('RequestSelfConfigSuccess');
    expect(r.request).toMatchObject({ instanceRef: instance, agentId, requestedBy: { id: sp } });
    const node = await waitFor(async () => {
      const page = payload(await stack.gql(HISTORY, { agentId, phase: 'Applied', first: 100 }, { key }), 'selfConfigRequests');
      return page.edges.map((e: { node: { id: string } }) => e.node).find((n: { id: string }) => n.id === r.request.id);
    }, 'the request applied in history');
    expect(node).toMatchObject({ phase: 'Applied', requestedBy: { id: sp }, request: { addSkills: ['via-graphql'], addEnvVars: ['GQL_VAR'], addWorkspaceFiles: ['gql.md'] } });
    expect(node.events.map((e: { reason: string }) => e.reason)).toEqual(['SelfConfigApplied', 'Applied']);
    const live = await getInstance();
    expect(live.spec.skills).toContain('via-graphql');
    expect(live.spec.env).toContainEqual({ name: 'GQL_VAR', value: 'literal-env-canary' });
  });

  it("SC5 another agent's instance is refused over GraphQL: NOT_FOUND for an agent the caller cannot read, FORBIDDEN for one it can read but is not", async () => {
    const lockedKey = await keyFor(await servicePrincipalOf(lockedAgentId));
    const before = await stack.runtime.db.selfConfigRequest.count();
    const other = payload(await stack.gql(REQUEST, { input: { agentId, addSkills: ['intrusion'] } }, { key: lockedKey }), 'requestSelfConfig');
    expect(other).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    // The bootstrap administrator may read the agent, and is still not its service principal.
    const admin = payload(await stack.gql(REQUEST, { input: { agentId, addSkills: ['intrusion'] } }), 'requestSelfConfig');
    expect(admin).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(admin.message).toContain('SC5');
    expect(await stack.runtime.db.selfConfigRequest.count()).toBe(before);
    expect((await getInstance()).spec.skills).not.toContain('intrusion');
  });

  it('SC1 a request GraphQL refuses names the field and creates nothing', async () => {
    const key = await keyFor(await servicePrincipalOf(agentId));
    const before = await stack.runtime.db.selfConfigRequest.count();
    const bad = payload(await stack.gql(REQUEST, { input: { agentId, addSkills: ['bad skill'] } }, { key }), 'requestSelfConfig');
    expect(bad).toMatchObject({ __typename: 'ValidationError', field: 'addSkills[0]' });
    const traversal = payload(await stack.gql(REQUEST, { input: { agentId, addWorkspaceFiles: [{ path: '../x', content: '' }] } }, { key }), 'requestSelfConfig');
    expect(traversal).toMatchObject({ __typename: 'ValidationError', field: 'addWorkspaceFiles[0].path' });
    const nothing = payload(await stack.gql(REQUEST, { input: { agentId } }, { key }), 'requestSelfConfig');
    expect(nothing).toMatchObject({ __typename: 'ValidationError', code: 'NO_ACTION' });
    expect(await stack.runtime.db.selfConfigRequest.count()).toBe(before);
  });

  it('SC9 selfConfigRequests filters by agent, namespace and phase, newest first, paged by cursor in SQL', async () => {
    const all = payload(await stack.gql(HISTORY, { agentId, first: 100 }), 'selfConfigRequests');
    expect(all.totalCount).toBeGreaterThan(5);
    const failed = payload(await stack.gql(HISTORY, { agentId, phase: 'Failed', first: 100 }), 'selfConfigRequests');
    expect(failed.edges.length).toBeGreaterThan(0);
    expect(failed.edges.every((e: { node: { phase: string } }) => e.node.phase === 'Failed')).toBe(true);
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page = payload(await stack.gql(HISTORY, { agentId, first: 3, after }), 'selfConfigRequests');
      seen.push(...page.edges.map((e: { node: { id: string } }) => e.node.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(all.edges.map((e: { node: { id: string } }) => e.node.id));
    const nsId = (await stack.runtime.db.agent.findUniqueOrThrow({ where: { id: agentId } })).namespaceId;
    const byNs = payload(await stack.gql(HISTORY, { namespaceId: nsId, first: 100 }), 'selfConfigRequests');
    expect(byNs.totalCount).toBeGreaterThanOrEqual(all.totalCount);
    // An agent's principal reads its own history and nobody else's.
    const lockedKey = await keyFor(await servicePrincipalOf(lockedAgentId));
    const theirs = payload(await stack.gql(HISTORY, { agentId, first: 100 }, { key: lockedKey }), 'selfConfigRequests');
    expect(theirs.totalCount).toBe(0);
    const own = payload(await stack.gql(HISTORY, { agentId: lockedAgentId, first: 100 }, { key: lockedKey }), 'selfConfigRequests');
    expect(own.totalCount).toBeGreaterThan(0);
  });

  it("SC7 K2 an instance's field ownership lists each skill, env var, workspace file and config key with its managers and operation", async () => {
    const res = payload(await stack.gql(`query($id: ID!) { agent(id: $id) { fieldOwnership { instanceName items { kind name owners { manager operation } } } } }`, { id: agentId }), 'agent');
    const items = res.fieldOwnership.items as Array<{ kind: string; name: string; owners: Array<{ manager: string; operation: string }> }>;
    expect(res.fieldOwnership.instanceName).toBe(instance);
    const of = (kind: string, name: string) => items.find((i) => i.kind === kind && i.name === name)?.owners;
    expect(of('skill', 'other')).toEqual([{ manager: 'other-tool', operation: 'Apply' }]);
    expect(of('skill', 'base')).toEqual([{ manager: 'occ-controller', operation: 'Apply' }]);
    expect(of('skill', 'via-graphql')).toEqual([{ manager: 'openclaw-selfconfig', operation: 'Apply' }]);
    expect(of('envVar', 'LOG_LEVEL')).toEqual([{ manager: 'occ-controller', operation: 'Apply' }]);
    expect(of('workspaceFile', 'gql.md')).toEqual([{ manager: 'openclaw-selfconfig', operation: 'Apply' }]);
    // K2: the config document is granular: each manager owns the keys it set (on 1.20, at the
    // first level only: REAL-SERVER-DIFFERENCES.md D10, so the agent's key under `channels` took it whole).
    const deep = KUBE_TARGET.target !== 'real';
    expect(of('config', deep ? 'gateway.auth.mode' : 'gateway')).toEqual([{ manager: 'occ-controller', operation: 'Apply' }]);
    expect(of('config', deep ? 'channels.gateway' : 'channels')).toEqual([{ manager: 'openclaw-selfconfig', operation: 'Apply' }]);
  });

  it('SC9 history keeps no secret value and no literal an agent sent (canary search over every table)', async () => {
    const rows = await dumpDatabase(stack.databaseUrl);
    for (const canary of ['canary-telegram-value', 'canary-model-value', 'literal-env-canary']) expect(findCanary(rows, canary), canary).toEqual([]);
  });
});

/** Calls made since `before`, by verb, list and watch aside (the caches open them once, not per request). */
function callsSince(now: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [verb, n] of Object.entries(now)) if (verb !== 'list' && verb !== 'watch' && n > (before[verb] ?? 0)) out[verb] = n - (before[verb] ?? 0);
  return out;
}

// Reads from watch caches: the controller starts from its caches (the requests it lists and watches, the
// installation's instances), never from a GET; the first write made from each cached copy carries
// its resourceVersion (SC2 the Pending write, SC6 the apply), so a stale copy conflicts and only
// then is read. Here a controller of the test's own runs in place of the runtime's, on a client
// that can hold back the request watch's events and change an instance just before the apply.
describe("SelfConfig from the controller's caches", { timeout: 180_000 }, () => {
  let cluster: SelfConfigCluster;
  let controller: SelfConfigController;
  /** Runs once, just before the controller's next apply (after it has planned). */
  let beforeApply: (() => Promise<void>) | null = null;
  let conflicts = 0;
  /** Requests whose watch events are held back (as a lagging watch would), by name. */
  const held = new Map<string, WatchEvent[]>();
  let deliver: ((event: WatchEvent) => void) | null = null;
  const labelled = () => installationLabels(stack.runtime.installation.installationId);

  /** Waits until the controller's instance cache holds the stored version of the instance. */
  async function cached(name: string): Promise<void> {
    await waitFor(async () => cluster.cachedInstance(k8sNs, name)?.metadata.resourceVersion === (await getInstance(name)).metadata.resourceVersion, `${name} cached at its stored version`);
  }

  async function newInstance(name: string): Promise<void> {
    await applyInstance(name, 'occ-controller', { image: 'ghcr.io/openclaw/openclaw:1', skills: ['base'], selfConfigure: { enabled: true, allowedActions: ALL } }, labelled());
    await asInstance(name);
    await cached(name);
  }

  beforeAll(async () => {
    // Nothing else writes these instances while requests are counted: the runtime's SelfConfig
    // controller gives way to this one, and its instance reconciler (which would render the
    // labelled instances and write their status) stops.
    await stack.runtime.selfConfig.stop();
    await stack.runtime.instances.stop();
    const base = kubernetesSelfConfigCluster(stack.kubeConfig);
    cluster = {
      ...base,
      async watchRequests(resourceVersion, onEvent, done) {
        deliver = onEvent;
        return base.watchRequests(
          resourceVersion,
          (event) => {
            const queue = held.get(event.object?.metadata?.name ?? '');
            if (queue) queue.push(event);
            else onEvent(event);
          },
          done,
        );
      },
      async applyInstance(body, options) {
        const hook = beforeApply;
        beforeApply = null;
        if (hook) await hook();
        try {
          return await base.applyInstance(body, options);
        } catch (error) {
          if ((error as { code?: number }).code === 409) conflicts++;
          throw error;
        }
      },
    };
    controller = createSelfConfigController({
      cluster,
      db: stack.runtime.db,
      logger: createLogger((line) => stack.logs.push(line), 'debug', { component: 'selfconfig-under-test' }),
      installationId: stack.runtime.installation.installationId,
      // No request of the earlier tests expires while calls are counted.
      ttlMs: 30 * 24 * 3600 * 1000,
      resyncMs: 3_600_000,
      backoff: { baseMs: 100, maxMs: 1_000 },
    });
    controller.start();
    await newInstance('cached-a');
    await controller.idle();
  }, 120_000);

  afterAll(async () => {
    await controller?.stop();
  });

  it('SC2 SC6 SC8 SG2 with the instance cached, a request costs the controller 7 Kubernetes requests (Pending, the dry-run apply, the apply, the owner reference, two events, the terminal status) and no GET', async () => {
    for (const i of [1, 2, 3]) {
      await cached('cached-a');
      await controller.idle();
      const before = { ...cluster.calls };
      const done = await submit({ addSkills: [`counted-${i}`] }, 'cached-a');
      expect(done.status).toMatchObject({ phase: 'Applied', message: 'applied' });
      await controller.idle();
      const used = callsSince(cluster.calls, before);
      expect(used, `request ${i}`).toEqual({ patch: 3, dryRunApply: 1, apply: 1, create: 2 });
      expect(Object.values(used).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(7);
      await waitFor(async () => (phases.get(done.metadata.name)?.length ?? 0) >= 2, 'both phases seen');
      expect(phases.get(done.metadata.name)).toEqual(['Pending', 'Applied']);
      expect(done.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'OpenClawInstance', name: 'cached-a' })]);
      expect((await eventsFor('OpenClawSelfConfig', done.metadata.name)).map((e) => [e.type, e.reason])).toEqual([['Normal', 'Applied']]);
    }
    expect((await getInstance('cached-a')).spec.skills).toEqual(expect.arrayContaining(['base', 'counted-1', 'counted-2', 'counted-3']));
  });

  it('SC6 an instance changed out of band after the controller cached it: the apply conflicts, the instance is read again, and an item only another manager owns now is not sent again', async () => {
    await newInstance('cached-b');
    expect((await submit({ addSkills: ['taken'] }, 'cached-b')).status?.phase).toBe('Applied');
    await cached('cached-b');
    await controller.idle();
    const before = { ...cluster.calls };
    conflicts = 0;
    beforeApply = async () => {
      // After the plan was made from the cached copy (which says openclaw-selfconfig owns
      // "taken"): an update removes "taken" (so nobody owns it), then another manager applies it,
      // and owns it alone.
      const live = await getInstance('cached-b');
      await custom.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, plural: 'openclawinstances', namespace: k8sNs, name: 'cached-b', body: { spec: { skills: (live.spec.skills as string[]).filter((s) => s !== 'taken') } }, fieldManager: 'kubectl-edit' },
        mergePatch,
      );
      await applyInstance('cached-b', 'out-of-band', { skills: ['taken'] });
    };
    const done = await submit({ addSkills: ['after'] }, 'cached-b');
    expect(done.status?.phase).toBe('Applied');
    expect(beforeApply).toBeNull();
    await controller.idle();
    // One conflict (on SG2's dry run, which carries the same precondition), one GET of the
    // instance, the dry run again and the apply; the request itself never read.
    expect(conflicts).toBe(1);
    expect(callsSince(cluster.calls, before)).toEqual({ patch: 3, dryRunApply: 2, apply: 1, get: 1, create: 2 });
    const live = await getInstance('cached-b');
    expect(live.spec.skills).toEqual(expect.arrayContaining(['base', 'taken', 'after']));
    const owners = (item: string) => (live.metadata.managedFields ?? []).filter((m) => JSON.stringify(m.fieldsV1).includes(`v:\\"${item}\\"`)).map((m) => m.manager);
    // SC6: never re-send items owned only by other managers (a plan from the stale copy would have).
    expect(owners('taken')).toEqual(['out-of-band']);
    expect(owners('after')).toEqual(['openclaw-selfconfig']);
  });

  it('SC2 a cached request older than the stored one is not decided again: the Pending write conflicts, the request is read, and it is terminal already', async () => {
    await cached('cached-a');
    await controller.idle();
    const name = `req-${++counter}`;
    held.set(name, []);
    try {
      await (await asInstance('cached-a')).createNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'OpenClawSelfConfig', metadata: { name }, spec: { instanceRef: 'cached-a', addSkills: ['decided-elsewhere'] } } });
      await waitFor(async () => held.get(name)!.length >= 1, 'the creation held back');
      // Decided by someone else (a previous leader) while this controller's watch lags behind.
      const completionTime = new Date().toISOString();
      await custom.patchNamespacedCustomObjectStatus(
        { group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs, name, body: { status: { phase: 'Denied', message: 'decided elsewhere', completionTime } } },
        mergePatch,
      );
      await waitFor(async () => held.get(name)!.length >= 2, 'the status change held back');
      const instanceBefore = await getInstance('cached-a');
      const before = { ...cluster.calls };
      // Only the creation reaches the controller: its cached copy has no status.
      deliver!(held.get(name)!.shift()!);
      await controller.idle();
      expect(callsSince(cluster.calls, before)).toEqual({ patch: 1, get: 1 });
      const live = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawselfconfigs', namespace: k8sNs, name })) as Obj;
      expect(live.status).toEqual({ phase: 'Denied', message: 'decided elsewhere', completionTime });
      expect(phases.get(name)).toEqual(['Denied']);
      expect((await getInstance('cached-a')).metadata.resourceVersion).toBe(instanceBefore.metadata.resourceVersion);
      expect(await eventsFor('OpenClawSelfConfig', name)).toEqual([]);
    } finally {
      const rest = held.get(name) ?? [];
      held.delete(name);
      for (const event of rest) deliver?.(event);
    }
  });

  it('SC3 SC6 an instance deleted after the controller cached it is not made again by the apply: the request ends Failed and the instance stays gone', async () => {
    await newInstance('cached-gone');
    await controller.idle();
    beforeApply = async () => {
      await custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'openclawinstances', namespace: k8sNs, name: 'cached-gone' });
    };
    const done = await submit({ addSkills: ['orphan'] }, 'cached-gone');
    expect(beforeApply).toBeNull();
    expect(done.status?.phase).toBe('Failed');
    expect(done.status?.message).toContain('not found');
    await controller.idle();
    await expect(getInstance('cached-gone')).rejects.toMatchObject({ code: 404 });
  });
});
