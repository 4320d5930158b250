import { createServer } from 'node:net';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';

// R7: what `kubectl kustomize deploy/` says each container runs, turned into a command line that a
// test starts on the staged product (production-build.test.ts), and what the NetworkPolicies
// admit. Kubernetes' own rules, as far as deploy/ uses them: `command` replaces the image's
// ENTRYPOINT and `args` its CMD (a command without args drops the CMD); the pod's env is the
// image's ENV with the container's on top; a secretKeyRef or configMapKeyRef is a value the test
// supplies; fieldRef metadata.namespace is the object's namespace.

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ImageConfig {
  entrypoint: string[] | null;
  cmd: string[] | null;
  workdir: string;
  env: Record<string, string>;
}

/** The runtime stage (the last FROM) of a Containerfile: its ENTRYPOINT, CMD (exec form), WORKDIR and ENV. */
export async function readImageConfig(containerfile: string): Promise<ImageConfig> {
  const text = (await readFile(containerfile, 'utf8')).replace(/\\\n/g, ' ');
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const last = lines.map((l, i) => (/^FROM\s/i.test(l) ? i : -1)).filter((i) => i >= 0).pop() ?? 0;
  const config: ImageConfig = { entrypoint: null, cmd: null, workdir: '/', env: {} };
  for (const line of lines.slice(last + 1)) {
    const [, instruction = '', rest = ''] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    switch (instruction.toUpperCase()) {
      case 'ENTRYPOINT':
        config.entrypoint = JSON.parse(rest) as string[];
        break;
      case 'CMD':
        config.cmd = JSON.parse(rest) as string[];
        break;
      case 'WORKDIR':
        config.workdir = rest;
        break;
      case 'ENV':
        for (const [, name, value] of rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)/g)) config.env[name!] = value!.replace(/^"|"$/g, '');
        break;
    }
  }
  return config;
}

export interface Workload {
  kind: string;
  name: string;
  namespace: string;
  labels: Record<string, string>;
  container: Obj;
}

/** Every container of the rendered Deployments and Jobs, with its pod template's labels. */
export function workloadsOf(objects: Obj[]): Workload[] {
  return objects
    .filter((o) => o.kind === 'Deployment' || o.kind === 'Job')
    .flatMap((o) =>
      (o.spec.template.spec.containers as Obj[]).map((container) => ({
        kind: o.kind as string,
        name: o.metadata.name as string,
        namespace: o.metadata.namespace as string,
        labels: (o.spec.template.metadata?.labels ?? {}) as Record<string, string>,
        container,
      })),
    );
}

/** The argv the container runs: command or the image's ENTRYPOINT, then args or (without a command) the image's CMD. */
export function argvOf(container: Obj, image: ImageConfig): string[] {
  const command: string[] = container.command ?? image.entrypoint ?? [];
  const args: string[] = container.args ?? (container.command ? [] : (image.cmd ?? []));
  const argv = [...command, ...args];
  // $(VAR) references would be expanded by the kubelet; deploy/ has none, and this runner does not expand them.
  for (const arg of argv) if (/\$\(/.test(arg)) throw new Error(`R7 runner: $(VAR) in ${container.name}'s command is not supported`);
  return argv;
}

/** The container's environment: the image's ENV, then the container's env, references resolved through `values`. */
export function envOf(workload: Workload, image: ImageConfig, values: { secrets: Record<string, string>; configMaps?: Record<string, string> }): Record<string, string> {
  const env: Record<string, string> = { ...image.env };
  for (const item of (workload.container.env ?? []) as Obj[]) {
    if (item.value !== undefined) env[item.name] = String(item.value);
    else if (item.valueFrom?.secretKeyRef) {
      const ref = `${item.valueFrom.secretKeyRef.name}/${item.valueFrom.secretKeyRef.key}`;
      if (!(ref in values.secrets)) throw new Error(`R7 runner: no test value for Secret key ${ref} (${workload.name})`);
      env[item.name] = values.secrets[ref]!;
    } else if (item.valueFrom?.configMapKeyRef) {
      const ref = `${item.valueFrom.configMapKeyRef.name}/${item.valueFrom.configMapKeyRef.key}`;
      if (!values.configMaps || !(ref in values.configMaps)) throw new Error(`R7 runner: no test value for ConfigMap key ${ref} (${workload.name})`);
      env[item.name] = values.configMaps[ref]!;
    } else if (item.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') {
      env[item.name] = workload.namespace;
    } else {
      throw new Error(`R7 runner: ${workload.name}'s env ${item.name} has a source this runner does not know`);
    }
  }
  return env;
}

/** A port nobody listens on now (the kernel's choice). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A container port by name or number, as a probe or a Service's targetPort names it. */
export function containerPort(container: Obj, port: string | number): number {
  if (typeof port === 'number') return port;
  const found = ((container.ports ?? []) as Obj[]).find((p) => p.name === port);
  if (!found) throw new Error(`${container.name} has no port named ${port}`);
  return found.containerPort as number;
}

function selects(selector: Obj | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  const byLabels = Object.entries((selector.matchLabels ?? {}) as Record<string, string>).every(([k, v]) => labels[k] === v);
  const byExpressions = ((selector.matchExpressions ?? []) as Obj[]).every((e) => {
    const has = e.key in labels;
    switch (e.operator) {
      case 'In':
        return has && (e.values as string[]).includes(labels[e.key]!);
      case 'NotIn':
        return !has || !(e.values as string[]).includes(labels[e.key]!);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      default:
        throw new Error(`unknown selector operator ${e.operator}`);
    }
  });
  return byLabels && byExpressions;
}

/**
 * The ingress rules of the NetworkPolicies in the workload's namespace that select its pods and
 * admit TCP to `port` (by number, or by the container port's name), with the peers they admit
 * from (`[]`: from anywhere). Empty when no policy admits it: with deploy/'s default deny, the port
 * is unreachable.
 */
export function ingressAdmitting(objects: Obj[], workload: Workload, port: number): Obj[] {
  const names = ((workload.container.ports ?? []) as Obj[]).filter((p) => p.containerPort === port).map((p) => p.name as string);
  return objects
    .filter((o) => o.kind === 'NetworkPolicy' && o.metadata.namespace === workload.namespace && selects(o.spec.podSelector, workload.labels))
    .filter((o) => ((o.spec.policyTypes ?? ['Ingress']) as string[]).includes('Ingress'))
    .flatMap((o) => (o.spec.ingress ?? []) as Obj[])
    .filter((rule) => !rule.ports || (rule.ports as Obj[]).some((p) => (p.protocol ?? 'TCP') === 'TCP' && (p.port === port || names.includes(p.port))))
    .map((rule) => rule.from ?? []);
}

export { selects as labelSelectorSelects };
