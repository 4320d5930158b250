import { expect } from 'vitest';
import type { GqlResult, TestStack } from './stack.ts';

// The GraphQL documents tests use, written as a client would.

export const CREATE_NAMESPACE = `mutation($input: CreateNamespaceInput!) { createNamespace(input: $input) {
  __typename ... on CreateNamespaceSuccess { namespace { id name status } } ... on Error { code message } ... on ValidationError { field } } }`;

export const NAMESPACE = `query($id: ID!) { namespace(id: $id) { id name status statusMessage } }`;

export const CREATE_SECRET = `mutation($input: CreateSecretInput!) { createSecret(input: $input) {
  __typename
  ... on CreateSecretSuccess { secret { id name version createdAt updatedAt reference { kind namespaceId id } backendLocator { k8sNamespace name key uid } } }
  ... on Error { code message }
  ... on ValidationError { field }
  ... on NamespaceNotReadyError { namespaceStatus } } }`;

export const UPDATE_SECRET = `mutation($input: UpdateSecretInput!) { updateSecret(input: $input) {
  __typename
  ... on UpdateSecretSuccess { secret { id version reference { kind namespaceId id } } delivery { stored delivered message staleRevisionIds } }
  ... on Error { code message } ... on ValidationError { field } } }`;

export const DELETE_SECRET = `mutation($input: DeleteSecretInput!) { deleteSecret(input: $input) {
  __typename
  ... on DeleteSecretSuccess { deletedSecretId }
  ... on SecretInUseError { consumers { total hiddenCount items { kind id name } } }
  ... on Error { code message } } }`;

export const SECRET = `query($id: ID!) { secret(id: $id) { id name version reference { kind namespaceId id } backendLocator { name uid } } }`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked by assertions
export function payload(result: GqlResult, field: string): Record<string, any> {
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  return result.body.data![field];
}

export async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function createReadyNamespace(stack: TestStack, name: string, key?: string): Promise<string> {
  const created = payload(await stack.gql(CREATE_NAMESPACE, { input: { name } }, { key }), 'createNamespace');
  expect(created.__typename).toBe('CreateNamespaceSuccess');
  const id: string = created.namespace.id;
  await waitFor(async () => (await stack.gql(NAMESPACE, { id })).body.data?.namespace?.status === 'READY', `namespace ${name} READY`);
  return id;
}

export async function createSecretOk(stack: TestStack, namespaceId: string, name: string, value: string, key?: string) {
  const result = payload(await stack.gql(CREATE_SECRET, { input: { namespaceId, name, value } }, { key }), 'createSecret');
  expect(result.__typename, JSON.stringify(result)).toBe('CreateSecretSuccess');
  return result.secret as { id: string; name: string; version: number; reference: { kind: string; namespaceId: string; id: string }; backendLocator: { k8sNamespace: string; name: string; key: string; uid: string } };
}

export const CREATE_CONFIGURATION = `mutation($input: CreateConfigurationInput!) { createConfiguration(input: $input) {
  __typename
  ... on CreateConfigurationSuccess { configuration { id name generation values secretBindings { envName source { kind namespaceId id } delivery { type } } } }
  ... on Error { code message } ... on ValidationError { field } } }`;

export const UPDATE_CONFIGURATION = `mutation($input: UpdateConfigurationInput!) { updateConfiguration(input: $input) {
  __typename
  ... on UpdateConfigurationSuccess { configuration { id generation values secretBindings { envName source { id } } } }
  ... on Error { code message } ... on ValidationError { field } } }`;

export const CREATE_AGENT = `mutation($input: CreateAgentInput!) { createAgent(input: $input) {
  __typename
  ... on CreateAgentSuccess { servicePrincipalId agent { id name servicePrincipalId servicePrincipal { id kind name } configuration { id } harnessAuth { provider envName source { id } } selfConfigure { enabled allowedActions } } }
  ... on Error { code message } ... on ValidationError { field } } }`;

export const UPDATE_AGENT = `mutation($input: UpdateAgentInput!) { updateAgent(input: $input) {
  __typename
  ... on UpdateAgentSuccess { agent { id configuration { id } harnessAuth { provider envName source { id } } selfConfigure { enabled allowedActions } } }
  ... on Error { code message } ... on ValidationError { field } } }`;

export function binding(envName: string, secretId: string, extra: Record<string, unknown> = {}) {
  return { envName, source: { id: secretId }, ...extra };
}

export const DEPLOY_AGENT = `mutation($input: DeployAgentInput!) { deployAgent(input: $input) { __typename ... on DeployAgentSuccess { revision { id number } } ... on Error { code message } } }`;
const REVISION_STATE = `query($id: ID!) { node(id: $id) { ... on AgentRevision { id state failure { code message } } } }`;

/** Deploys the agent and waits until the revision is ACTIVE (a FAILED one fails the test with its failure); answers the revision id. */
export async function deployToActive(stack: TestStack, agentId: string, timeoutMs = 90_000): Promise<string> {
  const r = payload(await stack.gql(DEPLOY_AGENT, { input: { agentId } }), 'deployAgent');
  if (r.__typename !== 'DeployAgentSuccess') throw new Error(`deployAgent: ${JSON.stringify(r)}`);
  const done = await waitFor(async () => {
    const rev = payload(await stack.gql(REVISION_STATE, { id: r.revision.id }), 'node');
    return ['ACTIVE', 'FAILED'].includes(rev.state) ? rev : null;
  }, 'the revision to end', timeoutMs);
  if (done.state !== 'ACTIVE' || done.failure !== null) throw new Error(`the revision did not become ACTIVE: ${JSON.stringify(done)}`);
  return r.revision.id as string;
}
