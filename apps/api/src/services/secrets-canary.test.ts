import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { brokenRequestsCarrying, canaryForms, dumpDatabase, dumpKubernetes, findCanary } from '../test/canary.ts';
import { CREATE_SECRET, DELETE_SECRET, SECRET, UPDATE_SECRET, createReadyNamespace, createSecretOk, payload } from '../test/operations.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { retireSecretVersions } from './secret-versions.ts';

// Rule S3: a secret value lives only in request memory and its own Kubernetes Secret.
// Rule P1: no error and no log line gives it back, however the request that carried it failed.

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

  it('S3 V1 V3 a created, rotated, retired and deleted value reaches no row, log line, response or other Kubernetes object', async () => {
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

    // V1: the rotation writes version 2's own object; version 1's keeps its bytes until retired.
    const rotated = payload(await stack.gql(UPDATE_SECRET, { input: { id, value: second } }), 'updateSecret');
    expect(rotated.__typename).toBe('UpdateSecretSuccess');
    const v2 = await stack.runtime.db.secretVersion.findUniqueOrThrow({ where: { secretId_number: { secretId: id, number: 2 } } });
    const v2Key = `Secret/${v2.backendNamespace}/${v2.backendName}`;
    cluster = await dumpKubernetes(stack.core, stack.apps);
    expect([...cluster].filter(([, v]) => findCanary([v], second).length > 0).map(([key]) => key)).toEqual([v2Key]);
    expect([...cluster].filter(([, v]) => findCanary([v], first).length > 0).map(([key]) => key)).toEqual([objectKey]);

    // V3: once retired (nothing holds version 1), its bytes are gone from the cluster.
    const retired = await retireSecretVersions({ db: stack.runtime.db, secretDriver: stack.runtime.deps.secretDriver, logger: stack.runtime.deps.logger }, { now: new Date(), retentionMs: 1000 });
    expect(retired).toContainEqual({ secretId: id, number: 1, result: 'deleted' });
    cluster = await dumpKubernetes(stack.core, stack.apps);
    expect(findCanary([...cluster.values()], first)).toEqual([]);
    expect(findCanary([cluster.get(v2Key)!], second)).toHaveLength(1);

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

/** A canary that is also a GraphQL name, so it can stand where a client's key or a bare token would. */
const nameCanary = () => `CANARY_${randomBytes(12).toString('hex')}`;

async function post(body: string, contentType = 'application/json') {
  return stack.request('/graphql', { method: 'POST', headers: { 'content-type': contentType, authorization: `Bearer ${stack.bootstrapKey}` }, body });
}

describe('P1 S3 canary in failed requests', () => {
  it('P1 S3 parse, validation and coercion errors of createSecret and updateSecret echo no canary, inline or as a variable, in the answer or the log', async () => {
    const nsId = await createReadyNamespace(stack, 'canary-errors');
    const secret = await createSecretOk(stack, nsId, 'target', 'initial');
    const value = nameCanary();
    const digits = value.replace(/\D/g, '').slice(0, 15);
    const requests = brokenRequestsCarrying(value, { namespaceId: nsId, secretId: secret.id });
    expect(requests.length).toBeGreaterThan(30);
    const before = { logs: stack.logs.length, responses: stack.responses.length };
    for (const request of requests) {
      const res = await post(request.body, request.contentType);
      const text = await res.text();
      expect(res.status, request.label).toBeLessThan(500);
      const body = JSON.parse(text) as { errors?: Array<{ message: string; extensions?: { code?: unknown } }> };
      // Every one of them is refused, with a code, and the canary is not in it.
      expect(body.errors?.length, `${request.label}: ${text}`).toBeGreaterThan(0);
      for (const error of body.errors!) expect(typeof error.extensions?.code, `${request.label}: ${text}`).toBe('string');
      expect(findCanary([text], value), request.label).toEqual([]);
      expect(text.includes(digits), request.label).toBe(false);
    }
    const logs = stack.logs.slice(before.logs);
    expect(logs.length).toBeGreaterThanOrEqual(requests.length); // every refusal was logged
    expect(findCanary(logs, value)).toEqual([]);
    expect(logs.filter((l) => l.includes(digits) || l.includes('CANARY'))).toEqual([]);
    expect(findCanary(stack.responses.slice(before.responses), value)).toEqual([]);
  });

  it('P1 S3 backend failures (Kubernetes namespace deleted out of band, an API error quoting the request, a reset connection) echo no inline or variable value; the log names the operation and a hash of the document, not the document', async () => {
    const nsId = await createReadyNamespace(stack, 'canary-backend');
    const secret = await createSecretOk(stack, nsId, 'target', 'initial');
    const k8sNs = secret.backendLocator.k8sNamespace;
    const values = Array.from({ length: 8 }, () => canary());
    const before = stack.logs.length;
    // Operation names the console sends (others are logged as _other, R6), one secret name per case.
    const inline = (mutation: 'create' | 'update', label: string, value: string) =>
      mutation === 'create'
        ? `mutation CreateSecret {\n  createSecret(input: { namespaceId: "${nsId}", name: "${label.toLowerCase()}",\n    value: "${value}" }) { __typename ... on Error { code message } } }`
        : `mutation UpdateSecret {\n  updateSecret(input: { id: "${secret.id}",\n    value: "${value}" }) { __typename ... on Error { code message } } }`;
    // The value sits on a short line of its own: graphql-js' printLocation wraps long lines, which
    // would split the canary and hide a copy from the search.
    const documents: string[] = [];
    const send = async (document: string) => (documents.push(document), stack.gql(document));
    const faults = stack.runtime.emulator!.faults;
    const answers = [];
    // The API server fails with a body that quotes what it was sent (client-node keeps the body).
    const apiError = faults.add({ path: `/api/v1/namespaces/${k8sNs}/secrets`, action: { type: 'error', status: 500, message: `refused ${values[0]}` } });
    answers.push(await send(inline('create', 'FaultCreate', values[0]!)));
    answers.push(await send(inline('update', 'FaultUpdate', values[0]!)));
    faults.remove(apiError.id);
    const reset = faults.add({ path: `/api/v1/namespaces/${k8sNs}/secrets`, action: { type: 'reset' } });
    answers.push(await send(inline('create', 'ResetCreate', values[1]!)));
    answers.push(await send(inline('update', 'ResetUpdate', values[2]!)));
    faults.remove(reset.id);
    await stack.core.deleteNamespace({ name: k8sNs });
    answers.push(await send(inline('create', 'GoneCreate', values[3]!)));
    answers.push(await send(inline('update', 'GoneUpdate', values[4]!)));
    answers.push(await stack.gql(CREATE_SECRET, { input: { namespaceId: nsId, name: 'gone-variable', value: values[5] } }));
    answers.push(await stack.gql(UPDATE_SECRET, { input: { id: secret.id, value: values[6] } }));
    for (const answer of answers) {
      expect(answer.status).toBeLessThan(500);
      for (const error of answer.body.errors ?? []) expect(typeof error.extensions?.code).toBe('string');
    }
    const logs = stack.logs.slice(before);
    for (const v of values) {
      expect(findCanary(answers.map((a) => JSON.stringify(a.body)), v)).toEqual([]);
      expect(findCanary(logs, v)).toEqual([]);
    }
    // Not even a piece of one: nothing else in these requests says CANARY.
    expect(logs.filter((l) => l.includes('CANARY'))).toEqual([]);
    expect(answers.filter((a) => JSON.stringify(a.body).includes('CANARY'))).toEqual([]);
    // Requests that failed are logged by operation name and document hash, never by document.
    const requestLines = logs.filter((l) => l.includes('"documentHash"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(requestLines.length).toBeGreaterThan(0);
    const hashes = new Map(documents.map((d) => [createHash('sha256').update(d).digest('hex'), d.split(' ')[1]]));
    for (const line of requestLines) {
      expect(JSON.stringify(line)).not.toContain('mutation ');
      if (hashes.has(line.documentHash as string)) expect(line.operationName).toBe(hashes.get(line.documentHash as string));
    }
    expect(requestLines.some((l) => hashes.has(l.documentHash as string))).toBe(true);
  });
});
