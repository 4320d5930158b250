// Fault injection (rule E4): rules that make chosen requests fail, wait, or get lost. A rule
// matches a verb (as the HTTP layer resolves it: get, list, watch, create, update, patch,
// delete, deletecollection) and a URL path, for its next `times` matches (all of them by default).
// Actions:
//   error     answer a Status with this code; nothing is applied
//   delay     wait, then serve the request normally (it runs after the wait)
//   lose-response  apply the request, then reset the connection instead of answering: the
//             client cannot know whether its write happened
//   reset     reset the connection without applying anything
// Programmatic through `emulator.faults`; over HTTP at /admin/faults only when the emulator
// was started with an `adminToken` (sent as a bearer token), never by default.

import type { Verb } from './http.ts';

export type FaultAction =
  | { type: 'error'; status: number; message?: string }
  | { type: 'delay'; ms: number }
  | { type: 'lose-response' }
  | { type: 'reset' };

export interface FaultRule {
  /** Verbs to match; any verb when absent. */
  verb?: Verb | Verb[];
  /**
   * URL path to match: exact, or a prefix when it ends with `*`
   * (`/api/v1/namespaces/ns-1/secrets*`), or a RegExp (programmatic only).
   */
  path: string | RegExp;
  /** How many matching requests to affect; every one when absent. */
  times?: number;
  action: FaultAction;
}

export interface InstalledFault {
  id: string;
  rule: FaultRule;
  /** Requests this rule has affected so far. */
  hits: number;
}

export interface FaultInjector {
  add(rule: FaultRule): InstalledFault;
  remove(id: string): boolean;
  clear(): void;
  list(): InstalledFault[];
}

const VERBS: readonly Verb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

function pathMatches(pattern: string | RegExp, path: string): boolean {
  if (pattern instanceof RegExp) return pattern.test(path);
  if (pattern.endsWith('*')) return path.startsWith(pattern.slice(0, -1));
  return path === pattern;
}

/** Checks a rule that arrived as JSON; throws a message naming what is wrong. */
export function parseFaultRule(input: unknown): FaultRule {
  if (typeof input !== 'object' || input === null) throw new Error('a fault rule must be an object');
  const raw = input as Record<string, unknown>;
  if (typeof raw.path !== 'string' || raw.path === '') throw new Error('path: required, a URL path (a trailing * makes it a prefix)');
  const verbs = raw.verb === undefined ? undefined : Array.isArray(raw.verb) ? raw.verb : [raw.verb];
  if (verbs && !verbs.every((v) => VERBS.includes(v as Verb))) throw new Error(`verb: must be one of ${VERBS.join(', ')}`);
  if (raw.times !== undefined && !(Number.isInteger(raw.times) && (raw.times as number) > 0)) throw new Error('times: must be a positive integer');
  const action = raw.action as Record<string, unknown> | undefined;
  let parsed: FaultAction;
  switch (action?.type) {
    case 'error':
      if (!Number.isInteger(action.status) || (action.status as number) < 400 || (action.status as number) > 599) {
        throw new Error('action.status: must be an HTTP error code (400-599)');
      }
      parsed = { type: 'error', status: action.status as number, ...(typeof action.message === 'string' ? { message: action.message } : {}) };
      break;
    case 'delay':
      if (typeof action.ms !== 'number' || action.ms < 0) throw new Error('action.ms: must be a non-negative number');
      parsed = { type: 'delay', ms: action.ms };
      break;
    case 'lose-response':
    case 'reset':
      parsed = { type: action.type };
      break;
    default:
      throw new Error('action.type: must be error, delay, lose-response or reset');
  }
  return {
    path: raw.path,
    action: parsed,
    ...(verbs ? { verb: verbs as Verb[] } : {}),
    ...(raw.times !== undefined ? { times: raw.times as number } : {}),
  };
}

export class Faults implements FaultInjector {
  private readonly rules: InstalledFault[] = [];
  private nextId = 1;

  add(rule: FaultRule): InstalledFault {
    const installed = { id: `fault-${this.nextId++}`, rule, hits: 0 };
    this.rules.push(installed);
    return installed;
  }

  remove(id: string): boolean {
    const index = this.rules.findIndex((r) => r.id === id);
    if (index < 0) return false;
    this.rules.splice(index, 1);
    return true;
  }

  clear(): void {
    this.rules.length = 0;
  }

  list(): InstalledFault[] {
    return [...this.rules];
  }

  /** The action for this request, counting it against the first rule that matches. */
  match(verb: Verb, path: string): FaultAction | undefined {
    for (const installed of this.rules) {
      const { rule } = installed;
      const verbs = rule.verb === undefined ? undefined : Array.isArray(rule.verb) ? rule.verb : [rule.verb];
      if (verbs && !verbs.includes(verb)) continue;
      if (!pathMatches(rule.path, path)) continue;
      if (rule.times !== undefined && installed.hits >= rule.times) continue;
      installed.hits += 1;
      return rule.action;
    }
    return undefined;
  }
}
