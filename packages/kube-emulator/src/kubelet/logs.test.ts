// E3: what a simulated gateway writes and how the kubelet endpoint reads it back (tail, bytes,
// previous instance, a container that has not started). The lines are written out here.

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ContainerLogs, gatewayLines } from './logs.ts';

const T = '2026-01-01T00:00:00Z';

describe('E3 container logs of the simulated gateway', () => {
  it('a gateway names the config it loaded by path and SHA-256, never its content', () => {
    const content = '{"agents":{},"token":"sk-canary"}';
    const lines = gatewayLines('g:1', { '/etc/openclaw/openclaw.json': content, '/etc/openclaw/other.json': 'x' }, T).map((l) => l.text);
    expect(lines).toEqual([
      'starting OpenClaw gateway (image g:1)',
      `config loaded from /etc/openclaw/openclaw.json (sha256 ${createHash('sha256').update(content).digest('hex')})`,
      'gateway ready: accepting connections',
    ]);
    expect(lines.join('\n')).not.toContain('sk-canary');
  });

  it('one that exits writes its message and code instead of readiness', () => {
    expect(gatewayLines('g:1', {}, T, { code: 2, message: 'bad config' }).map((l) => l.text)).toEqual([
      'starting OpenClaw gateway (image g:1)',
      'no openclaw.json mounted: starting with the built-in defaults',
      'bad config',
      'exiting with code 2',
    ]);
  });

  it('reads: all lines, the last n, timestamps, a byte limit; the previous instance; the kubelet\'s words without one', () => {
    const logs = new ContainerLogs();
    expect(logs.read('ns', 'p', 'c')).toEqual({ error: 'container "c" in pod "p" is waiting to start: ContainerCreating' });
    logs.waiting('ns', 'p', 'uid-1', 'c', 'CreateContainerConfigError');
    expect(logs.read('ns', 'p', 'c')).toEqual({ error: 'container "c" in pod "p" is waiting to start: CreateContainerConfigError' });
    logs.started('ns', 'p', 'uid-1', 'c', [{ time: T, text: 'one' }, { time: T, text: 'two' }]);
    expect(logs.read('ns', 'p', 'c')).toEqual({ text: 'one\ntwo\n' });
    expect(logs.read('ns', 'p', 'c', { tailLines: 1, timestamps: true })).toEqual({ text: `${T} two\n` });
    expect(logs.read('ns', 'p', 'c', { limitBytes: 5 })).toEqual({ text: 'one\nt' });
    expect(logs.read('ns', 'p', 'c', { previous: true })).toEqual({ error: 'previous terminated container "c" in pod "p" not found' });
    logs.started('ns', 'p', 'uid-1', 'c', [{ time: T, text: 'three' }]);
    expect(logs.read('ns', 'p', 'c', { previous: true })).toEqual({ text: 'one\ntwo\n' });
    // A new Pod of the same name starts afresh; a forgotten one has nothing.
    logs.started('ns', 'p', 'uid-2', 'c', [{ time: T, text: 'new' }]);
    expect(logs.read('ns', 'p', 'c', { previous: true })).toEqual({ error: 'previous terminated container "c" in pod "p" not found' });
    logs.forget('uid-2');
    expect(logs.has('ns', 'p', 'uid-2', 'c')).toBe(false);
  });
});
