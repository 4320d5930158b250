import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../env.ts';
import { MINIMUM_NODE, unsupportedNodeMessage } from './node-version.ts';

const manifests = ['package.json', 'apps/api/package.json', 'apps/console/package.json', 'packages/domain/package.json', 'packages/kube-emulator/package.json', 'e2e/package.json'];

describe('the Node the product needs', () => {
  it('is the same minimum in the start check and in every package.json engines', () => {
    for (const file of manifests) {
      const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, file), 'utf8')) as { engines?: { node?: string } };
      expect(manifest.engines?.node, file).toBe(`>=${MINIMUM_NODE}`);
    }
  });

  it('is what these tests run on (the root scripts bring Node 24 on an older machine)', () => {
    // Printed so a test log shows which Node ran it.
    console.log(`tests run on Node ${process.version}`);
    expect(unsupportedNodeMessage(process.versions.node)).toBeNull();
  });

  it('refuses an older Node at start, naming both versions and scripts/node-env', () => {
    const message = unsupportedNodeMessage('20.20.2');
    expect(message).toContain('Node v20.20.2');
    expect(message).toContain(`>=${MINIMUM_NODE}`);
    expect(message).toContain('scripts/node-env');
    const [major, minor] = MINIMUM_NODE.split('.').map(Number) as [number, number];
    expect(unsupportedNodeMessage(`${major}.${minor - 1}.9`)).not.toBeNull();
    expect(unsupportedNodeMessage(`${major}.${minor}.0`)).toBeNull();
    expect(unsupportedNodeMessage('24.22.3')).toBeNull();
    expect(unsupportedNodeMessage('26.0.0')).toBeNull();
  });

  it("scripts/node-env --if-needed keeps a PATH Node exactly when it satisfies engines, read without starting Node", () => {
    // A fake `node` on PATH prints each version (or nothing, or garbage); the command run reports
    // which node it would use. The pinned Node is already in the cache (these tests run on it).
    const [major, minor] = MINIMUM_NODE.split('.').map(Number) as [number, number];
    const pinned = execFileSync(path.join(REPO_ROOT, 'scripts/node-env'), { encoding: 'utf8' }).trim();
    const versions = [
      `v${major}.${minor}.0`, `v${major}.${minor}.17`, `v${major}.${minor - 1}.99`, `v${major}.${minor + 81}.0`, `v${major + 1}.0.0`,
      `v${major - 1}.99.99`, `v${major * 10}.0.0`, 'v9.0.0', `v${major}`, 'garbage', '',
    ];
    const dir = mkdtempSync(path.join(tmpdir(), 'occ-node-env-'));
    try {
      for (const version of versions) {
        writeFileSync(path.join(dir, 'node'), `#!/bin/sh\n[ "$1" = --version ] && printf '%s\\n' '${version}'\nexit 0\n`);
        chmodSync(path.join(dir, 'node'), 0o755);
        const used = execFileSync(path.join(REPO_ROOT, 'scripts/node-env'), ['--if-needed', 'sh', '-c', 'command -v node'], {
          encoding: 'utf8',
          env: { PATH: `${dir}:/usr/bin:/bin`, HOME: process.env.HOME },
          stdio: ['ignore', 'pipe', 'ignore'],
        }).trim();
        const m = /^v(\d+)\.(\d+)\.\d+$/.exec(version);
        const satisfies = m !== null && (Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor));
        expect(used, version || '(prints nothing)').toBe(satisfies ? path.join(dir, 'node') : pinned);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
