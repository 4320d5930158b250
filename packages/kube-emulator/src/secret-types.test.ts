import type { V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFailure, b64, createNamespace, startTestCluster, type TestCluster } from './testing.ts';

// E10: the built-in Secret types and the keys each requires, as ValidateSecret checks them. The
// expected answers are the lane's kube-apiserver 1.20.2's, taken with curl (and held by this file
// on both servers): a type's missing key is a 422 naming it, a malformed docker config is named
// "<secret contents redacted>" (never echoed), other types (Opaque, custom ones) take anything.

let cluster: TestCluster;
let ns: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  ns = await createNamespace(cluster, 'secret-types');
});
afterAll(() => cluster.close());

type Case = { type: string; data?: Record<string, string>; annotations?: Record<string, string>; causes: Array<[string, string, string]> | null };

const json = (text: string) => b64(text);
const REDACTED = 'Invalid value: "<secret contents redacted>": ';

const CASES: Case[] = [
  { type: 'kubernetes.io/basic-auth', data: {}, causes: [['FieldValueRequired', 'data[%s][username]', 'Required value'], ['FieldValueRequired', 'data[%s][password]', 'Required value']] },
  { type: 'kubernetes.io/basic-auth', data: { username: '' }, causes: null },
  { type: 'kubernetes.io/basic-auth', data: { password: b64('p') }, causes: null },
  { type: 'kubernetes.io/ssh-auth', data: {}, causes: [['FieldValueRequired', 'data[%s][ssh-privatekey]', 'Required value']] },
  { type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' }, causes: [['FieldValueRequired', 'data[%s][ssh-privatekey]', 'Required value']] },
  { type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': b64('k') }, causes: null },
  { type: 'kubernetes.io/tls', data: {}, causes: [['FieldValueRequired', 'data[tls.crt]', 'Required value'], ['FieldValueRequired', 'data[tls.key]', 'Required value']] },
  { type: 'kubernetes.io/tls', data: { 'tls.crt': '' }, causes: [['FieldValueRequired', 'data[tls.key]', 'Required value']] },
  { type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' }, causes: null },
  { type: 'kubernetes.io/dockercfg', data: {}, causes: [['FieldValueRequired', 'data[.dockercfg]', 'Required value']] },
  { type: 'kubernetes.io/dockercfg', data: { '.dockercfg': json('{}') }, causes: null },
  { type: 'kubernetes.io/dockercfg', data: { '.dockercfg': json('null') }, causes: null },
  { type: 'kubernetes.io/dockercfg', data: { '.dockercfg': json('') }, causes: [['FieldValueInvalid', 'data[.dockercfg]', `${REDACTED}unexpected end of JSON input`]] },
  { type: 'kubernetes.io/dockercfg', data: { '.dockercfg': json('sk-canary') }, causes: [['FieldValueInvalid', 'data[.dockercfg]', `${REDACTED}invalid character 's' looking for beginning of value`]] },
  { type: 'kubernetes.io/dockerconfigjson', data: {}, causes: [['FieldValueRequired', 'data[.dockerconfigjson]', 'Required value']] },
  { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': json('{"auths":{}}') }, causes: null },
  {
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': json('[1]') },
    causes: [['FieldValueInvalid', 'data[.dockerconfigjson]', `${REDACTED}json: cannot unmarshal array into Go value of type map[string]interface {}`]],
  },
  {
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': json('"sk-canary"') },
    causes: [['FieldValueInvalid', 'data[.dockerconfigjson]', `${REDACTED}json: cannot unmarshal string into Go value of type map[string]interface {}`]],
  },
  { type: 'kubernetes.io/service-account-token', data: {}, causes: [['FieldValueRequired', 'metadata.annotations[kubernetes.io/service-account.name]', 'Required value']] },
  { type: 'kubernetes.io/service-account-token', annotations: { 'kubernetes.io/service-account.name': 'x' }, causes: null },
  { type: 'Opaque', data: {}, causes: null },
  { type: 'example.com/custom', data: {}, causes: null },
];

describe('E10 built-in Secret types', () => {
  it('E10 each type\'s required keys are checked as a real server checks them, and a malformed docker config is never echoed', async () => {
    const answers: string[] = [];
    const expected: string[] = [];
    for (const [i, c] of CASES.entries()) {
      const body: V1Secret = { metadata: { name: `t${i}`, ...(c.annotations ? { annotations: c.annotations } : {}) }, type: c.type, ...(c.data ? { data: c.data } : {}) };
      const label = `${c.type} ${JSON.stringify(Object.keys(c.data ?? {}))}`;
      expected.push(`${label} → ${c.causes ? `422 ${JSON.stringify(c.causes)}` : 'created'}`);
      const created = cluster.core.createNamespacedSecret({ namespace: ns, body });
      if (c.causes === null) {
        await created;
        answers.push(`${label} → created`);
        continue;
      }
      const { code, body: status } = await apiFailure(created);
      answers.push(`${label} → ${code} ${JSON.stringify((status.details?.causes ?? []).map((k) => [k.reason, k.field, k.message]))}`);
      expect(JSON.stringify(status)).not.toContain('sk-canary');
    }
    expect(answers).toEqual(expected);
  });
});
