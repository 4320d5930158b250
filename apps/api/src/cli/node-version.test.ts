import { readFileSync } from 'node:fs';
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
});
