// The E8 lane only (the default config leaves *.real-only.test.ts out): the captured built-in
// schemas are what the lane's real kube-apiserver serves at /openapi/v2, so the file in the
// repository cannot drift from its source. When this fails after a change of the served kinds or
// of the server, capture again (src/capture-openapi.ts says how).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_RESOURCES } from '../registry.ts';
import { clusterRequest, startTestCluster, type TestCluster } from '../testing.ts';
import type { JsonObject } from '../types.ts';
import { CAPTURED, capturedSubset } from './openapi-captured.ts';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(() => cluster.close());

describe('the captured built-in schemas on the real server', () => {
  it('E6 E8 the file holds exactly the definitions the real server serves for the built-in kinds', async () => {
    expect(cluster.target).toBe('real');
    const response = await clusterRequest(cluster, '/openapi/v2', { headers: { accept: 'application/json' } });
    const served = JSON.parse(response.body.toString()) as { definitions: Record<string, JsonObject> };
    const version = JSON.parse((await clusterRequest(cluster, '/version')).body.toString()) as { gitVersion: string };
    expect(CAPTURED.source).toContain(`kube-apiserver ${version.gitVersion}`);
    expect(capturedSubset(served.definitions, BUILT_IN_RESOURCES)).toEqual(CAPTURED.definitions);
  });
});
