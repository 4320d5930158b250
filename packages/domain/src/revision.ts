import { MODEL_CREDENTIAL_ENV, type SecretRef } from './configuration.ts';
import { orList, type Transition } from './lifecycle.ts';

// AgentRevision (D4): what one deploy admitted, frozen. Pure: ids, the caller and the current
// rows come in as parameters. A revision holds references (secret ids, the SecretDriver id) and
// the version each Secret had at admission, never a backend locator and never a value; the
// worker resolves locators from Secret metadata on each run (W3).

export const REVISION_STATES = ['queued', 'preparing', 'prepared', 'activating', 'active', 'failed', 'superseded', 'stopped'] as const;
export type RevisionState = (typeof REVISION_STATES)[number];

/** States in which a revision's work is still to be done: deleteSecret refuses while one names the secret (S7). */
export const PENDING_REVISION_STATES: readonly RevisionState[] = ['queued', 'preparing', 'prepared', 'activating'];
/** States that end a revision's life; nothing moves a revision out of them. */
export const TERMINAL_REVISION_STATES: readonly RevisionState[] = ['failed', 'superseded', 'stopped'];

/**
 * What moves a revision (W1's steps, RC8's supersedes, W6's stop). Each event has one target and
 * the states it applies in; the worker and stopAgent write a move only through revisionTransition,
 * as a compare-and-set on those states.
 */
export const REVISION_EVENTS = ['checked', 'prepared', 'activationCommitted', 'gatewayReady', 'failed', 'newerDeployed', 'newerActivated', 'stopped'] as const;
export type RevisionEvent = (typeof REVISION_EVENTS)[number];

/** Why a revision is in the state it moved to (the audit's and a failure's vocabulary). */
export type RevisionReason =
  | 'RecheckPassed'
  | 'Prepared'
  | 'ActivationCommitted'
  | 'GatewayReady'
  | 'StepFailed'
  | 'SupersededBeforePreparation'
  | 'SupersededByActivation'
  | 'AgentStopped';

const REVISION_MOVES: Readonly<Record<RevisionEvent, { from: readonly RevisionState[]; to: RevisionState; reason: RevisionReason }>> = {
  // W1: queued → preparing → prepared → activating → active, one step each, each after its re-check.
  checked: { from: ['queued'], to: 'preparing', reason: 'RecheckPassed' },
  prepared: { from: ['preparing'], to: 'prepared', reason: 'Prepared' },
  activationCommitted: { from: ['prepared'], to: 'activating', reason: 'ActivationCommitted' },
  gatewayReady: { from: ['activating'], to: 'active', reason: 'GatewayReady' },
  // W1: a step that failed for good ends the revision wherever it was on its way; an active one has nothing left to fail.
  failed: { from: PENDING_REVISION_STATES, to: 'failed', reason: 'StepFailed' },
  // RC8: a queued revision a newer deploy followed is never prepared; the next activation supersedes an activating or active one.
  newerDeployed: { from: ['queued'], to: 'superseded', reason: 'SupersededBeforePreparation' },
  newerActivated: { from: ['activating', 'active'], to: 'superseded', reason: 'SupersededByActivation' },
  // W6: a stop ends any revision that runs or is on its way.
  stopped: { from: [...PENDING_REVISION_STATES, 'active'], to: 'stopped', reason: 'AgentStopped' },
};

/** D4 W1 W6 RC8: where `event` moves a revision in `state`, or why it does not. */
export function revisionTransition(state: RevisionState, event: RevisionEvent): Transition<RevisionState, RevisionReason> {
  const move = REVISION_MOVES[event];
  if (move.from.includes(state)) return { ok: true, from: state, to: move.to, reason: move.reason };
  return { ok: false, from: state, code: 'REVISION_STATE_CONFLICT', message: `A revision that is ${state} cannot take the event ${event}; it applies to one that is ${orList(move.from)}.` };
}

/** The states `event` moves a revision out of, and the one it moves it to (a compare-and-set's two halves). */
export function revisionMove(event: RevisionEvent): { from: RevisionState[]; to: RevisionState } {
  const from = REVISION_STATES.filter((state) => revisionTransition(state, event).ok);
  return { from, to: REVISION_MOVES[event].to };
}

export type RevisionSecretPurpose = 'binding' | 'harnessAuth';

/** One normalized reference a revision delivers, with the Secret version it was admitted at. */
export interface RevisionSecretRef {
  purpose: RevisionSecretPurpose;
  /** The env name: the binding's, or the provider's model-credential name for harnessAuth. */
  envName: string;
  source: SecretRef;
  version: number;
}

export interface FrozenRevision {
  agentId: string;
  namespaceId: string;
  number: number;
  configuration: { id: string; generation: number; values: Record<string, unknown> } | null;
  /** Bindings first (by env name), then the harnessAuth source. */
  secrets: RevisionSecretRef[];
  secretDriverId: string;
  harnessAuth: { provider: string; envName: string; source: SecretRef } | null;
  servicePrincipalId: string;
  /** approval (SG3): the categories whose requests wait for an administrator; absent is none. */
  selfConfigure: { enabled: boolean; allowedActions: string[]; approval?: string[] };
  createdById: string;
}

export interface FreezeInput {
  agent: {
    id: string;
    namespaceId: string;
    servicePrincipalId: string;
    harnessProvider: string | null;
    harnessSecretId: string | null;
    selfConfigure: { enabled: boolean; allowedActions: readonly string[]; approval?: readonly string[] };
  };
  configuration: {
    id: string;
    namespaceId: string;
    generation: number;
    values: unknown;
    bindings: ReadonlyArray<{ envName: string; secretId: string; deliveryType: string }>;
  } | null;
  /** The current version of every Secret referenced above; a missing one is a caller bug. */
  secretVersions: ReadonlyMap<string, number>;
  secretDriverId: string;
  /** The highest number this agent's revisions have (0 for none). */
  previousNumber: number;
  createdById: string;
}

/** Every Secret id a revision delivers: bound ones and the harnessAuth one (the work payload's secretIds). */
export function revisionSecretIds(revision: Pick<FrozenRevision, 'secrets'>): string[] {
  return [...new Set(revision.secrets.map((s) => s.source.id))];
}

/** A deep copy through JSON: the snapshot shares nothing with the row it was read from. */
function snapshot(values: unknown): Record<string, unknown> {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return {};
  return JSON.parse(JSON.stringify(values)) as Record<string, unknown>;
}

/**
 * D4: freezes what a deploy admits. Bindings are normalized (sorted by env name, delivery env,
 * source in the agent's namespace); the harnessAuth source is delivered under its provider's
 * model-credential name. Throws on inputs admission must already have refused (a foreign source,
 * an unknown provider, an unknown version), so a bug cannot freeze a wrong revision.
 */
export function freezeRevision(input: FreezeInput): FrozenRevision {
  const { agent, configuration } = input;
  const version = (secretId: string): number => {
    const v = input.secretVersions.get(secretId);
    if (v === undefined) throw new Error(`no version for secret ${secretId}`);
    return v;
  };
  const ref = (id: string): SecretRef => ({ kind: 'secret', namespaceId: agent.namespaceId, id });
  if (configuration && configuration.namespaceId !== agent.namespaceId) throw new Error('the configuration belongs to another namespace');
  const secrets: RevisionSecretRef[] = [...(configuration?.bindings ?? [])]
    .sort((a, b) => (a.envName < b.envName ? -1 : a.envName > b.envName ? 1 : 0))
    .map((b) => {
      if (b.deliveryType !== 'env') throw new Error(`unsupported delivery ${b.deliveryType}`);
      return { purpose: 'binding' as const, envName: b.envName, source: ref(b.secretId), version: version(b.secretId) };
    });
  let harnessAuth: FrozenRevision['harnessAuth'] = null;
  if (agent.harnessProvider && agent.harnessSecretId) {
    const envName = MODEL_CREDENTIAL_ENV[agent.harnessProvider];
    if (!envName) throw new Error(`unknown harness provider ${agent.harnessProvider}`);
    harnessAuth = { provider: agent.harnessProvider, envName, source: ref(agent.harnessSecretId) };
    secrets.push({ purpose: 'harnessAuth', envName, source: ref(agent.harnessSecretId), version: version(agent.harnessSecretId) });
  }
  return {
    agentId: agent.id,
    namespaceId: agent.namespaceId,
    number: input.previousNumber + 1,
    configuration: configuration ? { id: configuration.id, generation: configuration.generation, values: snapshot(configuration.values) } : null,
    secrets,
    secretDriverId: input.secretDriverId,
    harnessAuth,
    servicePrincipalId: agent.servicePrincipalId,
    selfConfigure: {
      enabled: agent.selfConfigure.enabled,
      allowedActions: [...agent.selfConfigure.allowedActions].sort(),
      ...(agent.selfConfigure.approval?.length ? { approval: [...agent.selfConfigure.approval].sort() } : {}),
    },
    createdById: input.createdById,
  };
}

/** The gateway's bound references (delivered as env through secretKeyRef); harnessAuth is not one. */
export function gatewayBindings(revision: Pick<FrozenRevision, 'secrets'>): RevisionSecretRef[] {
  return revision.secrets.filter((s) => s.purpose === 'binding');
}
