import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, b64, createNamespace, startTestCluster, uniqueName, type TestCluster } from './testing.ts';

let cluster: TestCluster;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  ns = await createNamespace(cluster, 'secrets');
});
afterAll(() => cluster.close());

describe('secrets', () => {
  it('E1 create then get a secret folds stringData into base64 data', async () => {
    const created = await cluster.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'creds' }, stringData: { value: 'hunter2' }, data: { other: b64('x') } },
    });
    expect(created.kind).toBe('Secret');
    expect(created.apiVersion).toBe('v1');
    expect(created.type).toBe('Opaque');
    expect(created.stringData).toBeUndefined();
    expect(created.data).toEqual({ value: b64('hunter2'), other: b64('x') });

    const read = await cluster.core.readNamespacedSecret({ name: 'creds', namespace: ns });
    expect(read.data).toEqual({ value: b64('hunter2'), other: b64('x') });
    expect(read.metadata?.namespace).toBe(ns);
    expect(read.metadata?.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(read.metadata).not.toHaveProperty('generation'); // E7: secrets have none
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
  });

  it('E1 sets uid, a growing resourceVersion and an RFC 3339 creationTimestamp in seconds', async () => {
    const a = await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: uniqueName('a') } } });
    const b = await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: uniqueName('b') } } });
    expect(Number(b.metadata?.resourceVersion)).toBeGreaterThan(Number(a.metadata?.resourceVersion));
    expect(a.metadata?.uid).not.toBe(b.metadata?.uid);
    // client-node turns the timestamp into a Date; the wire format is checked on a custom object in crd.test.ts.
    expect(a.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(Math.abs(a.metadata!.creationTimestamp!.getTime() - Date.now())).toBeLessThan(5000);
    expect(a.metadata!.creationTimestamp!.getMilliseconds()).toBe(0);
  });

  it('E1 keeps an explicit secret type and generates names from generateName', async () => {
    const created = await cluster.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { generateName: 'tls-' }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') } },
    });
    expect(created.metadata?.name).toMatch(/^tls-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(created.type).toBe('kubernetes.io/tls');
  });

  it('E1 lists secrets of a namespace and across all namespaces with a list resourceVersion', async () => {
    const other = await createNamespace(cluster, 'other');
    const label = uniqueName('run');
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'l1', labels: { run: label } } } });
    await cluster.core.createNamespacedSecret({ namespace: other, body: { metadata: { name: 'l2', labels: { run: label } } } });

    const inNs = await cluster.core.listNamespacedSecret({ namespace: other });
    expect(inNs.kind).toBe('SecretList');
    expect(inNs.apiVersion).toBe('v1');
    expect(inNs.items.map((s) => s.metadata?.name)).toEqual(['l2']);
    expect(Number(inNs.metadata?.resourceVersion)).toBeGreaterThan(0);

    const all = await cluster.core.listSecretForAllNamespaces({ labelSelector: `run=${label}` });
    expect(all.items.map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`).sort()).toEqual([`${ns}/l1`, `${other}/l2`].sort());
  });

  it('E1 E7 replaces a secret, bumping resourceVersion on a data change; a secret has no generation', async () => {
    const created = await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'rep' }, stringData: { value: 'one' } } });
    const replaced = await cluster.core.replaceNamespacedSecret({
      name: 'rep',
      namespace: ns,
      body: { metadata: { name: 'rep', resourceVersion: created.metadata?.resourceVersion }, stringData: { value: 'two' } },
    });
    expect(replaced.data).toEqual({ value: b64('two') });
    expect(replaced.metadata).not.toHaveProperty('generation');
    expect(replaced.metadata?.uid).toBe(created.metadata?.uid);
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(created.metadata?.resourceVersion));
  });

  it('E1 replace with a stale resourceVersion is a 409 Conflict with the real message', async () => {
    const created = await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'stale' }, stringData: { value: 'a' } } });
    await cluster.core.replaceNamespacedSecret({ name: 'stale', namespace: ns, body: { ...created, stringData: { value: 'b' } } });
    const { code, body } = await apiFailure(
      cluster.core.replaceNamespacedSecret({ name: 'stale', namespace: ns, body: { ...created, stringData: { value: 'c' } } }),
    );
    expect(code).toBe(409);
    expect(body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Operation cannot be fulfilled on secrets "stale": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: { name: 'stale', kind: 'secrets' },
      code: 409,
    });
  });

  it('E1 a second create of the same name is a 409 AlreadyExists', async () => {
    await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'twice' } } });
    const { code, body } = await apiFailure(cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'twice' } } }));
    expect(code).toBe(409);
    expect(body.reason).toBe('AlreadyExists');
    expect(body.message).toBe('secrets "twice" already exists');
    expect(body.details).toEqual({ name: 'twice', kind: 'secrets' });
    expect(body.status).toBe('Failure');
  });

  it('E1 get of a missing secret is a 404 NotFound Status', async () => {
    const { code, body } = await apiFailure(cluster.core.readNamespacedSecret({ name: 'nope', namespace: ns }));
    expect(code).toBe(404);
    expect(body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'secrets "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'secrets' },
      code: 404,
    });
  });

  it('E1 create in a missing namespace is a 404 naming the namespace', async () => {
    const { code, body } = await apiFailure(
      cluster.core.createNamespacedSecret({ namespace: 'no-such-ns', body: { metadata: { name: 'x' } } }),
    );
    expect(code).toBe(404);
    expect(body.message).toBe('namespaces "no-such-ns" not found');
    expect(body.details).toEqual({ name: 'no-such-ns', kind: 'namespaces' });
  });

  it('E1 a bad name is a 422 Invalid with a FieldValueInvalid cause on metadata.name', async () => {
    const { code, body } = await apiFailure(cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'Bad_Name' } } }));
    expect(code).toBe(422);
    expect(body.reason).toBe('Invalid');
    expect(body.message).toMatch(/^Secret "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/);
    expect(body.details?.name).toBe('Bad_Name');
    expect(body.details?.kind).toBe('Secret');
    expect(body.details?.group).toBeUndefined();
    expect(body.details?.causes).toEqual([
      { reason: 'FieldValueInvalid', message: expect.stringMatching(/^Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/), field: 'metadata.name' },
    ]);
  });

  it('E1 a missing name is a 422 with a FieldValueRequired cause', async () => {
    const { code, body } = await apiFailure(cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: {} } }));
    expect(code).toBe(422);
    expect(body.message).toBe('Secret "" is invalid: metadata.name: Required value: name or generateName is required');
    expect(body.details?.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' },
    ]);
  });

  it('E1 a body namespace other than the path namespace is refused with 400, as a real server does', async () => {
    const { code, body } = await apiFailure(
      cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'elsewhere', namespace: 'default' } } }),
    );
    expect(code).toBe(400);
    expect(body.reason).toBe('BadRequest');
    expect(body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
  });

  it('E1 secret data that is not base64 is refused (400, the decoder error a real server gives)', async () => {
    const { code, body } = await apiFailure(
      cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'notb64' }, data: { value: 'not base64!' } } }),
    );
    expect(code).toBe(400);
    expect(body.reason).toBe('BadRequest');
    // A real server adds its JSON decoder's path and context around the same words (E8).
    expect(body.message).toMatch(/^Secret in version "v1" cannot be handled as a Secret: /);
    expect(body.message).toContain('illegal base64 data at input byte 3');
  });

  it('E1 an invalid data key is a 422 on data[key]', async () => {
    const { code, body } = await apiFailure(
      cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'badkey' }, data: { 'bad key': b64('v') } } }),
    );
    expect(code).toBe(422);
    expect(body.details?.causes?.[0]?.field).toBe('data[bad key]');
  });

  it('E1 deletes a secret and answers a Status Success naming it, as the real server does', async () => {
    const created = await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'gone' } } });
    const status = await cluster.core.deleteNamespacedSecret({ name: 'gone', namespace: ns });
    expect(status.status).toBe('Success');
    expect(status.details).toMatchObject({ name: 'gone', kind: 'secrets', uid: created.metadata?.uid });
    const { code } = await apiFailure(cluster.core.readNamespacedSecret({ name: 'gone', namespace: ns }));
    expect(code).toBe(404);
  });

  it('E1 delete with a wrong uid precondition is a 409 Conflict and keeps the secret', async () => {
    const created = await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'guarded' } } });
    const { code, body } = await apiFailure(
      cluster.core.deleteNamespacedSecret({ name: 'guarded', namespace: ns, body: { preconditions: { uid: 'not-the-uid' } } }),
    );
    expect(code).toBe(409);
    expect(body.reason).toBe('Conflict');
    // The generic store refuses in rest.BeforeDelete, which names the Kind, not the resource.
    expect(body.details).toEqual({ name: 'guarded', kind: 'Secret' });
    expect(body.message).toBe(
      `Operation cannot be fulfilled on Secret "guarded": the UID in the precondition (not-the-uid) does not match the UID in record (${created.metadata?.uid}). The object might have been deleted and then recreated`,
    );
    await expect(cluster.core.readNamespacedSecret({ name: 'guarded', namespace: ns })).resolves.toBeTruthy();
  });

  it('E1 delete with the right uid and resourceVersion preconditions deletes', async () => {
    const created = await cluster.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'exact' } } });
    const stale = await apiFailure(
      cluster.core.deleteNamespacedSecret({
        name: 'exact',
        namespace: ns,
        body: { preconditions: { uid: created.metadata?.uid, resourceVersion: '1' } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(stale.body.message).toBe(
      `Operation cannot be fulfilled on Secret "exact": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${created.metadata?.resourceVersion}). The object might have been modified`,
    );
    await cluster.core.deleteNamespacedSecret({
      name: 'exact',
      namespace: ns,
      body: { preconditions: { uid: created.metadata?.uid, resourceVersion: created.metadata?.resourceVersion } },
    });
    expect((await apiFailure(cluster.core.readNamespacedSecret({ name: 'exact', namespace: ns }))).code).toBe(404);
  });

  it('E1 delete of a missing secret is a 404', async () => {
    const { code, body } = await apiFailure(cluster.core.deleteNamespacedSecret({ name: 'never', namespace: ns }));
    expect(code).toBe(404);
    expect(body.message).toBe('secrets "never" not found');
  });
});
