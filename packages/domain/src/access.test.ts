import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTIONS, BUILT_IN_ROLES, RESOURCE_KINDS, builtInRole, covers, decide, readableSet } from './access.ts';
import type { AccessRequest, Action, BindingView, Permission, ResourceKind, RoleView, Scope } from './access.ts';

const ALICE = 'prn_alice';
const BOB = 'prn_bob';
const NS_A = 'ns_a';
const NS_B = 'ns_b';
const SECRET_1 = 'sec_1';
const SECRET_2 = 'sec_2';

const role = (name: string, permissions: Permission[]): RoleView => ({ id: `rol_${name}`, name, permissions });
const binding = (id: string, subjectId: string, r: RoleView, scope: Scope): BindingView => ({ id, subjectId, role: r, scope });

const INSTALLATION: Scope = { kind: 'installation' };
const nsScope = (namespaceId: string): Scope => ({ kind: 'namespace', namespaceId });
const resourceScope = (resourceKind: ResourceKind, resourceId: string, namespaceId: string | null = NS_A): Scope => ({
  kind: 'resource',
  resourceKind,
  resourceId,
  namespaceId,
});

const ask = (over: Partial<AccessRequest> = {}): AccessRequest => ({
  subjectId: ALICE,
  action: 'read',
  resourceKind: 'secret',
  namespaceId: NS_A,
  resourceId: SECRET_1,
  ...over,
});

const secretReader = role('secret-reader', [{ action: 'read', resourceKind: 'secret' }]);

describe('decide: scopes', () => {
  it('an installation-scope binding covers any namespace, a collection and an installation-level request', () => {
    const bindings = [binding('bnd_1', ALICE, secretReader, INSTALLATION)];
    expect(decide(bindings, ask()).allowed).toBe(true);
    expect(decide(bindings, ask({ namespaceId: NS_B, resourceId: SECRET_2 })).allowed).toBe(true);
    expect(decide(bindings, ask({ resourceId: null })).allowed).toBe(true);
    expect(decide(bindings, ask({ namespaceId: null, resourceId: null })).allowed).toBe(true);
  });

  it('a namespace-scope binding covers resources and collections in that namespace only', () => {
    const bindings = [binding('bnd_1', ALICE, secretReader, nsScope(NS_A))];
    expect(decide(bindings, ask()).allowed).toBe(true);
    expect(decide(bindings, ask({ resourceId: null })).allowed).toBe(true);
    expect(decide(bindings, ask({ resourceId: SECRET_2 })).allowed).toBe(true);
    expect(decide(bindings, ask({ namespaceId: NS_B })).allowed).toBe(false);
    expect(decide(bindings, ask({ namespaceId: NS_B, resourceId: null })).allowed).toBe(false);
  });

  it('a namespace-scope binding does not cover a request outside any namespace', () => {
    const bindings = [binding('bnd_1', ALICE, secretReader, nsScope(NS_A))];
    expect(decide(bindings, ask({ namespaceId: null })).allowed).toBe(false);
    expect(decide(bindings, ask({ namespaceId: null, resourceId: null })).allowed).toBe(false);
  });

  it('a resource-scope binding covers that exact resource only', () => {
    const bindings = [binding('bnd_1', ALICE, secretReader, resourceScope('secret', SECRET_1))];
    expect(decide(bindings, ask()).allowed).toBe(true);
    expect(decide(bindings, ask({ resourceId: SECRET_2 })).allowed).toBe(false);
    // Not the collection it lives in: "create a secret in namespace A" is not about SECRET_1.
    expect(decide(bindings, ask({ resourceId: null })).allowed).toBe(false);
  });

  it('a resource-scope binding does not cover another kind that happens to share the id', () => {
    const readsAll = role('reads-all', RESOURCE_KINDS.map((resourceKind) => ({ action: 'read' as const, resourceKind })));
    const bindings = [binding('bnd_1', ALICE, readsAll, resourceScope('secret', 'shared-id'))];
    expect(decide(bindings, ask({ resourceKind: 'secret', resourceId: 'shared-id' })).allowed).toBe(true);
    expect(decide(bindings, ask({ resourceKind: 'configuration', resourceId: 'shared-id' })).allowed).toBe(false);
    expect(decide(bindings, ask({ resourceKind: 'agent', resourceId: 'shared-id' })).allowed).toBe(false);
  });

  it('a resource-scope binding on a namespace does not reach the resources inside it', () => {
    const admin = builtInRole('installation-admin');
    const bindings = [binding('bnd_1', ALICE, admin, resourceScope('namespace', NS_A, null))];
    expect(decide(bindings, ask({ resourceKind: 'namespace', resourceId: NS_A, namespaceId: NS_A })).allowed).toBe(true);
    expect(decide(bindings, ask({ resourceKind: 'secret', resourceId: SECRET_1, namespaceId: NS_A })).allowed).toBe(false);
    expect(decide(bindings, ask({ resourceKind: 'secret', resourceId: null, namespaceId: NS_A, action: 'create' })).allowed).toBe(false);
  });

  it('a permission on another kind grants nothing', () => {
    const bindings = [binding('bnd_1', ALICE, role('cfg-reader', [{ action: 'read', resourceKind: 'configuration' }]), INSTALLATION)];
    expect(decide(bindings, ask({ resourceKind: 'secret' })).allowed).toBe(false);
  });
});

describe('decide: no action implies another', () => {
  const otherActions = (action: Action): Action[] => ACTIONS.filter((a) => a !== action);

  it.each(ACTIONS.map((a) => [a]))('a role with only %s on secrets at installation scope allows nothing else', (action) => {
    const bindings = [binding('bnd_1', ALICE, role(`only-${action}`, [{ action, resourceKind: 'secret' }]), INSTALLATION)];
    expect(decide(bindings, ask({ action })).allowed).toBe(true);
    for (const other of otherActions(action)) {
      expect(decide(bindings, ask({ action: other })).allowed, `${action} must not imply ${other}`).toBe(false);
    }
  });

  it('administer does not imply read', () => {
    const bindings = [binding('bnd_1', ALICE, role('sec-admin', [{ action: 'administer', resourceKind: 'secret' }]), INSTALLATION)];
    expect(decide(bindings, ask({ action: 'administer' })).allowed).toBe(true);
    expect(decide(bindings, ask({ action: 'read' })).allowed).toBe(false);
  });

  it('operate does not imply read', () => {
    const bindings = [binding('bnd_1', ALICE, builtInRole('secret-operator'), resourceScope('secret', SECRET_1))];
    expect(decide(bindings, ask({ action: 'operate' })).allowed).toBe(true);
    expect(decide(bindings, ask({ action: 'read' })).allowed).toBe(false);
  });

  it('administer on the installation kind does not imply anything on secrets', () => {
    const bindings = [binding('bnd_1', ALICE, role('inst-admin-only', [{ action: 'administer', resourceKind: 'installation' }]), INSTALLATION)];
    expect(decide(bindings, ask({ resourceKind: 'installation', action: 'administer', namespaceId: null, resourceId: null })).allowed).toBe(true);
    for (const action of ACTIONS) {
      expect(decide(bindings, ask({ action })).allowed).toBe(false);
    }
  });
});

describe('decide: subjects and evidence', () => {
  it('ignores bindings of other subjects', () => {
    const bindings = [
      binding('bnd_bob_inst', BOB, builtInRole('installation-admin'), INSTALLATION),
      binding('bnd_bob_ns', BOB, secretReader, nsScope(NS_A)),
    ];
    const decision = decide(bindings, ask());
    expect(decision.allowed).toBe(false);
    expect(decision.evidence).toEqual([]);
    expect(decide(bindings, ask({ subjectId: BOB })).allowed).toBe(true);
  });

  it('a denial carries the request and no evidence', () => {
    const request = ask({ action: 'delete' });
    const decision = decide([binding('bnd_1', ALICE, secretReader, INSTALLATION)], request);
    expect(decision).toEqual({ allowed: false, request, evidence: [] });
  });

  it('denies with no bindings at all', () => {
    expect(decide([], ask())).toEqual({ allowed: false, request: ask(), evidence: [] });
  });

  it('evidence lists exactly the bindings that allowed it, in order', () => {
    const writer = role('secret-writer', [{ action: 'update', resourceKind: 'secret' }]);
    const bindings = [
      binding('bnd_inst', ALICE, secretReader, INSTALLATION),
      binding('bnd_wrong_action', ALICE, writer, INSTALLATION),
      binding('bnd_ns_a', ALICE, secretReader, nsScope(NS_A)),
      binding('bnd_ns_b', ALICE, secretReader, nsScope(NS_B)),
      binding('bnd_other_secret', ALICE, secretReader, resourceScope('secret', SECRET_2)),
      binding('bnd_bob', BOB, secretReader, INSTALLATION),
      binding('bnd_exact', ALICE, secretReader, resourceScope('secret', SECRET_1)),
    ];
    const decision = decide(bindings, ask());
    expect(decision.allowed).toBe(true);
    expect(decision.evidence).toEqual([
      { bindingId: 'bnd_inst', roleId: 'rol_secret-reader', roleName: 'secret-reader', scope: INSTALLATION },
      { bindingId: 'bnd_ns_a', roleId: 'rol_secret-reader', roleName: 'secret-reader', scope: nsScope(NS_A) },
      { bindingId: 'bnd_exact', roleId: 'rol_secret-reader', roleName: 'secret-reader', scope: resourceScope('secret', SECRET_1) },
    ]);
  });

  it('lists a binding once even when its role grants the permission twice', () => {
    const doubled = role('doubled', [
      { action: 'read', resourceKind: 'secret' },
      { action: 'read', resourceKind: 'secret' },
    ]);
    const decision = decide([binding('bnd_1', ALICE, doubled, INSTALLATION)], ask());
    expect(decision.evidence.map((e) => e.bindingId)).toEqual(['bnd_1']);
  });
});

describe('built-in roles', () => {
  const grants = (r: RoleView, action: Action, resourceKind: ResourceKind): boolean =>
    r.permissions.some((p) => p.action === action && p.resourceKind === resourceKind);

  it('have unique names and ids prefixed rol_', () => {
    const names = BUILT_IN_ROLES.map((r) => r.name);
    const ids = BUILT_IN_ROLES.map((r) => r.id);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^rol_/);
  });

  it('builtInRole finds a role by name and throws for an unknown one', () => {
    expect(builtInRole('secret-operator').id).toBe('rol_secret-operator');
    expect(() => builtInRole('root')).toThrow(/no built-in role root/);
  });

  it('secret-operator is exactly [{operate, secret}]', () => {
    expect(builtInRole('secret-operator').permissions).toEqual([{ action: 'operate', resourceKind: 'secret' }]);
  });

  it('namespace-viewer only reads', () => {
    const viewer = builtInRole('namespace-viewer');
    expect(viewer.permissions.length).toBeGreaterThan(0);
    for (const p of viewer.permissions) expect(p.action).toBe('read');
    const bindings = [binding('bnd_1', ALICE, viewer, nsScope(NS_A))];
    expect(decide(bindings, ask({ action: 'read' })).allowed).toBe(true);
    for (const action of ACTIONS.filter((a) => a !== 'read')) {
      for (const resourceKind of RESOURCE_KINDS) {
        expect(decide(bindings, ask({ action, resourceKind })).allowed, `${action} ${resourceKind}`).toBe(false);
      }
    }
  });

  it('namespace-viewer bound in one namespace reads nothing in another', () => {
    const bindings = [binding('bnd_1', ALICE, builtInRole('namespace-viewer'), nsScope(NS_A))];
    expect(decide(bindings, ask({ namespaceId: NS_B })).allowed).toBe(false);
  });

  it('installation-admin covers every action × kind, each exactly once', () => {
    const admin = builtInRole('installation-admin');
    expect(admin.permissions).toHaveLength(ACTIONS.length * RESOURCE_KINDS.length);
    const keys = new Set(admin.permissions.map((p) => `${p.action}/${p.resourceKind}`));
    expect(keys.size).toBe(admin.permissions.length);
    const bindings = [binding('bnd_1', ALICE, admin, INSTALLATION)];
    for (const action of ACTIONS) {
      for (const resourceKind of RESOURCE_KINDS) {
        expect(grants(admin, action, resourceKind)).toBe(true);
        const decision = decide(bindings, ask({ action, resourceKind, namespaceId: null, resourceId: null }));
        expect(decision.allowed, `${action} ${resourceKind}`).toBe(true);
        expect(decision.evidence).toEqual([{ bindingId: 'bnd_1', roleId: 'rol_installation-admin', roleName: 'installation-admin', scope: INSTALLATION }]);
      }
    }
  });

  it('namespace-admin grants nothing on installation-wide kinds, and only read on the audit trail', () => {
    const nsAdmin = builtInRole('namespace-admin');
    for (const action of ACTIONS) {
      expect(grants(nsAdmin, action, 'installation')).toBe(false);
      expect(grants(nsAdmin, action, 'principal')).toBe(false);
      expect(grants(nsAdmin, action, 'auditEvent')).toBe(action === 'read');
    }
  });

  it('namespace-editor deploys agents only and never operates or administers', () => {
    const editor = builtInRole('namespace-editor');
    expect(grants(editor, 'deploy', 'agent')).toBe(true);
    expect(editor.permissions.filter((p) => p.action === 'deploy')).toEqual([{ action: 'deploy', resourceKind: 'agent' }]);
    expect(editor.permissions.some((p) => p.action === 'operate' || p.action === 'administer')).toBe(false);
    expect(grants(editor, 'read', 'namespace')).toBe(true);
    expect(grants(editor, 'delete', 'namespace')).toBe(false);
  });
});

describe('readableSet', () => {
  it('A2 P6 a row is in the readable set exactly when decide allows reading it, for any bindings (generated)', () => {
    const ns = fc.constantFrom('ns_a', 'ns_b');
    const res = fc.constantFrom('sec_1', 'sec_2', 'cfg_1', 'ns_a');
    const scope: fc.Arbitrary<Scope> = fc.oneof(
      fc.constant({ kind: 'installation' } as const),
      ns.map((namespaceId) => ({ kind: 'namespace', namespaceId }) as const),
      fc.tuple(fc.constantFrom<ResourceKind>('secret', 'configuration', 'namespace'), res, fc.option(ns, { nil: null })).map(
        ([resourceKind, resourceId, namespaceId]) => ({ kind: 'resource', resourceKind, resourceId, namespaceId }) as const,
      ),
    );
    const binding = fc.record({
      subjectId: fc.constantFrom('prn_me', 'prn_other'),
      scope,
      permissions: fc.array(fc.record({ action: fc.constantFrom<Action>('read', 'update'), resourceKind: fc.constantFrom<ResourceKind>('secret', 'configuration', 'namespace') }), { maxLength: 3 }),
    });
    const row = fc.record({ id: res, namespaceId: fc.option(ns, { nil: null }) });
    fc.assert(
      fc.property(fc.array(binding, { maxLength: 5 }), fc.constantFrom<ResourceKind>('secret', 'configuration', 'namespace'), row, (raw, kind, r) => {
        const bindings: BindingView[] = raw.map((b, i) => ({ id: `bnd_${i}`, subjectId: b.subjectId, scope: b.scope, role: { id: `rol_${i}`, name: `r${i}`, permissions: b.permissions } }));
        const set = readableSet(bindings, 'prn_me', 'read', kind);
        const allowed = decide(bindings, { subjectId: 'prn_me', action: 'read', resourceKind: kind, namespaceId: r.namespaceId, resourceId: r.id }).allowed;
        expect(covers(set, r)).toBe(allowed);
      }),
      { numRuns: 1000 },
    );
  });
});
