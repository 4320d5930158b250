import { renderGateway, type InstanceObject } from '@occ/domain/gateway-render';
import { podSecurityViolations } from '@occ/kube-emulator/pod-security';
import { describe, expect, it } from 'vitest';

// E10 and K1: the product labels its namespaces to enforce Pod Security `restricted`, so every
// gateway it renders must satisfy that level, with each optional part on (a model-auth container,
// SelfConfig's service-account token, workspace files) and off. Judged by the emulator's plugin
// (the same checks that refuse a Pod there), on the Pod template of the rendered Deployment.

const variants: Array<[string, InstanceObject['spec']]> = [
  ['the bare instance', {}],
  ['model auth, selfConfigure and workspace files', { modelAuth: { provider: 'openai', secretName: 'mk' }, selfConfigure: { enabled: true }, workspace: { initialFiles: { 'AGENTS.md': '#' } } }],
  ['resources and an image of its own', { image: 'registry.example/openclaw:1', resources: { limits: { memory: '1Gi' } } }],
];

describe('gateway Pods and Pod Security', () => {
  it.each(variants)('E10 K1 the gateway rendered for %s satisfies restricted', (_what, spec) => {
    const instance: InstanceObject = { metadata: { name: 'agent', namespace: 'ns', uid: 'u', labels: {} }, spec };
    const template = (renderGateway(instance).deployment.spec as { template: { spec: Record<string, unknown> } }).template;
    expect(podSecurityViolations('restricted', template.spec)).toEqual([]);
  });
});
