// E10 Pod Security Admission labels enforced: a namespace labelled
// `pod-security.kubernetes.io/enforce` refuses a Pod that violates its level when it is created,
// in the real plugin's words (k8s.io/pod-security-admission, policy/check_*.go), and a Deployment
// whose template violates it keeps a ReplicaSet without Pods and a FailedCreate event, as the
// ReplicaSet controller records it. Emulator only: the lane's kube-apiserver 1.20 predates Pod
// Security Admission (1.25), so there the labels change nothing.

import type { V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeletSimulator, type KubeletSimulator, GATEWAY_LABEL_KEY, GATEWAY_LABEL_VALUE } from './kubelet/simulator.ts';
import { podSecurityViolations } from './pod-security.ts';
import { apiFailure, startTestCluster, uniqueName, type TestCluster } from './testing.ts';

let cluster: TestCluster;
let simulator: KubeletSimulator;

beforeAll(async () => {
  cluster = await startTestCluster();
  simulator = await startKubeletSimulator(cluster.kubeConfig, { retryDelayMs: 100, onError: () => {} });
}, 60_000);
afterAll(async () => {
  await simulator?.stop();
  await cluster?.close();
});

/** A Pod spec that satisfies `restricted`, as the product renders its gateways. */
function compliant(): V1PodSpec {
  return {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'gateway', image: 'ghcr.io/openclaw/openclaw:1', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    volumes: [{ name: 'config', configMap: { name: 'c' } }],
  };
}

// Each departure from the compliant spec, with the one violation it is (written out from the
// plugin's checks), and the lowest level that refuses it.
const DEPARTURES: Array<{ what: string; change: (s: V1PodSpec) => void; level: 'baseline' | 'restricted'; violation: string; restricted?: string }> = [
  { what: 'hostNetwork', change: (s) => void (s.hostNetwork = true), level: 'baseline', violation: 'host namespaces (hostNetwork=true)' },
  { what: 'privileged', change: (s) => void (s.containers[0]!.securityContext!.privileged = true), level: 'baseline', violation: 'privileged (container "gateway" must not set securityContext.privileged=true)' },
  {
    what: 'hostPath',
    change: (s) => void s.volumes!.push({ name: 'host', hostPath: { path: '/' } }),
    level: 'baseline',
    violation: 'hostPath volumes (volume "host")',
    restricted: 'restricted volume types (volume "host" uses restricted volume type "hostPath")',
  },
  {
    what: 'a capability added',
    change: (s) => void (s.containers[0]!.securityContext!.capabilities!.add = ['NET_ADMIN']),
    level: 'baseline',
    violation: 'non-default capabilities (container "gateway" must not include "NET_ADMIN" in securityContext.capabilities.add)',
    restricted: 'unrestricted capabilities (container "gateway" must not include "NET_ADMIN" in securityContext.capabilities.add)',
  },
  { what: 'hostPort', change: (s) => void (s.containers[0]!.ports = [{ containerPort: 80, hostPort: 80 }]), level: 'baseline', violation: 'hostPort (container "gateway" uses hostPort 80)' },
  {
    what: 'allowPrivilegeEscalation unset',
    change: (s) => void delete s.containers[0]!.securityContext!.allowPrivilegeEscalation,
    level: 'restricted',
    violation: 'allowPrivilegeEscalation != false (container "gateway" must set securityContext.allowPrivilegeEscalation=false)',
  },
  {
    what: 'capabilities not dropped',
    change: (s) => void delete s.containers[0]!.securityContext!.capabilities,
    level: 'restricted',
    violation: 'unrestricted capabilities (container "gateway" must set securityContext.capabilities.drop=["ALL"])',
  },
  {
    what: 'runAsNonRoot unset',
    change: (s) => void delete s.securityContext!.runAsNonRoot,
    level: 'restricted',
    violation: 'runAsNonRoot != true (pod or container "gateway" must set securityContext.runAsNonRoot=true)',
  },
  { what: 'runAsUser 0', change: (s) => void (s.securityContext!.runAsUser = 0), level: 'restricted', violation: 'runAsUser=0 (pod must not set runAsUser=0)' },
  {
    what: 'no seccomp profile',
    change: (s) => void delete s.securityContext!.seccompProfile,
    level: 'restricted',
    violation: 'seccompProfile (pod or container "gateway" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  },
];

describe('Pod Security Admission', () => {
  it('E10 a compliant spec passes every level; each departure is exactly its violation, at its level and above', () => {
    for (const level of ['privileged', 'baseline', 'restricted'] as const) expect(podSecurityViolations(level, compliant() as never)).toEqual([]);
    for (const d of DEPARTURES) {
      const spec = compliant();
      d.change(spec);
      // At restricted a baseline check may be replaced by its stricter twin (the plugin's overrides).
      expect(podSecurityViolations('restricted', spec as never), d.what).toEqual([d.restricted ?? d.violation]);
      expect(podSecurityViolations('baseline', spec as never), d.what).toEqual(d.level === 'baseline' ? [d.violation] : []);
      expect(podSecurityViolations('privileged', spec as never), d.what).toEqual([]);
    }
  });

  it('E10 an enforcing namespace refuses a violating Pod at creation with 403 in the plugin words; compliant Pods and unlabelled namespaces are admitted', async () => {
    const restricted = uniqueName('psa-restricted');
    const open = uniqueName('psa-open');
    await cluster.core.createNamespace({ body: { metadata: { name: restricted, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } } });
    await cluster.core.createNamespace({ body: { metadata: { name: open } } });
    const pod = (name: string, spec: V1PodSpec): V1Pod => ({ metadata: { name }, spec });
    const bare: V1PodSpec = { containers: [{ name: 'gateway', image: 'ghcr.io/openclaw/openclaw:1' }] };
    const refused = await apiFailure(cluster.core.createNamespacedPod({ namespace: restricted, body: pod('bare', bare) }));
    expect(refused.code).toBe(403);
    expect(refused.body).toMatchObject({
      reason: 'Forbidden',
      message:
        'pods "bare" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "gateway" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "gateway" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "gateway" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "gateway" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    });
    // A dry run is judged alike, and nothing is stored either way.
    expect((await apiFailure(cluster.core.createNamespacedPod({ namespace: restricted, body: pod('bare', bare), dryRun: 'All' }))).code).toBe(403);
    await expect(cluster.core.readNamespacedPod({ name: 'bare', namespace: restricted })).rejects.toMatchObject({ code: 404 });
    await cluster.core.createNamespacedPod({ namespace: restricted, body: pod('fine', compliant()) });
    await cluster.core.createNamespacedPod({ namespace: open, body: pod('bare', bare) });
  });

  it('E10 a Deployment whose template violates the level keeps a ReplicaSet without Pods and a FailedCreate event; a compliant template runs', async () => {
    const ns = uniqueName('psa-deploy');
    await cluster.core.createNamespace({ body: { metadata: { name: ns, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } } });
    const deployment = (name: string, spec: V1PodSpec) => ({
      metadata: { name, labels: { [GATEWAY_LABEL_KEY]: GATEWAY_LABEL_VALUE } },
      spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec } },
    });
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: deployment('gw-bare', { containers: [{ name: 'gateway', image: 'ghcr.io/openclaw/openclaw:1' }] }) });
    await cluster.apps.createNamespacedDeployment({ namespace: ns, body: deployment('gw-fine', compliant()) });
    const deadline = Date.now() + 15_000;
    let events: string[] = [];
    for (;;) {
      const list = await cluster.core.listNamespacedEvent({ namespace: ns });
      events = list.items.filter((e) => e.reason === 'FailedCreate' && e.involvedObject.kind === 'ReplicaSet').map((e) => `${e.involvedObject.name} ${e.type} ${e.message}`);
      const fine = await cluster.apps.readNamespacedDeployment({ name: 'gw-fine', namespace: ns });
      if (events.length > 0 && fine.status?.availableReplicas === 1) break;
      if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(events)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(events).toHaveLength(1);
    expect(events[0]).toMatch(/^gw-bare-\S+ Warning Error creating: pods "gw-bare-\S+" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
    const pods = (await cluster.core.listNamespacedPod({ namespace: ns })).items.map((p) => p.metadata?.name ?? '');
    expect(pods.filter((n) => n.startsWith('gw-bare'))).toEqual([]);
    expect(pods.filter((n) => n.startsWith('gw-fine'))).toHaveLength(1);
  });
});
