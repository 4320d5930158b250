import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCanary } from '../test/canary.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { DEFAULT_MODEL, FirstAgentRefusal, NAMES, keyReader, resolveModel, runFirstAgent, type FirstAgentOptions } from './run.ts';

// Q1: `npm run first-agent` against the installation `npm start` runs, checked through that
// installation's own state marker; its refusals, its repeat behaviour and its model rules. The
// model key on first runs and repeats, key source by key source, is model-key.test.ts.

let stack: TestStack;
let dir: string;
const modelKey = `sk-first-${randomUUID()}`;
const lines: string[] = [];

function marker(overrides: Record<string, unknown> = {}) {
  return {
    version: 1,
    installationId: stack.runtime.installation.installationId,
    bootstrapPrincipalId: stack.runtime.installation.bootstrapPrincipalId,
    graphqlUrl: `${stack.baseUrl}/graphql`,
    consoleUrl: `${stack.baseUrl}/`,
    embedded: { postgres: true, kubernetes: true },
    profile: { compute: 'kubernetes', sandbox: 'none' },
    ...overrides,
  };
}

async function markerDir(content: unknown | null): Promise<string> {
  const d = await mkdtemp(path.join(dir, 'data-'));
  if (content !== null) await writeFile(path.join(d, 'state.json'), typeof content === 'string' ? content : JSON.stringify(content));
  return d;
}

/** A stdin that is not a terminal (a script, CI): nothing can be asked. */
const noTerminal = () => ({ input: Object.assign(new PassThrough(), { isTTY: false }), output: new PassThrough() });

/**
 * Options as the CLI builds them from its environment, without a terminal; `requests` counts what
 * reached the server.
 */
function options(dataDir: string, modelOverride: string | null = null, env: Record<string, string> = { OCC_BOOTSTRAP_KEY: stack.bootstrapKey, OPENAI_API_KEY: modelKey }) {
  const requests: string[] = [];
  const o: FirstAgentOptions = {
    dataDir,
    modelOverride,
    readKey: keyReader((name) => env[name] ?? null, noTerminal()),
    out: (line) => lines.push(line),
    deployTimeoutMs: 60_000,
    fetch: async (input, init) => {
      requests.push(String(input));
      return fetch(input, init);
    },
  };
  return { o, requests };
}

async function refusal(promise: Promise<unknown>): Promise<FirstAgentRefusal> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FirstAgentRefusal);
  return error as FirstAgentRefusal;
}

const namespaces = () => stack.runtime.db.namespace.count({ where: { name: NAMES.namespace } });

beforeAll(async () => {
  stack = await startTestStack({ env: { gatewayReadySeconds: 20 } });
  dir = await mkdtemp(path.join(tmpdir(), 'occ-first-agent-'));
}, 90_000);
afterAll(async () => {
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('Q1 refusals: another installation, a profile it cannot serve', () => {
  it('Q1 refuses where `npm start` left no state marker, before any request', async () => {
    const { o, requests } = options(await markerDir(null));
    const e = await refusal(runFirstAgent(o));
    expect(e.code).toBe('NO_INSTALLATION');
    expect(e.message).toMatch(/No installation started by `npm start`/);
    expect(requests).toEqual([]);
  });

  it('Q1 refuses a marker of another version of the product, or one that is not JSON', async () => {
    for (const content of ['{not json', { ...marker(), version: 0 }, { ...marker(), bootstrapPrincipalId: undefined }]) {
      const { o, requests } = options(await markerDir(content));
      expect((await refusal(runFirstAgent(o))).code).toBe('NO_INSTALLATION');
      expect(requests).toEqual([]);
    }
  });

  it('Q1 refuses a profile it cannot serve (OpenShell sandbox, other compute) with an explicit error, before any request', async () => {
    for (const profile of [{ compute: 'kubernetes', sandbox: 'openshell' }, { compute: 'docker', sandbox: 'none' }]) {
      const { o, requests } = options(await markerDir(marker({ profile })));
      const e = await refusal(runFirstAgent(o));
      expect(e.code).toBe('UNSUPPORTED_PROFILE');
      expect(e.message).toContain(`compute "${profile.compute}" with sandbox "${profile.sandbox}"`);
      expect(requests).toEqual([]);
    }
  });

  it("Q1 refuses a server that is not the marker's installation (its bootstrap principal differs), changing nothing", async () => {
    const { o } = options(await markerDir(marker({ bootstrapPrincipalId: `spn_${randomUUID()}` })));
    const e = await refusal(runFirstAgent(o));
    expect(e.code).toBe('OTHER_INSTALLATION');
    expect(await namespaces()).toBe(0);
  });

  it('Q1 with no bootstrap key and no terminal, names OCC_BOOTSTRAP_KEY and the hidden prompt a terminal gives, before any request (not "The API key was refused")', async () => {
    const { o, requests } = options(await markerDir(marker()), null, { OPENAI_API_KEY: modelKey });
    const e = await refusal(runFirstAgent(o));
    expect(e.code).toBe('NO_BOOTSTRAP_KEY');
    expect(e.message).toContain('OCC_BOOTSTRAP_KEY is not set, and there is no terminal to ask for it on (stdin is not a TTY)');
    expect(e.message).toContain('run this in a terminal, which asks for it without echoing it');
    expect(e.message).not.toMatch(/refused/i);
    expect(requests).toEqual([]);
  });

  it('Q1 a key that is not an API key of this installation is refused as such (NOT_BOOTSTRAP_KEY), changing nothing', async () => {
    const { o } = options(await markerDir(marker()), null, { OCC_BOOTSTRAP_KEY: `occ_${randomUUID()}`, OPENAI_API_KEY: modelKey });
    const e = await refusal(runFirstAgent(o));
    expect(e.code).toBe('NOT_BOOTSTRAP_KEY');
    expect(e.message).toContain('The API key was refused');
    expect(await namespaces()).toBe(0);
  });

  it('Q1 says plainly when the recorded installation does not answer', async () => {
    const { o } = options(await markerDir(marker({ graphqlUrl: 'http://127.0.0.1:1/graphql' })));
    const e = await refusal(runFirstAgent(o));
    expect(e.code).toBe('NOT_RUNNING');
  });

  it('Q1 refuses an override that is not a plain model id of a provider harnessAuth serves', async () => {
    for (const bad of ['gpt-6', 'https://evil.example/model', 'openai/', 'acme/model-1']) {
      const { o } = options(await markerDir(marker()), bad);
      expect((await refusal(runFirstAgent(o))).code, bad).toBe('INVALID_MODEL');
    }
    expect(await namespaces()).toBe(0);
  });
});

describe('Q1 model rules', () => {
  it('Q1 the default model without an override; the override on a first run; a repeat keeps the recorded model and refuses a conflicting override', () => {
    expect(resolveModel(null, null)).toBe(DEFAULT_MODEL);
    expect(resolveModel('anthropic/claude-9', null)).toBe('anthropic/claude-9');
    expect(resolveModel(null, 'anthropic/claude-9')).toBe('anthropic/claude-9');
    expect(resolveModel('anthropic/claude-9', 'anthropic/claude-9')).toBe('anthropic/claude-9');
    expect(() => resolveModel('openai/gpt-6-astra', 'anthropic/claude-9')).toThrow(/conflicts/);
  });
});

describe('Q1 against the running installation', () => {
  let first: Awaited<ReturnType<typeof runFirstAgent>>;

  it('Q1 creates the secret, configuration and agent, grants the agent operate on exactly that secret (audited), deploys to active, and says why no model answer was checked', async () => {
    const { o } = options(await markerDir(marker()), 'openai/gpt-6-mini');
    first = await runFirstAgent(o);
    expect(first.created).toEqual({ namespace: true, secret: true, configuration: true, agent: true, grant: true });
    expect(first.modelKey).toEqual({ stored: 'created', from: 'environment', version: 1 });
    expect(first.model).toBe('openai/gpt-6-mini');
    const cfg = await stack.runtime.db.configuration.findUniqueOrThrow({ where: { id: first.configurationId } });
    expect(cfg.values).toEqual({ agents: { defaults: { model: { primary: 'openai/gpt-6-mini' } } } });
    const agent = await stack.runtime.db.agent.findUniqueOrThrow({ where: { id: first.agentId } });
    expect(agent).toMatchObject({ name: NAMES.agent, harnessProvider: 'openai', harnessSecretId: first.secretId, configurationId: first.configurationId, activeRevisionId: first.revisionId });
    expect((await stack.runtime.db.agentRevision.findUniqueOrThrow({ where: { id: first.revisionId } })).state).toBe('ACTIVE');
    const grants = await stack.runtime.db.accessBinding.findMany({ where: { subjectId: first.servicePrincipalId } });
    expect(grants.map((g) => ({ role: g.roleId, scope: g.scopeKind, kind: g.resourceKind, id: g.resourceId }))).toEqual([
      { role: 'rol_secret-operator', scope: 'RESOURCE', kind: 'secret', id: first.secretId },
    ]);
    expect(await stack.runtime.db.auditEvent.count({ where: { action: { startsWith: 'accessBinding' }, details: { path: ['subjectId'], equals: first.servicePrincipalId } } })).toBeGreaterThan(0);
    expect(first.modelCheck).toEqual({ checked: false, reason: expect.stringContaining('embedded Kubernetes API server') });
    expect(lines).toContain(first.modelCheck.reason);
    expect(findCanary([...lines, ...stack.logs], modelKey)).toEqual([]);
  }, 120_000);

  it('Q1 a repeat without a model key reuses everything, says so, keeps the recorded model and the stored key, and deploys again', async () => {
    lines.length = 0;
    const { o } = options(await markerDir(marker()), null, { OCC_BOOTSTRAP_KEY: stack.bootstrapKey });
    const again = await runFirstAgent(o);
    expect(again.created).toEqual({ namespace: false, secret: false, configuration: false, agent: false, grant: false });
    expect(again.modelKey).toEqual({ stored: 'kept', from: null, version: 1 });
    expect({ ...again, revisionId: '', created: null, modelKey: null, modelCheck: null }).toEqual({ ...first, revisionId: '', created: null, modelKey: null, modelCheck: null });
    expect(again.revisionId).not.toBe(first.revisionId);
    expect(again.model).toBe('openai/gpt-6-mini');
    expect(lines.slice(0, 7)).toEqual([
      'Model openai/gpt-6-mini: recorded in configuration first-agent, kept.',
      `Reusing namespace first-agent (${first.namespaceId}).`,
      `Reusing secret first-agent-model-key (${first.secretId}): keeping its stored model key, version 1 (OPENAI_API_KEY is not set and there is no terminal to ask on; to replace it, set OPENAI_API_KEY or type one at the prompt in a terminal).`,
      `Reusing configuration first-agent (${first.configurationId}).`,
      `Reusing agent first-agent (${first.agentId}), principal ${first.servicePrincipalId}.`,
      "The agent's principal already holds operate on exactly secret first-agent-model-key.",
      expect.stringMatching(/^Deploying revision 2 of agent first-agent \(model openai\/gpt-6-mini, model key version 1\)/),
    ]);
    first = again;
  }, 120_000);

  it('Q1 a repeat refuses a conflicting OPENCLAW_FIRST_AGENT_MODEL before deploying, and accepts the recorded one', async () => {
    const revisions = await stack.runtime.db.agentRevision.count({ where: { agentId: first.agentId } });
    const { o } = options(await markerDir(marker()), 'openai/gpt-6-astra');
    const e = await refusal(runFirstAgent(o));
    expect(e.code).toBe('MODEL_CONFLICT');
    expect(e.message).toContain('openai/gpt-6-mini');
    expect(await stack.runtime.db.agentRevision.count({ where: { agentId: first.agentId } })).toBe(revisions);
    const same = await runFirstAgent(options(await markerDir(marker()), 'openai/gpt-6-mini').o);
    expect(same.model).toBe('openai/gpt-6-mini');
  }, 120_000);
});
