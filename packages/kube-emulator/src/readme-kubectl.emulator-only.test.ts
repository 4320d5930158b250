// E10: the README's "kubectl against the embedded server" block, read from the README and run as
// written, command by command, with the machine's kubectl (1.33) against the embedded server, so a
// command the README offers that the server cannot answer fails here. Its `manifest.yaml` (any
// manifest of the reader's) is a ConfigMap in `scratch`; the watch is ended after a few seconds, as
// a reader ends it. Emulator only: the block is about the embedded server (explain reads OpenAPI
// v3, which the lane's 1.20 does not serve).

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENCLAW_CRD_DIR } from './crds.ts';
import { kubectlWith, type Kubectl, type KubectlRun } from './kubectl-testing.ts';
import { startTestCluster, type TestCluster } from './testing.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const HEADING = '### kubectl against the embedded server';
const PRODUCT_NAMESPACE = 'occ-0b7c2a2e-readme';

/** The lines of the first ```sh block after `heading`. */
function shellBlockAfter(markdown: string, heading: string): string[] {
  const at = markdown.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`no heading "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(markdown.slice(at));
  if (!block) throw new Error(`no sh block after "${heading}"`);
  return block[1]!.split('\n').filter((line) => line.trim() !== '');
}

/**
 * A line as sh would run it, for the plain lines a README shows: its comment dropped, split at `&&`
 * into commands, each split into words with single and double quotes. Anything else sh would do
 * (variables, pipes, redirections, globs, `;`) is refused, so a README line this cannot run as
 * written fails the test instead of being run differently.
 */
function commandsOf(line: string): string[][] {
  const commands: string[][] = [[]];
  let word: string | null = null;
  const end = () => {
    if (word !== null) commands.at(-1)!.push(word);
    word = null;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const close = line.indexOf(c, i + 1);
      if (close < 0) throw new Error(`unclosed quote in: ${line}`);
      const quoted = line.slice(i + 1, close);
      if (c === '"' && /[$`\\]/.test(quoted)) throw new Error(`expansion in double quotes, not run here: ${line}`);
      word = (word ?? '') + quoted;
      i = close;
    } else if (c === ' ' || c === '\t') {
      end();
    } else if (c === '#' && word === null) {
      break;
    } else if (c === '&' && line[i + 1] === '&') {
      end();
      commands.push([]);
      i++;
    } else if ('$`|;<>*?()\\'.includes(c) || c === '&') {
      throw new Error(`shell syntax "${c}" not run here: ${line}`);
    } else {
      word = (word ?? '') + c;
    }
  }
  end();
  if (commands.some((words) => words.length === 0)) throw new Error(`an empty command in: ${line}`);
  return commands;
}

let cluster: TestCluster;
let kubectl: Kubectl;
let folder: string;
let lines: string[];

beforeAll(async () => {
  cluster = await startTestCluster({ crdDirs: [OPENCLAW_CRD_DIR] });
  // Relative paths in the block (deploy/) are the repository's, as for a reader at its root.
  kubectl = await kubectlWith({ yaml: cluster.emulator.kubeconfigYaml() }, { cwd: REPO });
  folder = await mkdtemp(join(tmpdir(), 'readme-kubectl-'));
  await writeFile(
    join(folder, 'manifest.yaml'),
    ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: from-manifest', '  namespace: scratch', 'data:', '  greeting: hello', ''].join('\n'),
  );
  lines = shellBlockAfter(await readFile(join(REPO, 'README.md'), 'utf8'), HEADING);
  // What `npm start` would have made by then: a product namespace with an agent's instance.
  await kubectl.ok(['create', 'namespace', PRODUCT_NAMESPACE]);
  const instance = { apiVersion: 'openclaw.rocks/v1alpha1', kind: 'OpenClawInstance', metadata: { name: 'agent-1', namespace: PRODUCT_NAMESPACE }, spec: { image: 'gw:1', model: 'gpt' } };
  await kubectl.ok(['create', '-f', '-'], JSON.stringify(instance));
}, 60_000);
afterAll(async () => {
  await kubectl?.close();
  await cluster?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('E10 the README’s kubectl block', () => {
  it('reads shell lines as sh would, and refuses what it cannot run as written', () => {
    expect(commandsOf(`kubectl patch cm demo -n scratch --type=merge -p '{"data":{"b":"2"}}'   # a comment`)).toEqual([
      ['kubectl', 'patch', 'cm', 'demo', '-n', 'scratch', '--type=merge', '-p', '{"data":{"b":"2"}}'],
    ]);
    expect(commandsOf('kubectl apply -f a.yaml && kubectl get cm "x y"')).toEqual([
      ['kubectl', 'apply', '-f', 'a.yaml'],
      ['kubectl', 'get', 'cm', 'x y'],
    ]);
    for (const line of ['kubectl get pods | head', 'kubectl get $KIND', 'kubectl get pods > out', 'kubectl get "$X"', 'kubectl get pods; ls', "kubectl get 'x", 'kubectl get pods &']) {
      expect(() => commandsOf(line), line).toThrow();
    }
  });

  it('E10 every command of the block runs against the embedded server as written, and answers', { timeout: 180_000 }, async () => {
    const [first, ...rest] = lines;
    // The one line that sets up the shell: the reader's kubeconfig, which the test has given kubectl.
    expect(first).toBe('export KUBECONFIG=$PWD/.data/kubeconfig.yaml');
    const answers = new Map<string, KubectlRun>();
    for (const line of rest) {
      for (const words of commandsOf(line)) {
        expect(words[0], line).toBe('kubectl');
        let args = words.slice(1).map((w) => (w === 'manifest.yaml' ? join(folder, 'manifest.yaml') : w));
        // A watch runs until its reader ends it: this reader ends it after a few seconds.
        const watching = args.includes('--watch') || args.includes('-w');
        if (watching) args = [...args, '--request-timeout=3s'];
        const run = await kubectl.run(args);
        answers.set(words.join(' '), run);
        // kubectl's warnings are answers too (the CRDs the server installed itself carry no
        // last-applied annotation, which the README says); anything else on stderr is a failure.
        const errors = run.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('Warning: '));
        expect({ command: words.join(' '), code: run.code, errors }).toEqual({ command: words.join(' '), code: 0, errors: [] });
      }
    }
    // What the comments promise, seen in the answers.
    const answer = (prefix: string) => [...answers.entries()].find(([command]) => command.startsWith(prefix))?.[1].stdout ?? '';
    expect(answer('kubectl get namespaces')).toMatch(/^NAME\s+STATUS\s+AGE/);
    expect(answer('kubectl get namespaces')).toContain(PRODUCT_NAMESPACE);
    expect(answer('kubectl get oci -A').split('\n')[0]).toMatch(/^NAMESPACE\s+NAME\s+\S/); // the CRD's printer columns after NAME
    expect(answer('kubectl get oci -A')).toContain('agent-1');
    expect(answer('kubectl explain openclawinstances.spec')).toContain('FIELDS:');
    expect(answer('kubectl apply --server-side -f')).toContain('configmap/from-manifest serverside-applied');
    expect(answer('kubectl diff -f')).toBe(''); // nothing to show once it is applied
    expect(answer('kubectl get configmaps -n scratch --watch')).toContain('demo');
    expect(answer('kubectl delete namespace scratch')).toContain('namespace "scratch" deleted');
  });
});
