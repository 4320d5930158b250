// The shape every lifecycle in the domain answers with (revisions, rollouts and their batches,
// SelfConfig requests): a pure function of the current state and one event says where the object
// moves and why, or why it may not. Services call it and write what it says, as a compare-and-set
// on the state they read; they never choose a state themselves.

/** `C`: the codes a refusal may carry, where the lifecycle names them (callers answer with them). */
export type Transition<S extends string | null, R extends string, C extends string = string> =
  | { ok: true; from: S; to: S; reason: R }
  | { ok: false; from: S; code: C; message: string };

/** "A", "A or B", "A, B or C": the states an event applies in, as a refusal names them. */
export function orList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? 'none';
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
