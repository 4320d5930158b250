// How deep a body may nest. A real kube-apiserver decodes JSON with Go's encoding/json (or its
// fork sigs.k8s.io/json), which refuses more than 10,000 levels ("exceeded max depth") with a 400
// and walks what it accepted on a goroutine stack that grows to 1 GB. The emulator's merges, SSA
// walks and pruning recurse on Node's ~1 MB stack, which ends between 1,400 and 1,600 levels of
// a custom resource: so the emulator refuses earlier, at 512, which leaves room for a patch that
// adds a 512-level value under a 512-level object (the result is refused before it is walked).
// REAL-SERVER-DIFFERENCES.md lists this as D12.

export const MAX_NESTING_DEPTH = 512;

/** Whether `value` nests objects or arrays more than `max` levels deep; iterative, so any input is safe. */
export function nestsDeeperThan(value: unknown, max: number = MAX_NESTING_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** The wording of Go's JSON scanner, which a real server puts in its 400. */
export const MAX_DEPTH_MESSAGE = `exceeded max depth (the emulator's limit is ${MAX_NESTING_DEPTH} levels)`;
