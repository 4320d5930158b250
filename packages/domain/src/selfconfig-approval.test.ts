import { describe, expect, it } from 'vitest';
import { freezeRevision } from './revision.ts';
import { instanceBody } from './revision-render.ts';
import { approvalExpiresAt, approvalNeeded, approvalSpec, instanceApproval, requiredCategories } from './selfconfig-approval.ts';

// SG3's policy, written out: a category left out takes default, default left out is none; the
// list a deploy freezes renders on the instance as the same policy; a request needs approval for
// exactly the categories it touches that the instance requires.

describe('SG3 approval policy', () => {
  it('SG3 a category left out takes default, and default left out is none', () => {
    expect(requiredCategories(null)).toEqual([]);
    expect(requiredCategories({})).toEqual([]);
    expect(requiredCategories({ default: 'none', skills: 'required' })).toEqual(['skills']);
    expect(requiredCategories({ default: 'required', config: 'none' })).toEqual(['skills', 'workspaceFiles', 'envVars']);
    expect(requiredCategories({ envVars: 'required', skills: 'required' })).toEqual(['skills', 'envVars']);
  });

  it('SG3 the frozen list renders on the instance as the policy, and reads back as the same list; an agent without approval renders none', () => {
    expect(approvalSpec(['skills'])).toEqual({ default: 'none', skills: 'required' });
    expect(approvalSpec(['skills', 'config', 'workspaceFiles', 'envVars'])).toEqual({ default: 'required' });
    for (const list of [['skills'], ['config', 'envVars'], ['skills', 'config', 'workspaceFiles', 'envVars']]) {
      expect(instanceApproval({ selfConfigure: { approval: approvalSpec(list) } })).toEqual(list);
    }
    const freeze = (approval?: string[]) =>
      freezeRevision({
        agent: { id: 'agt_00000000-0000-4000-8000-0000000000aa', namespaceId: 'ns_00000000-0000-4000-8000-000000000001', servicePrincipalId: 'spn_00000000-0000-4000-8000-000000000009', harnessProvider: null, harnessSecretId: null, selfConfigure: { enabled: true, allowedActions: ['skills', 'envVars'], ...(approval ? { approval } : {}) } },
        configuration: null,
        secretVersions: new Map(),
        secretDriverId: 'kubernetes-secret/v1',
        previousNumber: 0,
        createdById: 'prn_00000000-0000-4000-8000-000000000001',
      });
    const context = { installationId: 'inst-1', k8sNamespace: 'occ-ns', revisionId: 'rev_00000000-0000-4000-8000-000000000077', secretNames: new Map<string, string>() };
    const spec = (approval?: string[]) => (instanceBody(freeze(approval), context).spec as { selfConfigure: Record<string, unknown> }).selfConfigure;
    expect(spec(['envVars', 'skills'])).toEqual({ enabled: true, allowedActions: ['envVars', 'skills'], approval: { default: 'none', skills: 'required', envVars: 'required' } });
    expect(spec([])).toEqual({ enabled: true, allowedActions: ['envVars', 'skills'] });
    expect(spec()).toEqual({ enabled: true, allowedActions: ['envVars', 'skills'] });
  });

  it('SG3 a request needs approval for the categories it touches that the instance requires, and none on an instance without the setting', () => {
    const spec = { selfConfigure: { enabled: true, approval: { default: 'none', skills: 'required', envVars: 'required' } } };
    expect(approvalNeeded(['skills', 'config'], spec)).toEqual(['skills']);
    expect(approvalNeeded(['config', 'workspaceFiles'], spec)).toEqual([]);
    expect(approvalNeeded(['skills', 'envVars'], { selfConfigure: { enabled: true } })).toEqual([]);
    expect(approvalNeeded(['skills'], { selfConfigure: { approval: { default: 'bogus', skills: 'maybe' } } })).toEqual([]);
  });

  it('SG3 a request waiting since 08:00 with a 24 h approval TTL expires at 08:00 the next day', () => {
    expect(approvalExpiresAt(new Date('2026-12-04T08:00:00.000Z'), 86_400_000).toISOString()).toBe('2026-12-05T08:00:00.000Z');
  });

  it('SG3 a setting that is not none or required counts as left out: the category takes default', () => {
    expect(requiredCategories({ default: 'required', skills: 'bogus' } as never)).toEqual(['skills', 'config', 'workspaceFiles', 'envVars']);
    expect(requiredCategories({ default: 'yes', skills: 'required' } as never)).toEqual(['skills']);
    expect(requiredCategories({ default: 'REQUIRED' } as never)).toEqual([]);
  });

  it.each([
    ['no spec', undefined],
    ['a null spec', null],
    ['a string spec', 'spec'],
    ['a null selfConfigure', { selfConfigure: null }],
    ['a string selfConfigure', { selfConfigure: 'required' }],
    ['a null approval', { selfConfigure: { approval: null } }],
    ['a string approval', { selfConfigure: { approval: 'required' } }],
  ])('SG3 an instance with %s requires no approval, and reading it throws nothing', (_what, spec) => {
    expect(instanceApproval(spec)).toEqual([]);
    expect(approvalNeeded(['skills', 'config'], spec)).toEqual([]);
  });
});
