import { orList, type Transition } from './lifecycle.ts';
import { SELF_CONFIG_PHASES, type SelfConfigPhase } from './selfconfig.ts';

// The phases of an OpenClawSelfConfig request (SC2, SG1, SG3) as one lifecycle. The controller
// names what happened; this says which phase the request's status moves to, and the controller
// writes it. A request seen without a phase (just created, or with a phase nobody here wrote) is
// "new".

export const SELF_CONFIG_EVENTS = [
  'observed',
  'waitingForGate',
  'held',
  'gateOpened',
  'applied',
  'failed',
  'denied',
  'rejected',
  'expired',
  'verified',
  'rolledBack',
  'gateLost',
] as const;
export type SelfConfigEvent = (typeof SELF_CONFIG_EVENTS)[number];
/** The events that end a request. */
export type ConcludingEvent = Exclude<SelfConfigEvent, 'observed' | 'waitingForGate' | 'held' | 'gateOpened'>;

type From = SelfConfigPhase | 'new';

const MOVES: Readonly<Record<SelfConfigEvent, { from: readonly From[]; to: SelfConfigPhase }>> = {
  // SC2: Pending is written, and visible, before anything is decided (again, for a Pending copy the controller meets anew).
  observed: { from: ['new', 'Pending'], to: 'Pending' },
  // SG1: one request of an instance at a time is decided: the others say they wait, still Pending.
  waitingForGate: { from: ['Pending'], to: 'Pending' },
  // SG3: a change in a category that needs approval waits for an administrator; an approved one is not held again.
  held: { from: ['Pending'], to: 'AwaitingApproval' },
  // SG1: an apply the health gate watches, decided now or on approval.
  gateOpened: { from: ['Pending', 'AwaitingApproval'], to: 'Verifying' },
  // Decided now or on approval: applied without a gate, refused by the checks, or failed.
  applied: { from: ['Pending', 'AwaitingApproval'], to: 'Applied' },
  failed: { from: ['Pending', 'AwaitingApproval'], to: 'Failed' },
  denied: { from: ['Pending', 'AwaitingApproval'], to: 'Denied' },
  // SG3: only a waiting request is rejected, or expires unanswered.
  rejected: { from: ['AwaitingApproval'], to: 'Rejected' },
  expired: { from: ['AwaitingApproval'], to: 'Expired' },
  // SG1: the gate ends: the new generation Ready, or what the agent owned before restored, or the gate's state lost.
  verified: { from: ['Verifying'], to: 'Applied' },
  rolledBack: { from: ['Verifying'], to: 'RolledBack' },
  gateLost: { from: ['Verifying'], to: 'Failed' },
};

/** The phase a request's status holds, as the lifecycle reads it: anything else is "new". */
export function phaseOf(status: { phase?: unknown } | undefined | null): From {
  const phase = status?.phase;
  return (SELF_CONFIG_PHASES as readonly unknown[]).includes(phase) ? (phase as SelfConfigPhase) : 'new';
}

/** SC2 SG1 SG3: where `event` moves a request in phase `from`, or why it may not. */
export function selfConfigTransition(from: From, event: SelfConfigEvent): Transition<From, SelfConfigEvent> {
  const move = MOVES[event];
  if (move.from.includes(from)) return { ok: true, from, to: move.to, reason: event };
  return { ok: false, from, code: 'SELF_CONFIG_PHASE_CONFLICT', message: `A request that is ${from} cannot take the event ${event}; it applies to one that is ${orList(move.from)}.` };
}
