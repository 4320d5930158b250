import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { modelCredentialEnv } from '@occ/domain/configuration';

// Q1: `npm run first-agent`. Against the installation `npm start` runs, and no other: it reads
// that installation's state marker (state.json in its data directory), refuses a profile it cannot
// serve, and proves over GraphQL that the server at the recorded URL is that installation (the
// key it is given must be that installation's bootstrap principal's). Then, with that key, it
// creates or reuses a Secret holding the model key, a Configuration recording the model, and a
// named Agent; grants the Agent's principal operate on exactly that Secret (grantAccess, audited);
// deploys and waits for the revision to be active. Everything stays in place.

export const DEFAULT_MODEL = 'openai/gpt-6-astra';
export const NAMES = { namespace: 'first-agent', secret: 'first-agent-model-key', configuration: 'first-agent', agent: 'first-agent' } as const;
const MARKER_VERSION = 1;
/** A plain model id: provider/model, no URL, no options. The provider must be one harnessAuth knows. */
const MODEL_ID = /^([a-z0-9-]{1,32})\/([A-Za-z0-9][A-Za-z0-9._:-]{0,127})$/;

export class FirstAgentRefusal extends Error {
  constructor(
    readonly code: 'NO_INSTALLATION' | 'OTHER_INSTALLATION' | 'UNSUPPORTED_PROFILE' | 'NOT_RUNNING' | 'NOT_BOOTSTRAP_KEY' | 'INVALID_MODEL' | 'MODEL_CONFLICT' | 'NO_MODEL_KEY' | 'REFUSED' | 'DEPLOY_FAILED',
    message: string,
  ) {
    super(message);
    this.name = 'FirstAgentRefusal';
  }
}

export interface StateMarker {
  version: number;
  installationId: string;
  bootstrapPrincipalId: string;
  graphqlUrl: string;
  embedded: { postgres: boolean; kubernetes: boolean };
  profile: { compute: string; sandbox: string };
}

export interface FirstAgentOptions {
  dataDir: string;
  /** The bootstrap API key (OCC_BOOTSTRAP_KEY, or asked for). */
  bootstrapKey: () => Promise<string>;
  /** OPENCLAW_FIRST_AGENT_MODEL, or null. */
  modelOverride: string | null;
  /** The model key for a provider's env name (from the environment, or asked for without echo). */
  modelKey: (envName: string) => Promise<string>;
  out: (line: string) => void;
  deployTimeoutMs?: number;
  fetch?: typeof fetch;
}

export interface FirstAgentResult {
  namespaceId: string;
  secretId: string;
  configurationId: string;
  agentId: string;
  servicePrincipalId: string;
  revisionId: string;
  model: string;
  created: { namespace: boolean; secret: boolean; configuration: boolean; agent: boolean; grant: boolean };
  modelCheck: { checked: false; reason: string };
}

/** Reads and checks the marker `npm start` writes; every way it can be unusable is an explicit refusal. */
export async function readStateMarker(dataDir: string): Promise<StateMarker> {
  const file = path.join(dataDir, 'state.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new FirstAgentRefusal('NO_INSTALLATION', `No installation started by \`npm start\` at ${dataDir}: ${file} does not exist. Start the product with \`npm start\` (same OCC_DATA_DIR), then run this again.`);
  }
  let marker: Partial<StateMarker>;
  try {
    marker = JSON.parse(text) as Partial<StateMarker>;
  } catch {
    throw new FirstAgentRefusal('NO_INSTALLATION', `${file} is not an installation's state marker (not JSON).`);
  }
  if (marker.version !== MARKER_VERSION || typeof marker.installationId !== 'string' || typeof marker.bootstrapPrincipalId !== 'string' || typeof marker.graphqlUrl !== 'string') {
    throw new FirstAgentRefusal('NO_INSTALLATION', `${file} was written by another version of the product (marker version ${String(marker.version ?? 'none')}, expected ${MARKER_VERSION}); restart \`npm start\` to rewrite it.`);
  }
  const profile = marker.profile ?? { compute: 'unknown', sandbox: 'unknown' };
  if (profile.compute !== 'kubernetes' || profile.sandbox !== 'none') {
    throw new FirstAgentRefusal(
      'UNSUPPORTED_PROFILE',
      `Unsupported profile: this installation runs compute "${profile.compute}" with sandbox "${profile.sandbox}"; first-agent serves only Kubernetes compute with sandbox "none".`,
    );
  }
  return marker as StateMarker;
}

export function resolveModel(override: string | null, recorded: string | null): string {
  if (override !== null && !MODEL_ID.test(override)) {
    throw new FirstAgentRefusal('INVALID_MODEL', 'OPENCLAW_FIRST_AGENT_MODEL must be a plain model id, provider/model (e.g. openai/gpt-6-astra).');
  }
  if (override !== null && !modelCredentialEnv(override.split('/')[0]!)) {
    throw new FirstAgentRefusal('INVALID_MODEL', `OPENCLAW_FIRST_AGENT_MODEL names provider "${override.split('/')[0]}", which harnessAuth does not serve (openai, anthropic, google, mistral, groq, openrouter, xai, deepseek).`);
  }
  if (recorded !== null) {
    if (override !== null && override !== recorded) {
      throw new FirstAgentRefusal('MODEL_CONFLICT', `The first agent was set up with model ${recorded}; OPENCLAW_FIRST_AGENT_MODEL=${override} conflicts with it. Unset it to keep ${recorded}.`);
    }
    return recorded;
  }
  return override ?? DEFAULT_MODEL;
}

function recordedModel(values: unknown): string | null {
  const model = (values as { agents?: { defaults?: { model?: { primary?: unknown } } } } | null)?.agents?.defaults?.model?.primary;
  return typeof model === 'string' ? model : null;
}

type Gql = <T = Record<string, any>>(query: string, variables?: Record<string, unknown>) => Promise<T>; // eslint-disable-line @typescript-eslint/no-explicit-any

function client(url: string, key: string, doFetch: typeof fetch): Gql {
  return async (query, variables = {}) => {
    let res: Response;
    try {
      res = await doFetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query, variables }) });
    } catch {
      throw new FirstAgentRefusal('NOT_RUNNING', `The installation recorded in state.json does not answer at ${url}: is \`npm start\` still running?`);
    }
    const body = (await res.json().catch(() => ({}))) as { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> };
    if (body.errors?.length) {
      const e = body.errors[0]!;
      if (e.extensions?.code === 'UNAUTHENTICATED') throw new FirstAgentRefusal('NOT_BOOTSTRAP_KEY', 'The API key was refused: give the bootstrap key `npm start` printed (OCC_BOOTSTRAP_KEY).');
      throw new FirstAgentRefusal('REFUSED', `GraphQL refused a request: ${e.extensions?.code ?? 'ERROR'}: ${e.message}`);
    }
    return body.data as never;
  };
}

/** A mutation's result union: the success, or a refusal naming the code. */
function ok<T extends { __typename: string }>(result: T, what: string): T {
  if (!result.__typename.endsWith('Success')) {
    const r = result as unknown as { code?: string; message?: string };
    throw new FirstAgentRefusal('REFUSED', `${what} was refused: ${r.code ?? result.__typename}: ${r.message ?? ''}`);
  }
  return result;
}

const ERR = '... on Error { code message }';

export async function runFirstAgent(options: FirstAgentOptions): Promise<FirstAgentResult> {
  const marker = await readStateMarker(options.dataDir);
  // A malformed override is refused before anything is written; a conflicting one once the record is read.
  resolveModel(options.modelOverride, null);
  const gql = client(marker.graphqlUrl, await options.bootstrapKey(), options.fetch ?? fetch);
  const out = options.out;

  // The server must be the installation the marker describes: its bootstrap principal, whose id
  // is random per installation, is the one recorded, and the key is that principal's.
  const { viewer } = await gql<{ viewer: { id: string } | null }>(`{ viewer { id } }`);
  if (!viewer) throw new FirstAgentRefusal('NOT_BOOTSTRAP_KEY', 'The API key was refused: give the bootstrap key `npm start` printed (OCC_BOOTSTRAP_KEY).');
  if (viewer.id !== marker.bootstrapPrincipalId) {
    throw new FirstAgentRefusal(
      'OTHER_INSTALLATION',
      `The server at ${marker.graphqlUrl} answered for principal ${viewer.id}, not installation ${marker.installationId}'s bootstrap principal ${marker.bootstrapPrincipalId}: it is another installation, or the key is not its bootstrap key. Nothing was changed.`,
    );
  }
  const created = { namespace: false, secret: false, configuration: false, agent: false, grant: false };

  // The namespace, ready.
  const nsPage = await gql(`query($p: String) { namespaces(first: 100, namePrefix: $p) { edges { node { id name status } } } }`, { p: NAMES.namespace });
  let ns = nsPage.namespaces.edges.map((e: { node: { id: string; name: string; status: string } }) => e.node).find((n: { name: string }) => n.name === NAMES.namespace);
  if (!ns) {
    ns = ok((await gql(`mutation($i: CreateNamespaceInput!) { createNamespace(input: $i) { __typename ... on CreateNamespaceSuccess { namespace { id name status } } ${ERR} } }`, { i: { name: NAMES.namespace } })).createNamespace, 'createNamespace').namespace;
    created.namespace = true;
  }
  const nsId: string = ns.id;
  for (const deadline = Date.now() + 60_000; ns.status !== 'READY'; ) {
    if (ns.status === 'FAILED') throw new FirstAgentRefusal('REFUSED', `Namespace ${NAMES.namespace} failed to provision.`);
    if (Date.now() > deadline) throw new FirstAgentRefusal('REFUSED', `Namespace ${NAMES.namespace} is not ready after 60 s.`);
    await new Promise((r) => setTimeout(r, 250));
    ns = (await gql(`query($id: ID!) { namespace(id: $id) { id name status } }`, { id: nsId })).namespace;
  }

  // The configuration records the model: a repeat keeps it.
  const cfgPage = await gql(`query($ns: ID!, $p: String) { namespace(id: $ns) { configurations(first: 100, namePrefix: $p) { edges { node { id name values } } } } }`, { ns: nsId, p: NAMES.configuration });
  const existingCfg = cfgPage.namespace.configurations.edges.map((e: { node: { id: string; name: string; values: unknown } }) => e.node).find((c: { name: string }) => c.name === NAMES.configuration);
  const model = resolveModel(options.modelOverride, existingCfg ? recordedModel(existingCfg.values) : null);
  const provider = model.split('/')[0]!;
  const keyEnv = modelCredentialEnv(provider)!;

  const secretPage = await gql(`query($ns: ID!, $p: String) { namespace(id: $ns) { secrets(first: 100, namePrefix: $p) { edges { node { id name } } } } }`, { ns: nsId, p: NAMES.secret });
  let secretId: string | undefined = secretPage.namespace.secrets.edges.map((e: { node: { id: string; name: string } }) => e.node).find((s: { name: string }) => s.name === NAMES.secret)?.id;
  if (!secretId) {
    const value = await options.modelKey(keyEnv);
    if (!value) throw new FirstAgentRefusal('NO_MODEL_KEY', `No model key: set ${keyEnv}, or run in a terminal to be asked for it.`);
    secretId = ok(
      (await gql(`mutation($i: CreateSecretInput!) { createSecret(input: $i) { __typename ... on CreateSecretSuccess { secret { id } } ${ERR} } }`, { i: { namespaceId: nsId, name: NAMES.secret, value } })).createSecret,
      'createSecret',
    ).secret.id as string;
    created.secret = true;
  }

  let configurationId: string = existingCfg?.id;
  if (!configurationId) {
    const values = { agents: { defaults: { model: { primary: model } } } };
    configurationId = ok(
      (await gql(`mutation($i: CreateConfigurationInput!) { createConfiguration(input: $i) { __typename ... on CreateConfigurationSuccess { configuration { id } } ${ERR} } }`, { i: { namespaceId: nsId, name: NAMES.configuration, values } })).createConfiguration,
      'createConfiguration',
    ).configuration.id;
    created.configuration = true;
  }

  const agentPage = await gql(`query($ns: ID!, $p: String) { namespace(id: $ns) { agents(first: 100, namePrefix: $p) { edges { node { id name servicePrincipalId } } } } }`, { ns: nsId, p: NAMES.agent });
  let agent: { id: string; servicePrincipalId: string } | undefined = agentPage.namespace.agents.edges.map((e: { node: { id: string; name: string } }) => e.node).find((a: { name: string }) => a.name === NAMES.agent);
  if (!agent) {
    agent = ok(
      (
        await gql(`mutation($i: CreateAgentInput!) { createAgent(input: $i) { __typename ... on CreateAgentSuccess { agent { id servicePrincipalId } } ${ERR} } }`, {
          i: { namespaceId: nsId, name: NAMES.agent, configurationId, harnessAuth: { provider, source: { id: secretId } } },
        })
      ).createAgent,
      'createAgent',
    ).agent as { id: string; servicePrincipalId: string };
    created.agent = true;
  }

  // Operate on exactly that secret, for the agent's own principal (idempotent; audited when it changes).
  const grant = ok(
    (
      await gql(`mutation($i: GrantAccessInput!) { grantAccess(input: $i) { __typename ... on GrantAccessSuccess { created } ${ERR} } }`, {
        i: { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretId } },
      })
    ).grantAccess,
    'grantAccess',
  );
  created.grant = Boolean(grant.created);

  const deployed = ok(
    (await gql(`mutation($i: DeployAgentInput!) { deployAgent(input: $i) { __typename ... on DeployAgentSuccess { revision { id number } } ${ERR} } }`, { i: { agentId: agent.id } })).deployAgent,
    'deployAgent',
  );
  const revisionId: string = deployed.revision.id;
  out(`Deploying revision ${deployed.revision.number} of agent ${NAMES.agent} (model ${model})…`);
  for (const deadline = Date.now() + (options.deployTimeoutMs ?? 180_000); ; ) {
    const { agent: now } = await gql(`query($id: ID!) { agent(id: $id) { revisions(first: 10) { edges { node { id state failure { code message } } } } } }`, { id: agent.id });
    const node = now?.revisions.edges.map((e: { node: { id: string; state: string; failure: { code: string; message: string } | null } }) => e.node).find((n: { id: string }) => n.id === revisionId);
    if (node?.state === 'ACTIVE') break;
    if (node?.state === 'FAILED') throw new FirstAgentRefusal('DEPLOY_FAILED', `Revision ${deployed.revision.number} failed: ${node.failure?.code}: ${node.failure?.message}`);
    if (Date.now() > deadline) throw new FirstAgentRefusal('DEPLOY_FAILED', `Revision ${deployed.revision.number} is not active yet (state ${node?.state ?? 'unknown'}); it stays queued, see agent ${agent.id}.`);
    await new Promise((r) => setTimeout(r, 250));
  }
  out(`Agent ${NAMES.agent} (${agent.id}) is active: revision ${deployed.revision.number}.`);

  // No model turn is sent, and the answer says why rather than pretending it was checked.
  const reason = marker.embedded.kubernetes
    ? 'The gateway runs on the embedded Kubernetes API server, whose kubelet simulator starts no process: there is no gateway to send a prompt to, so the model answer was not checked.'
    : 'The gateway runs in your cluster, and nothing here exposes it (no Service or port-forward is set up by this tool): the model answer was not checked. Reach the gateway through your cluster to send a prompt.';
  out(reason);
  out('Everything is left in place.');
  return { namespaceId: nsId, secretId, configurationId, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, revisionId, model, created, modelCheck: { checked: false, reason } };
}
