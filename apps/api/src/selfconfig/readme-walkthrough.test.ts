import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { agentInstanceName } from '@occ/domain/kubernetes-names';
import { KUBE_TARGET } from '@occ/kube-emulator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../env.ts';
import { CREATE_AGENT, CREATE_CONFIGURATION, createReadyNamespace, payload, waitFor } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// The README's SelfConfig walkthrough ("SelfConfig: a request's life"),
// run as written with the machine's kubectl against the embedded API server `npm start` runs: an
// agent's token from `kubectl create token` (a TokenRequest kubectl sends in protobuf), the request
// applied with that token, watched until Applied, read back, and its events listed. The commands
// are read from README.md, so the test follows the README, and only the placeholders are filled in.

const KUBECTL = '/usr/bin/kubectl';
const DEPLOY = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename ... on DeployAgentSuccess { revision { id number state } } ... on Error { code message } } }`;
const REVISION = `query($id: ID!) { node(id: $id) { ... on AgentRevision { state failure { code message } } } }`;

let stack: TestStack;
let dir: string;
let kubeconfig: string;
let namespaceUuid: string;
let agentUuid: string;

/** The walkthrough's shell block, split into commands (a heredoc stays with its command). */
async function walkthrough(): Promise<string[]> {
  const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf("### SelfConfig: a request's life"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("README.md: no sh block under \"SelfConfig: a request's life\"");
  const commands: string[] = [];
  const lines = block.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let command = lines[i] ?? '';
    const heredoc = /<<'(\w+)'/.exec(command)?.[1];
    if (heredoc) while (i + 1 < lines.length && lines[i] !== heredoc) command += `\n${lines[++i]}`;
    if (command.trim() !== '') commands.push(command);
  }
  return commands.map((command) => command.replaceAll('<namespace uuid>', namespaceUuid).replaceAll('<agent uuid>', agentUuid));
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs shell text as a user would type it, with the kubeconfig of the server. With `until`, it runs
 * until its output satisfies it (a watch), then is stopped; else until it exits.
 */
function shell(script: string, until?: (stdout: string) => boolean, deadlineMs = 90_000): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { env: { PATH: `${path.dirname(KUBECTL)}:/bin`, HOME: dir, KUBECONFIG: kubeconfig }, detached: true });
    let stdout = '';
    let stderr = '';
    let done = false;
    const stop = () => {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    };
    const timer = setTimeout(stop, deadlineMs);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (until && !done && until(stdout)) {
        done = true;
        stop();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: until && done ? 0 : code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  stack = await startTestStack({ selfConfigWebhookOnLoopback: true });
  dir = await mkdtemp(path.join(tmpdir(), 'readme-walkthrough-'));
  if (KUBE_TARGET.target === 'real') {
    kubeconfig = KUBE_TARGET.kubeconfig;
  } else {
    // What `npm start` writes to .data/kubeconfig.yaml.
    kubeconfig = path.join(dir, 'kubeconfig.yaml');
    await writeFile(kubeconfig, stack.runtime.emulator!.kubeconfigYaml(), { mode: 0o600 });
  }
  const namespaceId = await createReadyNamespace(stack, `walkthrough-${Date.now().toString(36)}`);
  const k8sName = (await stack.runtime.db.namespace.findUniqueOrThrow({ where: { id: namespaceId } })).k8sName;
  namespaceUuid = k8sName.replace(/^occ-/, '');
  const cfg = payload(await stack.gql(CREATE_CONFIGURATION, { input: { namespaceId, name: 'walked', values: { model: 'openai/gpt-6-astra' } } }), 'createConfiguration');
  const created = payload(
    await stack.gql(CREATE_AGENT, { input: { namespaceId, name: 'walker', configurationId: cfg.configuration.id, selfConfigure: { enabled: true, allowedActions: ['skills', 'envVars'] } } }),
    'createAgent',
  );
  expect(created.__typename, JSON.stringify(created)).toBe('CreateAgentSuccess');
  agentUuid = agentInstanceName(created.agent.id).replace(/^agent-/, '');
  const deployed = payload(await stack.gql(DEPLOY, { input: { agentId: created.agent.id } }), 'deployAgent');
  expect(deployed.__typename, JSON.stringify(deployed)).toBe('DeployAgentSuccess');
  await waitFor(async () => {
    const revision = payload(await stack.gql(REVISION, { id: deployed.revision.id }), 'node');
    return revision.state === 'ACTIVE' ? revision : null;
  }, 'the first revision to be active', 90_000);
}, 180_000);

afterAll(async () => {
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the README's SelfConfig walkthrough, run as written", { timeout: 240_000 }, () => {
  it("SC5 E9 E10 an agent's token from kubectl create token may file only its own requests (kubectl auth can-i), files a request that is applied, and the README's reads show it", async () => {
    expect(namespaceUuid).toMatch(/^[0-9a-f-]{36}$/);
    const [token, canFile, canGetSecrets, canListAll, apply, watch, yaml, events, ...rest] = await walkthrough();
    expect(rest).toEqual([]);
    expect(token).toMatch(/^TOKEN=\$\(kubectl -n occ-[0-9a-f-]+ create token agent-[0-9a-f-]+\)/);

    // E9: what the README says the token may do, asked with kubectl auth can-i (a
    // SelfSubjectAccessReview): yes in its own namespace for SelfConfig, no for any Secret.
    for (const [command, answer, code] of [[canFile, 'yes', 0], [canGetSecrets, 'no', 1], [canListAll, 'no', 1]] as const) {
      expect(command).toMatch(/^kubectl --token "\$TOKEN" .*auth can-i /);
      const asked = await shell(`${token}\n${command}`);
      expect([asked.code, asked.stdout.trim()], `${command}\n${asked.stderr}`).toEqual([code, answer]);
    }

    // The token and the apply share a shell, as they do in the README.
    const applied = await shell(`set -e\n${token}\n${apply}`);
    expect(applied.stderr).toBe('');
    expect([applied.code, applied.stdout.trim()]).toEqual([0, 'openclawselfconfig.openclaw.rocks/add-fetch-skill created']);

    const watched = await shell(watch ?? '', (out) => /add-fetch-skill\s+.*Applied/.test(out));
    expect(watched.stdout, watched.stderr).toMatch(/add-fetch-skill\s+.*Applied/);

    const read = await shell(yaml ?? '');
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toMatch(/phase: Applied/);
    expect(read.stdout).toMatch(/skippedRemovals:\n\s*- kind: skill\n\s*managers: \[\]\n\s*name: web-search/);

    const listed = await shell(events ?? '');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`agent-${agentUuid}`);
  });
});
