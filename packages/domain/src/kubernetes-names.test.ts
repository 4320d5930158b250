import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeId } from './ids.ts';
import {
  AGENT_ID_LABEL,
  agentInstanceName,
  agentLabels,
  agentServiceAccountName,
  gatewayConfigMapName,
  gatewayDeploymentName,
  harnessSecretName,
  INSTALLATION_ID_LABEL,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  NAMESPACE_ID_LABEL,
  SECRET_ID_LABEL,
  SECRET_VALUE_KEY,
  backendIdentityMismatch,
  backendNotMigrated,
  withoutBackendNames,
  installationSelector,
  kubernetesNamespaceName,
  namespaceLabels,
  secretBackendName,
  secretLabels,
  isTenantRoleBinding,
  tenantRoleBinding,
} from './kubernetes-names.ts';

// The grammars kube-apiserver enforces (k8s.io/apimachinery/pkg/util/validation).
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

const isDns1123Label = (s: string): boolean => s.length <= 63 && DNS1123_LABEL.test(s);
const isDns1123Subdomain = (s: string): boolean => s.length <= 253 && DNS1123_SUBDOMAIN.test(s);
const isLabelValue = (s: string): boolean => s.length <= 63 && LABEL_VALUE.test(s);
const isLabelKey = (s: string): boolean => QUALIFIED_NAME.test(s) && (s.split('/').at(-1) ?? '').length <= 63;

const NS_UUID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const NS2_UUID = 'ffeeddcc-bbaa-4998-8877-665544332211';
const SEC_UUID = '11112222-3333-4444-8555-666677778888';
const SEC2_UUID = '99990000-aaaa-4bbb-8ccc-ddddeeeeffff';
const NS_ID = makeId('namespace', NS_UUID);
const NS2_ID = makeId('namespace', NS2_UUID);
const SEC_ID = makeId('secret', SEC_UUID);
const SEC2_ID = makeId('secret', SEC2_UUID);

describe('kubernetesNamespaceName', () => {
  it('K1 names the Kubernetes namespace from the namespace id', () => {
    expect(kubernetesNamespaceName(NS_ID)).toBe(`occ-${NS_UUID}`);
  });

  it('K1 name is a valid DNS-1123 label of at most 63 characters', () => {
    const name = kubernetesNamespaceName(NS_ID);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(isDns1123Label(name)).toBe(true);
  });

  it('K1 gives distinct namespaces distinct names, and the same namespace the same name', () => {
    expect(kubernetesNamespaceName(NS_ID)).not.toBe(kubernetesNamespaceName(NS2_ID));
    expect(kubernetesNamespaceName(NS_ID)).toBe(kubernetesNamespaceName(makeId('namespace', NS_UUID)));
  });
});

const INSTALLATION = '0b5e3a52-55d4-4b8e-a7a5-6f0c0d1f2e3a';
const OTHER_INSTALLATION = '7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

describe('labels', () => {
  it('K1 labels a namespace as ours with its id', () => {
    expect(namespaceLabels(NS_ID, INSTALLATION)).toEqual({
      [MANAGED_BY_LABEL]: MANAGED_BY,
      [INSTALLATION_ID_LABEL]: INSTALLATION,
      [NAMESPACE_ID_LABEL]: NS_UUID,
    });
    expect(MANAGED_BY).toBe('openclaw-control-plane');
  });

  it('S2 R3 labels a backend Secret with ownership, installation id, namespace id and secret id', () => {
    expect(secretLabels(NS_ID, SEC_ID, INSTALLATION)).toEqual({
      [MANAGED_BY_LABEL]: MANAGED_BY,
      [INSTALLATION_ID_LABEL]: INSTALLATION,
      [NAMESPACE_ID_LABEL]: NS_UUID,
      [SECRET_ID_LABEL]: SEC_UUID,
    });
  });

  it('label values are valid and at most 63 characters, even for the longest id prefix', () => {
    const longest = makeId('selfConfigRequest', NS_UUID);
    for (const labels of [namespaceLabels(NS_ID, INSTALLATION), secretLabels(NS_ID, SEC_ID, INSTALLATION), namespaceLabels(longest, INSTALLATION)]) {
      for (const [key, value] of Object.entries(labels)) {
        expect(isLabelKey(key), key).toBe(true);
        expect(value.length, key).toBeLessThanOrEqual(63);
        expect(isLabelValue(value), `${key}=${value}`).toBe(true);
      }
    }
  });

  it('R3 the installation selector selects exactly one installation\'s objects', () => {
    expect(installationSelector(INSTALLATION)).toBe(`${MANAGED_BY_LABEL}=${MANAGED_BY},${INSTALLATION_ID_LABEL}=${INSTALLATION}`);
  });
});

describe('secretBackendName', () => {
  it('S2 derives the name from the namespace and secret ids plus the suffix', () => {
    expect(secretBackendName(NS_ID, SEC_ID, 'k3x9q2ab')).toBe(`occ-${NS_UUID.slice(0, 8)}-${SEC_UUID}-k3x9q2ab`);
  });

  it('S2 name is a valid DNS-1123 subdomain (and label) at the shortest and longest suffix', () => {
    for (const suffix of ['a1b2c3', 'a1b2c3d4e5f6']) {
      const name = secretBackendName(NS_ID, SEC_ID, suffix);
      expect(isDns1123Subdomain(name), name).toBe(true);
      expect(isDns1123Label(name), name).toBe(true);
    }
  });

  it('S2 a different random suffix gives a different name, so a retry never adopts an existing object', () => {
    const first = secretBackendName(NS_ID, SEC_ID, 'aaaaaa');
    const retry = secretBackendName(NS_ID, SEC_ID, 'aaaaab');
    expect(retry).not.toBe(first);
    expect(secretBackendName(NS_ID, SEC_ID, 'aaaaaa')).toBe(first);
  });

  it('S2 different secrets or namespaces give different names with the same suffix', () => {
    const base = secretBackendName(NS_ID, SEC_ID, 'abcdef');
    expect(secretBackendName(NS_ID, SEC2_ID, 'abcdef')).not.toBe(base);
    expect(secretBackendName(NS2_ID, SEC_ID, 'abcdef')).not.toBe(base);
  });

  it.each([
    ['empty', ''],
    ['5 characters', 'abc12'],
    ['13 characters', 'abcdef1234567'],
    ['uppercase', 'ABC123'],
    ['a hyphen', 'abc-12'],
    ['an underscore', 'abc_12'],
    ['a dot', 'abc.12'],
    ['a trailing newline', 'abc123\n'],
    ['non-ASCII', 'abcdeé'],
  ])('S2 rejects a suffix that is %s', (_label, suffix) => {
    expect(() => secretBackendName(NS_ID, SEC_ID, suffix)).toThrow(/suffix/);
  });

  it('S2 stores the value under the fixed key "value"', () => {
    expect(SECRET_VALUE_KEY).toBe('value');
  });
});

describe('backendIdentityMismatch', () => {
  const UID = '6b1d5c0e-7f2a-4c3b-9d8e-1a2b3c4d5e6f';
  const expected = { namespaceId: NS_ID, secretId: SEC_ID, installationId: INSTALLATION, uid: UID };
  const goodLabels = (): Record<string, string> => secretLabels(NS_ID, SEC_ID, INSTALLATION);

  it('S6 S7 is null when labels and uid all match', () => {
    expect(backendIdentityMismatch({ uid: UID, labels: goodLabels() }, expected)).toBeNull();
  });

  it('S6 S7 ignores labels other than ours', () => {
    expect(backendIdentityMismatch({ uid: UID, labels: { ...goodLabels(), team: 'payments' } }, expected)).toBeNull();
  });

  it('S6 S7 reports a wrong managed-by label', () => {
    const reason = backendIdentityMismatch({ uid: UID, labels: { ...goodLabels(), [MANAGED_BY_LABEL]: 'helm' } }, expected);
    expect(reason).toContain(MANAGED_BY_LABEL);
    expect(reason).toContain('"helm"');
  });

  it('S6 S7 reports a secret-id label naming another secret', () => {
    const reason = backendIdentityMismatch({ uid: UID, labels: { ...goodLabels(), [SECRET_ID_LABEL]: SEC2_UUID } }, expected);
    expect(reason).toContain(SECRET_ID_LABEL);
    expect(reason).toContain(SEC_UUID);
  });

  it('R3 S7 reports an object of another installation', () => {
    const reason = backendIdentityMismatch({ uid: UID, labels: { ...goodLabels(), [INSTALLATION_ID_LABEL]: OTHER_INSTALLATION } }, expected);
    expect(reason).toContain(INSTALLATION_ID_LABEL);
  });

  it('S6 S7 reports a namespace-id label naming another namespace', () => {
    const reason = backendIdentityMismatch({ uid: UID, labels: { ...goodLabels(), [NAMESPACE_ID_LABEL]: NS2_UUID } }, expected);
    expect(reason).toContain(NAMESPACE_ID_LABEL);
  });

  it('S6 S7 reports a label holding the whole prefixed id instead of its uuid', () => {
    const reason = backendIdentityMismatch({ uid: UID, labels: { ...goodLabels(), [SECRET_ID_LABEL]: SEC_ID } }, expected);
    expect(reason).toContain(SECRET_ID_LABEL);
  });

  it('S6 S7 reports a missing label', () => {
    const labels = goodLabels();
    delete labels[SECRET_ID_LABEL];
    const reason = backendIdentityMismatch({ uid: UID, labels }, expected);
    expect(reason).toContain(SECRET_ID_LABEL);
    expect(reason).toContain('null');
  });

  it('S6 S7 reports an object with no labels at all', () => {
    expect(backendIdentityMismatch({ uid: UID }, expected)).toContain(MANAGED_BY_LABEL);
    expect(backendIdentityMismatch({ uid: UID, labels: {} }, expected)).not.toBeNull();
  });

  it('S6 S7 reports a wrong uid', () => {
    const other = '00000000-0000-4000-8000-000000000000';
    const reason = backendIdentityMismatch({ uid: other, labels: goodLabels() }, expected);
    expect(reason).toContain('uid');
    expect(reason).toContain(other);
    expect(reason).toContain(UID);
  });

  it('D3 upgrades: every mix of missing, changed and kept labels with the same or another uid: "not migrated" exactly when only labels upgrades add are missing and the uid is ours; never null otherwise', () => {
    const keys = Object.keys(goodLabels());
    const fate = fc.constantFrom('kept', 'missing', 'changed');
    fc.assert(
      fc.property(fc.tuple(...keys.map(() => fate)), fc.boolean(), (fates, sameUid) => {
        const labels: Record<string, string> = {};
        keys.forEach((key, i) => {
          if (fates[i] === 'kept') labels[key] = goodLabels()[key]!;
          if (fates[i] === 'changed') labels[key] = 'someone-else';
        });
        const observed = { uid: sameUid ? UID : '00000000-0000-4000-8000-000000000000', labels };
        const missing = keys.filter((_k, i) => fates[i] === 'missing');
        const changed = fates.includes('changed');
        const notMigrated = sameUid && !changed && missing.length > 0 && missing.every((k) => k === INSTALLATION_ID_LABEL);
        expect(backendNotMigrated(observed, expected) !== null).toBe(notMigrated);
        const mismatch = backendIdentityMismatch(observed, expected);
        expect(mismatch === null).toBe(sameUid && !changed && missing.length === 0);
        if (notMigrated) expect(mismatch).toMatch(/earlier release.*not migrated/);
        else if (!sameUid) expect(mismatch).toMatch(/^uid is/);
      }),
    );
  });

  it('S6 S7 reports a missing uid', () => {
    expect(backendIdentityMismatch({ labels: goodLabels() }, expected)).toContain('uid is missing');
  });
});

describe('agent object names', () => {
  const agentId = 'agt_0b7e6f0e-8a53-4f57-9a8e-6c1d8e7f2a10';
  it('W4 names every agent object from the id, as valid DNS-1123 names, the instance and its ServiceAccount alike', () => {
    const names = [agentInstanceName(agentId), agentServiceAccountName(agentId), gatewayDeploymentName(agentId), gatewayConfigMapName(agentId, 12), harnessSecretName(agentId, 12)];
    for (const name of names) expect(name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    expect(new Set(names.slice(2)).size).toBe(3);
    expect(agentServiceAccountName(agentId)).toBe(agentInstanceName(agentId));
    expect(gatewayConfigMapName(agentId, 12)).toBe('gateway-config-0b7e6f0e-8a53-4f57-9a8e-6c1d8e7f2a10-12');
  });
  it('W4 labels an agent object with its namespace, installation and agent', () => {
    expect(agentLabels('ns_11111111-1111-4111-8111-111111111111', agentId, 'inst-1')[AGENT_ID_LABEL]).toBe('0b7e6f0e-8a53-4f57-9a8e-6c1d8e7f2a10');
  });
});

describe('tenantRoleBinding', () => {
  const sa = { namespace: 'occ-system', name: 'occ-api' };

  it('K1 binds exactly the ClusterRole occ-tenant to the product service account, inside the tenant namespace, labelled as ours', () => {
    const binding = tenantRoleBinding(kubernetesNamespaceName(NS_ID), NS_ID, 'inst-1', sa);
    expect(binding).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'occ-tenant', namespace: kubernetesNamespaceName(NS_ID), labels: namespaceLabels(NS_ID, 'inst-1') },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'occ-tenant' },
      subjects: [{ kind: 'ServiceAccount', name: 'occ-api', namespace: 'occ-system' }],
    });
    for (const [key, value] of Object.entries(binding.metadata.labels)) {
      expect(isLabelKey(key)).toBe(true);
      expect(isLabelValue(value)).toBe(true);
    }
  });

  it('K1 an existing occ-tenant binding is accepted only when it binds occ-tenant to this service account', () => {
    const ours = tenantRoleBinding('occ-x', NS_ID, 'inst-1', sa);
    expect(isTenantRoleBinding(ours, sa)).toBe(true);
    expect(isTenantRoleBinding({ ...ours, subjects: [...ours.subjects, { kind: 'ServiceAccount', name: 'other', namespace: 'x' }] }, sa)).toBe(true);
    const variants = [
      { ...ours, roleRef: { ...ours.roleRef, name: 'cluster-admin' } },
      { ...ours, roleRef: { ...ours.roleRef, kind: 'Role' } },
      { ...ours, roleRef: { ...ours.roleRef, apiGroup: 'example.com' } },
      { ...ours, subjects: [] },
      { ...ours, subjects: [{ kind: 'ServiceAccount', name: 'occ-api', namespace: 'elsewhere' }] },
      { ...ours, subjects: [{ kind: 'User', name: 'occ-api', namespace: 'occ-system' }] },
      { roleRef: ours.roleRef },
    ];
    for (const variant of variants) expect(isTenantRoleBinding(variant, sa)).toBe(false);
  });
});

describe('stored messages name secrets, never their Kubernetes Secrets (S4, D4)', () => {
  it('S4 D4 withoutBackendNames replaces every backend name in a message by the secret id it embeds, whatever surrounds it (generated)', () => {
    const uuid = fc.uuid({ version: 4 });
    const suffix = fc.stringMatching(/^[a-z0-9]{6,12}$/);
    const around = fc.constantFrom(
      (n: string) => `secret "${n}" not found`,
      (n: string) => `couldn't find key value in Secret occ-00000000-0000-4000-8000-000000000001/${n}`,
      (n: string) => `MountVolume.SetUp failed for volume "x" : secret "${n}" not found`,
      (n: string) => `${n}`,
      (n: string) => `a, ${n}; and ${n}.`,
    );
    fc.assert(
      fc.property(uuid, uuid, suffix, around, fc.string({ maxLength: 30 }), (ns, secret, tail, wrap, noise) => {
        const name = secretBackendName(`ns_${ns}`, `sec_${secret}`, tail);
        const out = withoutBackendNames(`${noise.replace(/occ-/g, '')} ${wrap(name)}`);
        expect(out).not.toContain(name);
        expect(out).toContain(`sec_${secret}`);
      }),
      { numRuns: 500 },
    );
  });
});
