import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase, dumpKubernetes, findCanary } from '../test/canary.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { FirstAgentRefusal, keyReader, runFirstAgent, type FirstAgentResult } from './run.ts';

// Q1: the model key of `npm run first-agent`, on a first run and on a repeat, for each way a key
// comes (its variable, the hidden prompt) or does not (Enter at the prompt, no terminal at all):
// what it says, the Secret version it stores, the revision that delivers it. A canary key per run
// must reach nothing but the Kubernetes Secrets that hold it. Expected texts are written out here,
// not taken from run.ts.

type Source = 'environment' | 'prompt' | 'none, with a terminal' | 'none, without a terminal';
const SOURCES: Source[] = ['environment', 'prompt', 'none, with a terminal', 'none, without a terminal'];

/** A terminal whose user types one answer (raw keystrokes) per question; everything written to it is kept. */
function fakeTerminal(tty: boolean, answers: string[]) {
  const input = Object.assign(new PassThrough(), { isTTY: tty });
  const written: string[] = [];
  const questions: string[] = [];
  const output = new Writable({
    write(chunk, _encoding, done) {
      const text = String(chunk);
      written.push(text);
      if (text.trim()) {
        questions.push(text);
        input.write(answers.shift() ?? '\r');
      }
      done();
    },
  });
  return { terminal: { input, output }, written, questions };
}

describe('Q1 the key reader the CLI uses: variable, hidden prompt, or no terminal', () => {
  const canary = `sk-reader-${randomUUID()}`;

  it('Q1 a set variable is used without asking, even on a terminal', async () => {
    const t = fakeTerminal(true, []);
    expect(await keyReader(() => canary, t.terminal)({ envName: 'OPENAI_API_KEY', question: 'q: ' })).toEqual({ given: true, from: 'environment', value: canary });
    expect(t.written).toEqual([]);
  });

  it('Q1 without the variable and without a terminal nothing is asked, and the answer says no one was asked', async () => {
    const t = fakeTerminal(false, [`${canary}\r`]);
    expect(await keyReader(() => null, t.terminal)({ envName: 'OPENAI_API_KEY', question: 'q: ' })).toEqual({ given: false, asked: false });
    expect(t.written).toEqual([]);
  });

  it('Q1 on a terminal the typed key is taken and never written back (no echo); Enter or end of input gives none', async () => {
    const typed = fakeTerminal(true, [`  ${canary} \r`]);
    expect(await keyReader(() => null, typed.terminal)({ envName: 'OPENAI_API_KEY', question: 'OPENAI_API_KEY: ' })).toEqual({ given: true, from: 'prompt', value: canary });
    expect(typed.written.join('')).toBe('OPENAI_API_KEY: \n');
    for (const keys of ['\r', '   \r', '\x04']) {
      const t = fakeTerminal(true, [keys]);
      expect(await keyReader(() => null, t.terminal)({ envName: 'OPENAI_API_KEY', question: 'q: ' }), JSON.stringify(keys)).toEqual({ given: false, asked: true });
    }
  });

  it('Q1 Ctrl-C at the prompt stops the run (INTERRUPTED), rather than going on without a key', async () => {
    const t = fakeTerminal(true, ['sk-part\x03']);
    const error = await keyReader(() => null, t.terminal)({ envName: 'OPENAI_API_KEY', question: 'q: ' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FirstAgentRefusal);
    expect((error as FirstAgentRefusal).code).toBe('INTERRUPTED');
    expect(t.written.join('')).not.toContain('sk-part');
  });
});

interface Outcome {
  result: FirstAgentResult | null;
  error: FirstAgentRefusal | null;
  lines: string[];
  questions: string[];
}

describe.each(['environment', 'prompt'] as const)('Q1 model key matrix: first runs, the first one to succeed taking its key from the %s, then every repeat', (firstSource) => {
  let stack: TestStack;
  let dir: string;
  const canaries: string[] = [];
  /** The key the secret's current version holds. */
  let storedKey = '';
  /** Everything first-agent wrote or was answered: its lines, the terminal, errors, results, GraphQL responses. */
  const seen: string[] = [];

  async function run(source: Source): Promise<Outcome & { canary: string }> {
    const canary = `sk-canary-${randomUUID()}`;
    canaries.push(canary);
    return { ...(await runWith(source, canary)), canary };
  }

  async function runWith(source: Source, key: string): Promise<Outcome> {
    const dataDir = await mkdtemp(path.join(dir, 'data-'));
    const i = stack.runtime.installation;
    await writeFile(
      path.join(dataDir, 'state.json'),
      JSON.stringify({ version: 1, installationId: i.installationId, bootstrapPrincipalId: i.bootstrapPrincipalId, graphqlUrl: `${stack.baseUrl}/graphql`, embedded: { postgres: true, kubernetes: true }, profile: { compute: 'kubernetes', sandbox: 'none' } }),
    );
    const env: Record<string, string> = { OCC_BOOTSTRAP_KEY: stack.bootstrapKey, ...(source === 'environment' ? { OPENAI_API_KEY: key } : {}) };
    const terminal = fakeTerminal(source === 'prompt' || source === 'none, with a terminal', source === 'prompt' ? [`${key}\r`] : ['\r']);
    const lines: string[] = [];
    let result: FirstAgentResult | null = null;
    let error: FirstAgentRefusal | null = null;
    try {
      result = await runFirstAgent({
        dataDir,
        modelOverride: null,
        readKey: keyReader((name) => env[name] ?? null, terminal.terminal),
        out: (line) => lines.push(line),
        deployTimeoutMs: 60_000,
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          seen.push(await res.clone().text());
          return res;
        },
      });
    } catch (e) {
      if (!(e instanceof FirstAgentRefusal)) throw e;
      error = e;
    }
    seen.push(...lines, ...terminal.written, JSON.stringify(result), error ? `${error.code} ${error.message}` : '');
    return { result, error, lines, questions: terminal.questions };
  }

  const secretRow = () => stack.runtime.db.secret.findFirst({ where: { name: 'first-agent-model-key' } });
  const updates = (secretId: string) => stack.runtime.db.auditEvent.findMany({ where: { action: 'secret.update', resourceId: secretId }, orderBy: { at: 'asc' } });

  /** The version the active revision freezes for harnessAuth, and the bytes its model-auth Secret holds. */
  async function delivered(result: FirstAgentResult): Promise<{ version: number; value: string }> {
    const revision = await stack.runtime.db.agentRevision.findUniqueOrThrow({ where: { id: result.revisionId } });
    expect(revision.state).toBe('ACTIVE');
    const frozen = await stack.runtime.db.agentRevisionSecret.findFirstOrThrow({ where: { revisionId: result.revisionId, purpose: 'harnessAuth' } });
    const ns = await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: result.namespaceId } });
    const copy = await stack.core.readNamespacedSecret({ name: `model-auth-${result.agentId.slice('agt_'.length)}-${revision.number}`, namespace: ns.k8sName });
    return { version: frozen.version, value: Buffer.from(Object.values(copy.data ?? {})[0] ?? '', 'base64').toString('utf8') };
  }

  beforeAll(async () => {
    stack = await startTestStack({ env: { gatewayReadySeconds: 20 } });
    dir = await mkdtemp(path.join(tmpdir(), 'occ-first-agent-key-'));
  }, 90_000);
  afterAll(async () => {
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('Q1 first run, no key and no terminal: NO_MODEL_KEY names OPENAI_API_KEY and the hidden prompt a terminal gives, asks nothing, creates nothing', async () => {
    const o = await run('none, without a terminal');
    expect(o.error?.code).toBe('NO_MODEL_KEY');
    expect(o.error?.message).toContain('OPENAI_API_KEY is not set, and there is no terminal to ask for it on (stdin is not a TTY)');
    expect(o.error?.message).toContain('Set OPENAI_API_KEY, or run this in a terminal, which asks for it without echoing it');
    expect(o.error?.message).not.toMatch(/refused/i);
    expect(o.questions).toEqual([]);
    expect(await stack.runtime.db.namespace.count({ where: { name: 'first-agent' } })).toBe(0);
  });

  it('Q1 first run, Enter at the prompt: NO_MODEL_KEY says no key was typed and names OPENAI_API_KEY, creates nothing', async () => {
    const o = await run('none, with a terminal');
    expect(o.error?.code).toBe('NO_MODEL_KEY');
    expect(o.error?.message).toContain('No model key for openai/gpt-6-astra was typed at the prompt');
    expect(o.error?.message).toContain('set OPENAI_API_KEY');
    expect(o.questions).toEqual([expect.stringMatching(/^OPENAI_API_KEY \(the model key for openai\/gpt-6-astra; not echoed\)/)]);
    expect(await stack.runtime.db.namespace.count({ where: { name: 'first-agent' } })).toBe(0);
  });

  it(`Q1 first run, key from the ${firstSource}: creates the secret at version 1 holding it, says where the key came from, and the active revision delivers version 1`, async () => {
    const o = await run(firstSource);
    expect(o.error).toBeNull();
    const r = o.result!;
    expect(r.created).toEqual({ namespace: true, secret: true, configuration: true, agent: true, grant: true });
    expect(r.modelKey).toEqual({ stored: 'created', from: firstSource, version: 1 });
    const from = firstSource === 'environment' ? 'from OPENAI_API_KEY' : 'typed at the prompt';
    expect(o.lines).toContain(`Created secret first-agent-model-key (${r.secretId}): version 1 holds the model key ${from}.`);
    expect(o.lines).toContain('Model openai/gpt-6-astra, the default (OPENCLAW_FIRST_AGENT_MODEL names another).');
    expect(o.questions).toHaveLength(firstSource === 'prompt' ? 1 : 0);
    expect((await secretRow())?.version).toBe(1);
    expect(await delivered(r)).toEqual({ version: 1, value: o.canary });
    storedKey = o.canary;
  }, 120_000);

  it.each(SOURCES)('Q1 repeat, key %s: says what it reuses (namespace, secret, configuration, agent, model) and what it did with the key; a given key is a new, audited version that the redeploy delivers', async (source) => {
    const before = (await secretRow())!;
    const updatesBefore = (await updates(before.id)).length;
    const o = await run(source);
    expect(o.error).toBeNull();
    const r = o.result!;
    expect(r.created).toEqual({ namespace: false, secret: false, configuration: false, agent: false, grant: false });
    expect(o.lines).toEqual(
      expect.arrayContaining([
        'Model openai/gpt-6-astra: recorded in configuration first-agent, kept.',
        `Reusing namespace first-agent (${r.namespaceId}).`,
        `Reusing configuration first-agent (${r.configurationId}).`,
        `Reusing agent first-agent (${r.agentId}), principal ${r.servicePrincipalId}.`,
        "The agent's principal already holds operate on exactly secret first-agent-model-key.",
      ]),
    );
    const after = (await secretRow())!;
    const audited = await updates(before.id);
    const given = source === 'environment' || source === 'prompt';
    if (given) {
      const from = source === 'environment' ? 'from OPENAI_API_KEY' : 'typed at the prompt';
      expect(after.version).toBe(before.version + 1);
      expect(r.modelKey).toEqual({ stored: 'new-version', from: source, version: after.version });
      expect(o.lines).toContain(`Reusing secret first-agent-model-key (${before.id}): stored the model key ${from} as its new version ${after.version} (audited; not compared with the stored key).`);
      expect(o.lines.some((l) => l.startsWith(`Redeploying agent first-agent so it uses the new model key (version ${after.version}): revision `))).toBe(true);
      expect(audited).toHaveLength(updatesBefore + 1);
      expect(audited.at(-1)).toMatchObject({ actorId: stack.runtime.installation.bootstrapPrincipalId, outcome: 'SUCCESS', details: { name: 'first-agent-model-key', version: after.version } });
      expect(await delivered(r)).toEqual({ version: after.version, value: o.canary });
      storedKey = o.canary;
    } else {
      const why = source === 'none, with a terminal' ? 'no key was typed at the prompt' : 'OPENAI_API_KEY is not set and there is no terminal to ask on';
      expect(after.version).toBe(before.version);
      expect(r.modelKey).toEqual({ stored: 'kept', from: null, version: before.version });
      expect(o.lines).toContain(
        `Reusing secret first-agent-model-key (${before.id}): keeping its stored model key, version ${before.version} (${why}; to replace it, set OPENAI_API_KEY or type one at the prompt in a terminal).`,
      );
      expect(audited).toHaveLength(updatesBefore);
      expect(await delivered(r)).toEqual({ version: before.version, value: storedKey });
    }
    expect(o.questions).toEqual(source === 'prompt' || source === 'none, with a terminal' ? [expect.stringContaining('Enter keeps the stored key')] : []);
  }, 120_000);

  it('Q1 repeat with the very key already stored: still a new version, so no run can learn whether a key matches the stored one', async () => {
    const before = (await secretRow())!;
    const o = await runWith('environment', storedKey);
    expect(o.result?.modelKey).toEqual({ stored: 'new-version', from: 'environment', version: before.version + 1 });
    expect((await secretRow())?.version).toBe(before.version + 1);
    expect(await delivered(o.result!)).toEqual({ version: before.version + 1, value: storedKey });
  }, 120_000);

  it('Q1 canary: no key reaches an output line, the terminal, an error, a GraphQL answer, a log line, a database row (audit records included) or a Kubernetes object other than the Secrets holding it', async () => {
    expect(canaries.length).toBeGreaterThanOrEqual(7);
    const rows = await dumpDatabase(stack.databaseUrl);
    expect(rows.some((row) => row.startsWith('AuditEvent: ') && row.includes('secret.update'))).toBe(true);
    const kube = [...(await dumpKubernetes(stack.core, stack.apps)).entries()].filter(([k]) => !k.startsWith('Secret/')).map(([k, v]) => `${k} ${v}`);
    for (const canary of canaries) {
      expect(findCanary(seen, canary), 'first-agent output').toEqual([]);
      expect(findCanary(stack.logs, canary), 'server logs').toEqual([]);
      expect(findCanary(rows, canary), 'database').toEqual([]);
      expect(findCanary(kube, canary), 'Kubernetes objects').toEqual([]);
    }
  }, 60_000);
});
