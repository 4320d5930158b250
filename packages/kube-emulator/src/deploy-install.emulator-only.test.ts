// The install as an operator runs it, with kubectl 1.33 against the embedded server: every kind
// deploy/ holds is served (Service, Job, NetworkPolicy and PodDisruptionBudget among them), and
// kubectl finds the OpenAPI it validates with, so `kubectl apply --dry-run=server -k deploy/`
// answers for every object and stores nothing, and `kubectl apply -k deploy/` creates them all.
// Emulator only: the lane's kube-apiserver 1.20 applies deploy/ itself in
// deploy-manifests.real-only.test.ts (it lacks policy/v1, which kubectl 1.33's dry run here sends).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOY_DIR, renderDeploy } from './deploy-manifests.ts';
import { kubectlFor, type Kubectl } from './kubectl-testing.ts';
import { startTestCluster, type TestCluster } from './testing.ts';
import type { KubeObject } from './types.ts';

let cluster: TestCluster;
let kubectl: Kubectl;
let objects: KubeObject[];

/** kubectl's resource name for an object: `service/occ-api`, `deployment.apps/occ-api`. */
const resourceOf = (o: KubeObject) => {
  const group = String(o.apiVersion).includes('/') ? String(o.apiVersion).split('/')[0] : '';
  return `${String(o.kind).toLowerCase()}${group ? `.${group}` : ''}/${o.metadata.name}`;
};

beforeAll(async () => {
  cluster = await startTestCluster();
  kubectl = await kubectlFor(cluster);
  objects = await renderDeploy();
}, 60_000);
afterAll(async () => {
  await cluster?.close();
});

describe('E6 E10 the install with kubectl against the embedded server', { timeout: 120_000 }, () => {
  it('E6 kubectl apply --dry-run=server -k deploy/ answers for every object, validated, and stores nothing but the namespace made first', async () => {
    // A server-side dry run creates nothing, so the namespace its objects go in must exist, as on any server.
    await kubectl.ok(['apply', '-f', `${DEPLOY_DIR}namespace.yaml`]);
    const run = await kubectl.run(['apply', '--dry-run=server', '-k', DEPLOY_DIR]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    for (const o of objects.filter((x) => x.kind !== 'Namespace')) expect(lines, resourceOf(o)).toContain(`${resourceOf(o)} created (server dry run)`);
    expect((await kubectl.run(['-n', 'occ-system', 'get', 'deployments,services,jobs,networkpolicies,poddisruptionbudgets,serviceaccounts', '-o', 'name'])).stdout.trim()).toBe('');
  });

  it('E6 kubectl apply -k deploy/ creates every object the kustomization renders, and kubectl reads each back', async () => {
    const run = await kubectl.run(['apply', '-k', DEPLOY_DIR]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const o of objects) {
      const args = o.metadata.namespace ? ['-n', String(o.metadata.namespace)] : [];
      expect((await kubectl.ok([...args, 'get', resourceOf(o), '-o', 'name'])).trim()).toBe(resourceOf(o).replace(/^namespace\//, 'namespace/'));
    }
  });
});
