import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryForms, dumpDatabase, dumpKubernetes, findCanary } from '../test/canary.ts';
import { CREATE_SECRET, DELETE_SECRET, SECRET, UPDATE_SECRET, createReadyNamespace, payload } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

// Rule S3: a secret value lives only in request memory and its own Kubernetes Secret.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.close());

const canary = () => `CANARY-${randomBytes(12).toString('hex')}`;

describe('S3 canary', () => {
  it('the canary forms include base64 at every alignment, so an encoded copy is found', () => {
    const c = 'CANARY-0123456789abcdef';
    for (const prefix of ['', 'x', 'xy']) {
      const encoded = Buffer.from(`${prefix}${c}tail`).toString('base64');
      expect(findCanary([encoded], c)).toHaveLength(1);
    }
    expect(findCanary(['nothing to see'], c)).toHaveLength(0);
    expect(canaryForms(c).length).toBeGreaterThan(2);
  });

  it('S3 a created, rotated and deleted value reaches no row, log line, response or other Kubernetes object', async () => {
    const first = canary();
    const second = canary();
    const nsId = await createReadyNamespace(stack, 'canary-team');

    const created = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'canary', value: first } }), 'createSecret');
    expect(created.__typename).toBe('CreateSecretSuccess');
    const id: string = created.secret.id;
    const objectKey = `Secret/${created.secret.backendLocator.k8sNamespace}/${created.secret.backendLocator.name}`;

    // Bad input carrying the canary must not echo it either (graphql-js would, unredacted).
    await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'canary-2', value: first, unknownField: true } });
    await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'Bad Name', value: first } });

    // While it exists, the same search finds it in its own Kubernetes Secret, and only there.
    let cluster = await dumpKubernetes(stack.core, stack.apps);
    expect(findCanary([cluster.get(objectKey)!], first)).toHaveLength(1);
    const elsewhere = [...cluster.entries()].filter(([key]) => key !== objectKey).map(([, v]) => v);
    expect(findCanary(elsewhere, first)).toEqual([]);
    expect(findCanary(await dumpDatabase(stack.databaseUrl), first)).toEqual([]);

    const rotated = payload(await stack.gql(UPDATE_SECRET, { input: { id, value: second } }), 'updateSecret');
    expect(rotated.__typename).toBe('UpdateSecretSuccess');
    cluster = await dumpKubernetes(stack.core, stack.apps);
    expect(findCanary([cluster.get(objectKey)!], second)).toHaveLength(1);
    expect(findCanary([...cluster.values()], first)).toEqual([]);

    await stack.gql(SECRET, { id });
    const deleted = payload(await stack.gql(DELETE_SECRET, { input: { id } }), 'deleteSecret');
    expect(deleted.__typename).toBe('DeleteSecretSuccess');

    const rows = await dumpDatabase(stack.databaseUrl);
    expect(rows.length).toBeGreaterThan(10); // the dump really read the tables
    cluster = await dumpKubernetes(stack.core, stack.apps);
    for (const value of [first, second]) {
      expect(findCanary(rows, value)).toEqual([]);
      expect(findCanary(stack.logs, value)).toEqual([]);
      expect(findCanary(stack.responses, value)).toEqual([]);
      expect(findCanary(cluster.values(), value)).toEqual([]);
    }
    expect(stack.logs.length).toBeGreaterThan(0);
    expect(stack.responses.length).toBeGreaterThan(5);
  });
});
