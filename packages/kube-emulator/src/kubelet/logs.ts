// What a simulated gateway container writes to its log (E3), kept per container instance as a
// kubelet's runtime keeps them: the current instance and the one before it (`kubectl logs
// --previous`). A gateway says it starts, which config it loaded (the mounted openclaw.json's path
// and SHA-256, never its content) and that it is ready; one that the crash hook stops writes the
// exit message instead. No environment value or file content is written.

import { createHash } from 'node:crypto';
import { CRASH_HOOK_FILE, type ContainerExit } from './gateway-status.ts';

export interface LogLine {
  time: string;
  text: string;
}

/** The lines a gateway container writes when it starts with `files` mounted, or exits at once with `exit`. */
export function gatewayLines(image: string, files: Readonly<Record<string, string>>, time: string, exit?: ContainerExit): LogLine[] {
  const lines = [`starting OpenClaw gateway (image ${image || '<none>'})`];
  const config = Object.entries(files).find(([path]) => path === CRASH_HOOK_FILE || path.endsWith(`/${CRASH_HOOK_FILE}`));
  if (config) lines.push(`config loaded from ${config[0]} (sha256 ${createHash('sha256').update(config[1]).digest('hex')})`);
  else lines.push('no openclaw.json mounted: starting with the built-in defaults');
  if (exit) lines.push(exit.message, `exiting with code ${exit.code}`);
  else lines.push('gateway ready: accepting connections');
  return lines.map((text) => ({ time, text }));
}

interface Entry {
  uid: string;
  current?: LogLine[];
  previous?: LogLine[];
  waiting?: string;
}

export interface ReadOptions {
  previous?: boolean;
  timestamps?: boolean;
  tailLines?: number;
  limitBytes?: number;
}

export class ContainerLogs {
  private readonly entries = new Map<string, Entry>();

  private entry(namespace: string, pod: string, uid: string, container: string): Entry {
    const key = `${namespace}/${pod}/${container}`;
    let entry = this.entries.get(key);
    if (!entry || entry.uid !== uid) {
      entry = { uid };
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** Whether this container instance of the Pod `uid` has written anything yet. */
  has(namespace: string, pod: string, uid: string, container: string): boolean {
    const entry = this.entries.get(`${namespace}/${pod}/${container}`);
    return entry?.uid === uid && entry.current !== undefined;
  }

  /**
   * A new instance of the container starts (the one before becomes `previous`). One that has
   * already exited (`terminated`) is also the previous instance, as when a kubelet backs off
   * restarting it: `kubectl logs` and `kubectl logs --previous` both show its lines.
   */
  started(namespace: string, pod: string, uid: string, container: string, lines: LogLine[], terminated = false): void {
    const entry = this.entry(namespace, pod, uid, container);
    entry.previous = terminated ? lines : entry.current;
    entry.current = lines;
    entry.waiting = undefined;
  }

  /** The container has not started, for `reason` (the kubelet's answer to a log request until it does). */
  waiting(namespace: string, pod: string, uid: string, container: string, reason: string): void {
    this.entry(namespace, pod, uid, container).waiting = reason;
  }

  forget(uid: string): void {
    for (const [key, entry] of this.entries) if (entry.uid === uid) this.entries.delete(key);
  }

  /** The kubelet's answer to GET /containerLogs: the lines, or its error for a container with none. */
  read(namespace: string, pod: string, container: string, options: ReadOptions = {}): { text: string } | { error: string } {
    const entry = this.entries.get(`${namespace}/${pod}/${container}`);
    const lines = options.previous ? entry?.previous : entry?.current;
    if (!lines) {
      if (options.previous) return { error: `previous terminated container "${container}" in pod "${pod}" not found` };
      return { error: `container "${container}" in pod "${pod}" is waiting to start: ${entry?.waiting ?? 'ContainerCreating'}` };
    }
    const tail = options.tailLines !== undefined && options.tailLines >= 0 ? lines.slice(Math.max(lines.length - options.tailLines, 0)) : lines;
    let text = tail.map((l) => `${options.timestamps ? `${l.time} ` : ''}${l.text}\n`).join('');
    if (options.limitBytes !== undefined && options.limitBytes > 0) text = Buffer.from(text).subarray(0, options.limitBytes).toString('utf8');
    return { text };
  }
}
