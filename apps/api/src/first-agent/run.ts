import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { modelCredentialEnv } from '@occ/domain/configuration';

// Q1: `npm run first-agent`. Against the installation `npm start` runs, and no other: it reads
// that installation's state marker (state.json in its data directory), refuses a profile it cannot
// serve, and proves over GraphQL that the server at the recorded URL is that installation (the
// key it is given must be that installation's bootstrap principal's). Then, with that key, it
// creates or reuses a Secret holding the model key, a Configuration recording the model, and a
// named Agent; grants the Agent's principal operate on exactly that Secret (grantAccess, audited);
// deploys and waits for the revision to be active. Everything stays in place.
//
// On a repeat it says what it reuses. A model key it is given (environment or prompt) becomes a
// new version of the Secret through updateSecret, audited, and the redeploy delivers it; without
// one the stored key is kept. It never compares a given key with the stored one (it cannot read
// that value, and a same key still makes a new version), so nothing learns whether they match.
// Both keys are read before anything is written: a missing key changes nothing.

export const DEFAULT_MODEL = 'openai/gpt-6-astra';
export const NAMES = { namespace: 'first-agent', secret: 'first-agent-model-key', configuration: 'first-agent', agent: 'first-agent' } as const;
const MARKER_VERSION = 1;
/** A plain model id: provider/model, no URL, no options. The provider must be one harnessAuth knows. */
const MODEL_ID = /^([a-z0-9-]{1,32})\/([A-Za-z0-9][A-Za-z0-9._:-]{0,127})$/;

export class FirstAgentRefusal extends Error {
  constructor(
    readonly code:
      | 'NO_INSTALLATION'
      | 'OTHER_INSTALLATION'
      | 'UNSUPPORTED_PROFILE'
      | 'NOT_RUNNING'
      | 'NO_BOOTSTRAP_KEY'
      | 'NOT_BOOTSTRAP_KEY'
      | 'INVALID_MODEL'
      | 'MODEL_CONFLICT'
      | 'NO_MODEL_KEY'
      | 'INTERRUPTED'
      | 'REFUSED'
      | 'DEPLOY_FAILED',
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

/** How a key arrived. Its value goes to the one request that stores it, and nowhere else. */
export type KeyAnswer = { given: true; from: 'environment' | 'prompt'; value: string } | { given: false; asked: boolean };

/** A key by its variable's name, with the question a terminal shows when the variable is unset. */
export type ReadKey = (request: { envName: string; question: string }) => Promise<KeyAnswer>;

export interface Terminal {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where the question goes (stderr in the CLI); what is typed is never written anywhere. */
  output: NodeJS.WritableStream;
}

/**
 * The CLI's keys: the variable when it is set; else, on a terminal, a question answered without
 * echo; with no terminal (a script, CI) nothing is asked and the answer says so.
 */
export function keyReader(fromEnv: (envName: string) => string | null, terminal: Terminal): ReadKey {
  return async ({ envName, question }) => {
    const value = fromEnv(envName);
    if (value) return { given: true, from: 'environment', value };
    if (!terminal.input.isTTY) return { given: false, asked: false };
    terminal.output.write(question);
    const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
    const rl = createInterface({ input: terminal.input, output: muted, terminal: true });
    const answer = await new Promise<string | null>((resolve) => {
      rl.on('SIGINT', () => resolve(null));
      rl.on('close', () => resolve(''));
      rl.question('', resolve);
    });
    rl.close();
    terminal.output.write('\n');
    if (answer === null) throw new FirstAgentRefusal('INTERRUPTED', `Interrupted at the ${envName} prompt: nothing was changed.`);
    const typed = answer.trim();
    return typed ? { given: true, from: 'prompt', value: typed } : { given: false, asked: true };
  };
}

/** A key that is needed and was not given: which variable to set, and what a terminal would do. */
function missingKey(code: 'NO_BOOTSTRAP_KEY' | 'NO_MODEL_KEY', envName: string, what: string, asked: boolean): FirstAgentRefusal {
  return new FirstAgentRefusal(
    code,
    asked
      ? `No ${what} was typed at the prompt: type it there (it is not echoed), or set ${envName}. Nothing was changed.`
      : `No ${what}: ${envName} is not set, and there is no terminal to ask for it on (stdin is not a TTY). Set ${envName}, or run this in a terminal, which asks for it without echoing it. Nothing was changed.`,
  );
}

export interface FirstAgentOptions {
  dataDir: string;
  /** OPENCLAW_FIRST_AGENT_MODEL, or null. */
  modelOverride: string | null;
  /** The bootstrap key (OCC_BOOTSTRAP_KEY) and the model key (the provider's variable, e.g. OPENAI_API_KEY). */
  readKey: ReadKey;
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
  /** What this run did with the model key, and the Secret's version the revision delivers. */
  modelKey: { stored: 'created' | 'new-version' | 'kept'; from: 'environment' | 'prompt' | null; version: number };
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

interface Found {
  configuration: { id: string; name: string; values: unknown } | null;
  secret: { id: string; name: string; version: number } | null;
  agent: { id: string; name: string; servicePrincipalId: string } | null;
}

function byName<T extends { name: string }>(page: { edges: Array<{ node: T }> }, name: string): T | null {
  return page.edges.map((e) => e.node).find((n) => n.name === name) ?? null;
}

/** What a previous run left in the namespace (one query per kind: together they cost more than a request may). */
async function readPrevious(gql: Gql, namespaceId: string): Promise<Found> {
  const page = async (field: string, name: string, fields: string) =>
    (await gql(`query($ns: ID!, $p: String) { namespace(id: $ns) { ${field}(first: 100, namePrefix: $p) { edges { node { ${fields} } } } } }`, { ns: namespaceId, p: name })).namespace[field];
  const [configurations, secrets, agents] = await Promise.all([
    page('configurations', NAMES.configuration, 'id name values'),
    page('secrets', NAMES.secret, 'id name version'),
    page('agents', NAMES.agent, 'id name servicePrincipalId'),
  ]);
  return { configuration: byName(configurations, NAMES.configuration), secret: byName(secrets, NAMES.secret), agent: byName(agents, NAMES.agent) };
}

type Out = (line: string) => void;
type Namespace = { id: string; name: string; status: string };

/** The server must be the installation the marker describes: its bootstrap principal, random per installation, is the one recorded, and the key is that principal's. */
async function checkInstallation(gql: Gql, marker: StateMarker): Promise<void> {
  const { viewer } = await gql<{ viewer: { id: string } | null }>(`{ viewer { id } }`);
  if (!viewer) throw new FirstAgentRefusal('NOT_BOOTSTRAP_KEY', 'The API key was refused: give the bootstrap key `npm start` printed (OCC_BOOTSTRAP_KEY).');
  if (viewer.id !== marker.bootstrapPrincipalId) {
    throw new FirstAgentRefusal(
      'OTHER_INSTALLATION',
      `The server at ${marker.graphqlUrl} answered for principal ${viewer.id}, not installation ${marker.installationId}'s bootstrap principal ${marker.bootstrapPrincipalId}: it is another installation, or the key is not its bootstrap key. Nothing was changed.`,
    );
  }
}

/** The namespace, created when missing, once it is READY. */
async function readyNamespace(gql: Gql, out: Out, found: Namespace | null): Promise<{ id: string; created: boolean }> {
  let ns = found;
  if (ns) {
    out(`Reusing namespace ${NAMES.namespace} (${ns.id}).`);
  } else {
    ns = ok((await gql(`mutation($i: CreateNamespaceInput!) { createNamespace(input: $i) { __typename ... on CreateNamespaceSuccess { namespace { id name status } } ${ERR} } }`, { i: { name: NAMES.namespace } })).createNamespace, 'createNamespace').namespace as Namespace;
    out(`Created namespace ${NAMES.namespace} (${ns.id}).`);
  }
  const id = ns.id;
  for (const deadline = Date.now() + 60_000; ns.status !== 'READY'; ) {
    if (ns.status === 'FAILED') throw new FirstAgentRefusal('REFUSED', `Namespace ${NAMES.namespace} failed to provision.`);
    if (Date.now() > deadline) throw new FirstAgentRefusal('REFUSED', `Namespace ${NAMES.namespace} is not ready after 60 s.`);
    await new Promise((r) => setTimeout(r, 250));
    ns = (await gql(`query($id: ID!) { namespace(id: $id) { id name status } }`, { id })).namespace as Namespace;
  }
  return { id, created: !found };
}

type StoredKey = { secret: { id: string; version: number }; stored: FirstAgentResult['modelKey']['stored'] };

/**
 * The model key: a given one is always written (a new version on a repeat, through updateSecret,
 * audited), never compared with the stored one; without one the stored key is kept.
 */
async function storeModelKey(gql: Gql, out: Out, nsId: string, key: KeyAnswer, keyEnv: string, previous: Found['secret']): Promise<StoredKey> {
  if (!key.given) {
    const secret = previous!;
    const why = key.asked ? 'no key was typed at the prompt' : `${keyEnv} is not set and there is no terminal to ask on`;
    out(`Reusing secret ${NAMES.secret} (${secret.id}): keeping its stored model key, version ${secret.version} (${why}; to replace it, set ${keyEnv} or type one at the prompt in a terminal).`);
    return { secret, stored: 'kept' };
  }
  const from = key.from === 'environment' ? `from ${keyEnv}` : 'typed at the prompt';
  if (previous) {
    const secret = ok(
      (await gql(`mutation($i: UpdateSecretInput!) { updateSecret(input: $i) { __typename ... on UpdateSecretSuccess { secret { id version } } ${ERR} } }`, { i: { id: previous.id, value: key.value } })).updateSecret,
      'updateSecret',
    ).secret as { id: string; version: number };
    out(`Reusing secret ${NAMES.secret} (${secret.id}): stored the model key ${from} as its new version ${secret.version} (audited; not compared with the stored key).`);
    return { secret, stored: 'new-version' };
  }
  const secret = ok(
    (await gql(`mutation($i: CreateSecretInput!) { createSecret(input: $i) { __typename ... on CreateSecretSuccess { secret { id version } } ${ERR} } }`, { i: { namespaceId: nsId, name: NAMES.secret, value: key.value } })).createSecret,
    'createSecret',
  ).secret as { id: string; version: number };
  out(`Created secret ${NAMES.secret} (${secret.id}): version ${secret.version} holds the model key ${from}.`);
  return { secret, stored: 'created' };
}

/** The configuration recording the model, created when missing. */
async function ensureConfiguration(gql: Gql, out: Out, nsId: string, model: string, previous: Found['configuration']): Promise<{ id: string; created: boolean }> {
  if (previous) {
    out(`Reusing configuration ${NAMES.configuration} (${previous.id}).`);
    return { id: previous.id, created: false };
  }
  const values = { agents: { defaults: { model: { primary: model } } } };
  const id = ok(
    (await gql(`mutation($i: CreateConfigurationInput!) { createConfiguration(input: $i) { __typename ... on CreateConfigurationSuccess { configuration { id } } ${ERR} } }`, { i: { namespaceId: nsId, name: NAMES.configuration, values } })).createConfiguration,
    'createConfiguration',
  ).configuration.id as string;
  out(`Created configuration ${NAMES.configuration} (${id}), recording model ${model}.`);
  return { id, created: true };
}

type AgentRef = { id: string; servicePrincipalId: string };

/** The agent on that configuration, its harness authenticated by the model key, created when missing. */
async function ensureAgent(gql: Gql, out: Out, target: { nsId: string; configurationId: string; provider: string; secretId: string }, previous: Found['agent']): Promise<{ agent: AgentRef; created: boolean }> {
  if (previous) {
    out(`Reusing agent ${NAMES.agent} (${previous.id}), principal ${previous.servicePrincipalId}.`);
    return { agent: previous, created: false };
  }
  const agent = ok(
    (
      await gql(`mutation($i: CreateAgentInput!) { createAgent(input: $i) { __typename ... on CreateAgentSuccess { agent { id servicePrincipalId } } ${ERR} } }`, {
        i: { namespaceId: target.nsId, name: NAMES.agent, configurationId: target.configurationId, harnessAuth: { provider: target.provider, source: { id: target.secretId } } },
      })
    ).createAgent,
    'createAgent',
  ).agent as AgentRef;
  out(`Created agent ${NAMES.agent} (${agent.id}), principal ${agent.servicePrincipalId}.`);
  return { agent, created: true };
}

/** Operate on exactly that secret, for the agent's own principal (idempotent; audited when it changes). Answers whether it was new. */
async function grantOperate(gql: Gql, out: Out, agent: AgentRef, secretId: string): Promise<boolean> {
  const grant = ok(
    (
      await gql(`mutation($i: GrantAccessInput!) { grantAccess(input: $i) { __typename ... on GrantAccessSuccess { created } ${ERR} } }`, {
        i: { subjectId: agent.servicePrincipalId, roleId: 'rol_secret-operator', scope: { kind: 'RESOURCE', resourceKind: 'secret', resourceId: secretId } },
      })
    ).grantAccess,
    'grantAccess',
  );
  const created = Boolean(grant.created);
  out(created ? `Granted the agent's principal operate on exactly secret ${NAMES.secret} (audited).` : `The agent's principal already holds operate on exactly secret ${NAMES.secret}.`);
  return created;
}

/** Deploys the agent and waits until the revision is ACTIVE; refuses when it fails or the deadline passes. Answers the revision's id. */
async function deployAndWait(gql: Gql, out: Out, agent: AgentRef, model: string, key: StoredKey, timeoutMs: number): Promise<string> {
  const deployed = ok(
    (await gql(`mutation($i: DeployAgentInput!) { deployAgent(input: $i) { __typename ... on DeployAgentSuccess { revision { id number } } ${ERR} } }`, { i: { agentId: agent.id } })).deployAgent,
    'deployAgent',
  );
  const revisionId: string = deployed.revision.id;
  out(
    key.stored === 'new-version'
      ? `Redeploying agent ${NAMES.agent} so it uses the new model key (version ${key.secret.version}): revision ${deployed.revision.number} (model ${model})…`
      : `Deploying revision ${deployed.revision.number} of agent ${NAMES.agent} (model ${model}, model key version ${key.secret.version})…`,
  );
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const { agent: now } = await gql(`query($id: ID!) { agent(id: $id) { revisions(first: 10) { edges { node { id state failure { code message } } } } } }`, { id: agent.id });
    const node = now?.revisions.edges.map((e: { node: { id: string; state: string; failure: { code: string; message: string } | null } }) => e.node).find((n: { id: string }) => n.id === revisionId);
    if (node?.state === 'ACTIVE') break;
    if (node?.state === 'FAILED') throw new FirstAgentRefusal('DEPLOY_FAILED', `Revision ${deployed.revision.number} failed: ${node.failure?.code}: ${node.failure?.message}`);
    if (Date.now() > deadline) throw new FirstAgentRefusal('DEPLOY_FAILED', `Revision ${deployed.revision.number} is not active yet (state ${node?.state ?? 'unknown'}); it stays queued, see agent ${agent.id}.`);
    await new Promise((r) => setTimeout(r, 250));
  }
  out(`Agent ${NAMES.agent} (${agent.id}) is active: revision ${deployed.revision.number}, model key version ${key.secret.version}.`);
  return revisionId;
}

export async function runFirstAgent(options: FirstAgentOptions): Promise<FirstAgentResult> {
  const marker = await readStateMarker(options.dataDir);
  // A malformed override is refused before anything is written; a conflicting one once the record is read.
  resolveModel(options.modelOverride, null);
  const bootstrapKey = await options.readKey({ envName: 'OCC_BOOTSTRAP_KEY', question: 'Bootstrap API key (printed by the first `npm start`; not echoed): ' });
  if (!bootstrapKey.given) throw missingKey('NO_BOOTSTRAP_KEY', 'OCC_BOOTSTRAP_KEY', 'bootstrap API key (the one the first `npm start` printed)', bootstrapKey.asked);
  const gql = client(marker.graphqlUrl, bootstrapKey.value, options.fetch ?? fetch);
  const out = options.out;
  await checkInstallation(gql, marker);

  // What a previous run left, read before anything is written: the model it recorded, and whether
  // a model key is stored (then a key is optional: given, it becomes a new version).
  const nsPage = await gql(`query($p: String) { namespaces(first: 100, namePrefix: $p) { edges { node { id name status } } } }`, { p: NAMES.namespace });
  const found: Namespace | null = byName(nsPage.namespaces, NAMES.namespace);
  const previous: Found = found ? await readPrevious(gql, found.id) : { configuration: null, secret: null, agent: null };
  const recorded = previous.configuration ? recordedModel(previous.configuration.values) : null;
  const model = resolveModel(options.modelOverride, recorded);
  const provider = model.split('/')[0]!;
  const keyEnv = modelCredentialEnv(provider)!;
  const key = await options.readKey({
    envName: keyEnv,
    question: previous.secret
      ? `${keyEnv}: a new model key, stored as a new version of secret ${NAMES.secret} (not echoed; Enter keeps the stored key): `
      : `${keyEnv} (the model key for ${model}; not echoed): `,
  });
  if (!key.given && !previous.secret) throw missingKey('NO_MODEL_KEY', keyEnv, `model key for ${model}`, key.asked);

  if (recorded !== null) out(`Model ${model}: recorded in configuration ${NAMES.configuration}, kept.`);
  else out(`Model ${model}${options.modelOverride !== null ? ', from OPENCLAW_FIRST_AGENT_MODEL' : ', the default (OPENCLAW_FIRST_AGENT_MODEL names another)'}.`);

  const ns = await readyNamespace(gql, out, found);
  const stored = await storeModelKey(gql, out, ns.id, key, keyEnv, previous.secret);
  const configuration = await ensureConfiguration(gql, out, ns.id, model, previous.configuration);
  const { agent, created: agentCreated } = await ensureAgent(gql, out, { nsId: ns.id, configurationId: configuration.id, provider, secretId: stored.secret.id }, previous.agent);
  const granted = await grantOperate(gql, out, agent, stored.secret.id);
  const revisionId = await deployAndWait(gql, out, agent, model, stored, options.deployTimeoutMs ?? 180_000);

  // No model turn is sent, and the answer says why rather than pretending it was checked.
  const reason = marker.embedded.kubernetes
    ? 'The gateway runs on the embedded Kubernetes API server, whose kubelet simulator starts no process: there is no gateway to send a prompt to, so the model answer was not checked.'
    : 'The gateway runs in your cluster, and nothing here exposes it (no Service or port-forward is set up by this tool): the model answer was not checked. Reach the gateway through your cluster to send a prompt.';
  out(reason);
  out('Everything is left in place.');
  return {
    namespaceId: ns.id,
    secretId: stored.secret.id,
    configurationId: configuration.id,
    agentId: agent.id,
    servicePrincipalId: agent.servicePrincipalId,
    revisionId,
    model,
    created: { namespace: ns.created, secret: stored.stored === 'created', configuration: configuration.created, agent: agentCreated, grant: granted },
    modelKey: { stored: stored.stored, from: key.given ? key.from : null, version: stored.secret.version },
    modelCheck: { checked: false, reason },
  };
}
