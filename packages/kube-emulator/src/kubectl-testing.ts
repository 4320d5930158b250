// The machine's kubectl (/usr/bin/kubectl, 1.33) run against the server of a test cluster, for the
// conformance files that hold kubectl's own request sequences on both servers (E8, E10): the
// emulator's kubeconfig, or the lane's real kube-apiserver through KUBECONFIG.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBE_TARGET, type TestCluster } from './testing.ts';

export const KUBECTL = '/usr/bin/kubectl';

export interface KubectlRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Kubectl {
  /** Runs kubectl; a non-zero exit is returned, not thrown. */
  run(args: string[], input?: string): Promise<KubectlRun>;
  /** Runs kubectl and returns its output, throwing with its stderr when it fails. */
  ok(args: string[], input?: string): Promise<string>;
  close(): Promise<void>;
}

/** kubectl against the test cluster's server: the emulator's kubeconfig, or the lane's through KUBECONFIG. */
export function kubectlFor(cluster: TestCluster): Promise<Kubectl> {
  return kubectlWith(KUBE_TARGET.target === 'real' ? { path: KUBE_TARGET.kubeconfig } : { yaml: cluster.emulator.kubeconfigYaml() });
}

/**
 * kubectl with a private HOME (its discovery cache) and a kubeconfig: a file's path (left where it
 * is), or a kubeconfig's text, written into that HOME. `close` removes the HOME. Relative paths in
 * its arguments are read from `cwd` (this process's own by default).
 */
export async function kubectlWith(kubeconfigSource: { path: string } | { yaml: string }, options: { cwd?: string } = {}): Promise<Kubectl> {
  const home = await mkdtemp(join(tmpdir(), 'kubectl-home-'));
  let kubeconfig: string;
  if ('path' in kubeconfigSource) {
    kubeconfig = kubeconfigSource.path;
  } else {
    kubeconfig = join(home, 'kubeconfig.yaml');
    await writeFile(kubeconfig, kubeconfigSource.yaml, { mode: 0o600 });
  }
  const run = (args: string[], input?: string) =>
    new Promise<KubectlRun>((resolve) => {
      const child = execFile(
        KUBECTL,
        args,
        { env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: kubeconfig }, timeout: 60_000, ...(options.cwd ? { cwd: options.cwd } : {}) },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end(input ?? '');
    });
  return {
    run,
    async ok(args, input) {
      const result = await run(args, input);
      if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
      return result.stdout;
    },
    close: () => rm(home, { recursive: true, force: true }),
  };
}

/** The answers with what differs between any two runs replaced by placeholders. */
export function normalise(text: string, ns: string): string {
  return text
    .replaceAll(ns, '<ns>')
    .replace(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g, '<token>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uid>')
    .replace(/(resourceVersion["']?:\s*)"?\d+"?/g, '$1<rv>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [+-]\d{4}/g, '<time>')
    .replace(/^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ /gm, '$1<klog> ')
    .replace(/(https?:\/\/)?127\.0\.0\.1:\d+/g, '<server>')
    .replace(/\/tmp\/[^\s]+/g, '<tmp>')
    // An age is a table's column: at the end of its line, or before the next column (LABELS).
    .replace(/(\s)\d+[smhd](\d+[smhd])?(?=$|\s{2,})/gm, '$1<age>')
    // kubectl pads the AGE column to its widest age ("9s" beside "10s"), which depends on when each
    // server ran the step: the padding after an age, and after its header, is not compared.
    .replace(/(<age>|\bAGE) {2,}(?=\S)/g, '$1   ')
    .replace(/[ \t]+$/gm, '');
}
