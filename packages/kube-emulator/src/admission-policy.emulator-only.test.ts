// Validating admission policies (admission-policy.ts) and the one the install ships
// (deploy/policies/tenant-binding.yaml). Emulator only: ValidatingAdmissionPolicy is GA in
// Kubernetes 1.30, and the E8 lane's kube-apiserver 1.20 has no such API; this is emulated newer
// behaviour (REAL-SERVER-DIFFERENCES.md lists it).

import { AdmissionregistrationV1Api, RbacAuthorizationV1Api, type V1RoleBinding, type V1ValidatingAdmissionPolicy } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENCLAW_TENANT_POLICY_FILE } from './crds.ts';
import { kubectlFor, type Kubectl } from './kubectl-testing.ts';
import { apiFailure, mergePatch, startTestCluster, uniqueName, type TestCluster } from './testing.ts';

let cluster: TestCluster;
let rbac: RbacAuthorizationV1Api;
let admission: AdmissionregistrationV1Api;
let kubectl: Kubectl;

beforeAll(async () => {
  cluster = await startTestCluster({ admissionPolicyFiles: [OPENCLAW_TENANT_POLICY_FILE] });
  rbac = cluster.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  admission = cluster.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  kubectl = await kubectlFor(cluster);
});
afterAll(async () => {
  await kubectl?.close();
  await cluster?.close();
});

const OURS = { 'app.kubernetes.io/managed-by': 'openclaw-control-plane' };
const TENANT_DENIAL =
  "ValidatingAdmissionPolicy 'occ-tenant-binding' with binding 'occ-tenant-binding' denied request: occ-tenant may be bound only in namespaces labelled app.kubernetes.io/managed-by=openclaw-control-plane";

async function namespace(labels: Record<string, string> | undefined): Promise<string> {
  const name = uniqueName('vap');
  await cluster.core.createNamespace({ body: { metadata: { name, ...(labels ? { labels } : {}) } } });
  return name;
}

function roleBinding(name: string, roleRef: { kind: 'ClusterRole' | 'Role'; name: string }): V1RoleBinding {
  return {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef },
    subjects: [{ kind: 'ServiceAccount', name: 'occ-api', namespace: 'occ-system' }],
  };
}

describe('the tenant-binding policy the install ships', () => {
  it('K1 occ-tenant is bound only in a namespace labelled ours: every namespace labelling × role reference, created through the API as a cluster administrator', async () => {
    const labellings: Array<[string, Record<string, string> | undefined]> = [
      ['labelled ours', OURS],
      ['ours among other labels', { ...OURS, team: 'a' }],
      ['no labels', undefined],
      ['managed by someone else', { 'app.kubernetes.io/managed-by': 'helm' }],
      ['other labels only', { team: 'a' }],
      ['our value under another key', { 'managed-by': 'openclaw-control-plane' }],
    ];
    const refs: Array<{ kind: 'ClusterRole' | 'Role'; name: string }> = [
      { kind: 'ClusterRole', name: 'occ-tenant' },
      { kind: 'Role', name: 'occ-tenant' },
      { kind: 'ClusterRole', name: 'view' },
      { kind: 'ClusterRole', name: 'occ-tenant-other' },
    ];
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const [what, labels] of labellings) {
      const ns = await namespace(labels);
      const ours = labels?.['app.kubernetes.io/managed-by'] === 'openclaw-control-plane';
      for (const ref of refs) {
        const name = uniqueName('rb');
        const denied = ref.name === 'occ-tenant' && !ours;
        expected.push(`${what} / ${ref.kind} ${ref.name}: ${denied ? `403 rolebindings.rbac.authorization.k8s.io "${name}" is forbidden: ${TENANT_DENIAL}` : 'created'}`);
        try {
          await rbac.createNamespacedRoleBinding({ namespace: ns, body: roleBinding(name, ref) });
          outcomes.push(`${what} / ${ref.kind} ${ref.name}: created`);
        } catch (error) {
          const { code, body } = await apiFailure(Promise.reject(error));
          outcomes.push(`${what} / ${ref.kind} ${ref.name}: ${code} ${body.message}`);
        }
      }
    }
    expect(outcomes).toEqual(expected);
  });

  it('K1 an occ-tenant binding made while its namespace was ours cannot be changed once the label is gone, and the denial reads as a real server words it', async () => {
    const ns = await namespace(OURS);
    await rbac.createNamespacedRoleBinding({ namespace: ns, body: roleBinding('occ-tenant', { kind: 'ClusterRole', name: 'occ-tenant' }) });
    await cluster.core.patchNamespace({ name: ns, body: { metadata: { labels: { 'app.kubernetes.io/managed-by': null } } } }, mergePatch);
    const failure = await apiFailure(
      rbac.patchNamespacedRoleBinding({ name: 'occ-tenant', namespace: ns, body: { subjects: [{ kind: 'ServiceAccount', name: 'intruder', namespace: 'default' }] } }, mergePatch),
    );
    expect(failure).toEqual({
      code: 403,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `rolebindings.rbac.authorization.k8s.io "occ-tenant" is forbidden: ${TENANT_DENIAL}`,
        reason: 'Forbidden',
        details: { name: 'occ-tenant', group: 'rbac.authorization.k8s.io', kind: 'rolebindings', causes: [{ message: TENANT_DENIAL }] },
        code: 403,
      },
    });
    // Deleting it is not judged (the policy matches CREATE and UPDATE).
    await rbac.deleteNamespacedRoleBinding({ name: 'occ-tenant', namespace: ns });
  });

  it('K1 kubectl create rolebinding, as rbac.yaml gives it, is refused outside our namespaces with the policy named, and works inside them', async () => {
    const foreign = await namespace(undefined);
    const refused = await kubectl.run(['create', 'rolebinding', 'occ-tenant', '-n', foreign, '--clusterrole=occ-tenant', '--serviceaccount=occ-system:occ-api']);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(`error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io "occ-tenant" is forbidden: ${TENANT_DENIAL}\n`);
    const ours = await namespace(OURS);
    expect(await kubectl.ok(['create', 'rolebinding', 'occ-tenant', '-n', ours, '--clusterrole=occ-tenant', '--serviceaccount=occ-system:occ-api'])).toBe(
      'rolebinding.rbac.authorization.k8s.io/occ-tenant created\n',
    );
    expect(await kubectl.ok(['get', 'validatingadmissionpolicybindings', '-o', 'name'])).toBe('validatingadmissionpolicybinding.admissionregistration.k8s.io/occ-tenant-binding\n');
    const table = (await kubectl.ok(['get', 'validatingadmissionpolicy', 'occ-tenant-binding'])).split('\n').map((line) => line.trim().split(/\s+/));
    expect(table.slice(0, 2).map((row) => row.slice(0, 3))).toEqual([
      ['NAME', 'VALIDATIONS', 'PARAMKIND'],
      ['occ-tenant-binding', '1', '<unset>'],
    ]);
  });
});

describe('validating admission policies (a 1.30 server, emulated)', () => {
  const policy = (name: string, spec: Partial<V1ValidatingAdmissionPolicy['spec']> & object): V1ValidatingAdmissionPolicy => ({
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
      ...spec,
    },
  });
  const bind = (name: string, policyName: string, extra: object = {}) =>
    admission.createValidatingAdmissionPolicyBinding({ body: { metadata: { name }, spec: { policyName, validationActions: ['Deny'], ...extra } } });
  const configMap = (ns: string, name: string, data: Record<string, string>) => cluster.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name }, data } });

  it('E10 a false validation denies with its reason as the code, its message or "failed expression", and sees oldObject on an update; Audit alone, a missing policy and a namespace the binding does not select deny nothing', async () => {
    const selected = await namespace({ policy: 'on' });
    const other = await namespace(undefined);
    const name = uniqueName('limits');
    await admission.createValidatingAdmissionPolicy({
      body: policy(name, {
        validations: [
          { expression: "object.data.size() <= 2" },
          { expression: "oldObject == null || !('locked' in oldObject.data) || object.data == oldObject.data", message: 'locked configmaps do not change', reason: 'Forbidden' },
          { expression: "!('bad' in object.data)", messageExpression: "'the key bad holds ' + object.data['bad']" },
        ],
      }),
    });
    await bind(`${name}-deny`, name, { matchResources: { namespaceSelector: { matchLabels: { policy: 'on' } } } });
    await bind(`${name}-audit`, name, { validationActions: ['Audit'] });
    await bind(`${name}-nothing`, 'no-such-policy');

    const tooMany = await apiFailure(configMap(selected, 'many', { a: '1', b: '2', c: '3' }));
    expect(tooMany.code).toBe(422);
    expect(tooMany.body).toMatchObject({ reason: 'Invalid', message: `configmaps "many" is forbidden: ValidatingAdmissionPolicy '${name}' with binding '${name}-deny' denied request: failed expression: object.data.size() <= 2` });
    const bad = await apiFailure(configMap(selected, 'bad', { bad: 'news' }));
    expect(bad.body.message).toBe(`configmaps "bad" is forbidden: ValidatingAdmissionPolicy '${name}' with binding '${name}-deny' denied request: the key bad holds news`);
    await configMap(selected, 'locked', { locked: 'yes' });
    const changed = await apiFailure(cluster.core.patchNamespacedConfigMap({ name: 'locked', namespace: selected, body: { data: { more: 'x' } } }, mergePatch));
    expect(changed).toMatchObject({ code: 403, body: { reason: 'Forbidden', message: `configmaps "locked" is forbidden: ValidatingAdmissionPolicy '${name}' with binding '${name}-deny' denied request: locked configmaps do not change` } });
    // Only the Audit binding and the one without a policy apply here: nothing is denied.
    await configMap(other, 'many', { a: '1', b: '2', c: '3' });
    await admission.deleteValidatingAdmissionPolicyBinding({ name: `${name}-deny` });
    await configMap(selected, 'many', { a: '1', b: '2', c: '3' });
  });

  it('E10 an expression that fails to evaluate denies under failurePolicy Fail and is skipped under Ignore; policies and bindings are never judged by policies', async () => {
    const ns = await namespace({ errors: 'on' });
    for (const failurePolicy of ['Fail', 'Ignore'] as const) {
      const name = uniqueName(`errors-${failurePolicy.toLowerCase()}`);
      await admission.createValidatingAdmissionPolicy({ body: policy(name, { failurePolicy, validations: [{ expression: "object.data.required == 'x'" }] }) });
      await bind(name, name, { matchResources: { namespaceSelector: { matchLabels: { errors: 'on' } } } });
      const write = configMap(ns, uniqueName('cm'), { other: 'y' });
      if (failurePolicy === 'Ignore') await write;
      else {
        const failure = await apiFailure(write);
        expect(failure.code).toBe(422);
        expect(failure.body.message).toMatch(new RegExp(`ValidatingAdmissionPolicy '${name}' with binding '${name}' denied request: expression 'object.data.required == 'x'' resulted in error: .+`));
      }
      await admission.deleteValidatingAdmissionPolicyBinding({ name });
    }
    // A policy that refuses every write of every resource still lets policies and bindings be written.
    const everything = uniqueName('everything');
    await admission.createValidatingAdmissionPolicy({
      body: { metadata: { name: everything }, spec: { matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] }, validations: [{ expression: 'false' }] } },
    });
    await bind(everything, everything);
    expect((await apiFailure(configMap(ns, uniqueName('cm'), {}))).code).toBe(422);
    await admission.patchValidatingAdmissionPolicy({ name: everything, body: { metadata: { labels: { touched: 'yes' } } } }, mergePatch);
    await admission.deleteValidatingAdmissionPolicyBinding({ name: everything });
    await configMap(ns, uniqueName('cm'), {});
  });

  it('E10 a policy whose expression does not compile, and a binding that asks for Deny and Warn, are refused as invalid', async () => {
    const broken = await apiFailure(admission.createValidatingAdmissionPolicy({ body: policy(uniqueName('broken'), { validations: [{ expression: 'object.data.size( <= 2' }] }) }));
    expect(broken.code).toBe(422);
    expect(broken.body.details?.causes?.[0]).toMatchObject({ field: 'spec.validations[0].expression', reason: 'FieldValueInvalid' });
    expect(broken.body.details?.causes?.[0]?.message).toMatch(/^Invalid value: "object.data.size\( <= 2": compilation failed: /);
    const none = await apiFailure(admission.createValidatingAdmissionPolicy({ body: policy(uniqueName('empty'), {}) }));
    expect(none.body.details?.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value: validations or auditAnnotations must contain at least one item', field: 'spec.validations' }]);
    const both = await apiFailure(admission.createValidatingAdmissionPolicyBinding({ body: { metadata: { name: uniqueName('both') }, spec: { policyName: 'x', validationActions: ['Deny', 'Warn'] } } }));
    expect(both.code).toBe(422);
    expect(both.body.details?.causes?.[0]?.field).toBe('spec.validationActions');
    const stored = await admission.createValidatingAdmissionPolicy({ body: policy(uniqueName('defaults'), { validations: [{ expression: 'true' }] }) });
    expect(stored.spec).toMatchObject({ failurePolicy: 'Fail', matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ scope: '*' }] } });
  });
});
