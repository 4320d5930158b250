// The built-in kinds' schemas (rule E6) as a real kube-apiserver serves them, not written here:
// `openapi-v1.20.2.json` holds the /openapi/v2 definitions every built-in kind the emulator serves
// reaches through $ref, taken from the E8 lane's kube-apiserver 1.20.2 by
// `npm run capture-openapi -w @occ/kube-emulator` (src/capture-openapi.ts). The lane's
// `openapi-captured.real-only.test.ts` computes the same subset from the server it runs and fails
// when the file differs, so the file cannot drift from its source.
//
// Kinds newer than 1.20 (policy/v1 PodDisruptionBudget, ValidatingAdmissionPolicy and its
// binding) have no definition there; they keep open schemas (REAL-SERVER-DIFFERENCES.md, D17).

import type { ResourceType } from '../registry.ts';
import { isObject, type JsonObject } from '../types.ts';
import captured from './openapi-v1.20.2.json' with { type: 'json' };

export interface CapturedDefinitions {
  /** Where and from what the definitions were taken. */
  source: string;
  definitions: Record<string, JsonObject>;
}

export const CAPTURED: CapturedDefinitions = captured as CapturedDefinitions;

const V2_REF = '#/definitions/';

function declaresKind(definition: JsonObject, group: string, version: string, kind: string): boolean {
  const gvks = definition['x-kubernetes-group-version-kind'];
  return Array.isArray(gvks) && gvks.some((g) => isObject(g) && g.group === group && g.version === version && g.kind === kind);
}

/** The name of the definition that declares a kind (by x-kubernetes-group-version-kind), if any. */
export function definitionNameOf(
  definitions: Record<string, JsonObject>,
  type: Pick<ResourceType, 'group' | 'version' | 'kind'>,
): string | undefined {
  return Object.keys(definitions).find((name) => declaresKind(definitions[name] as JsonObject, type.group, type.version, type.kind));
}

/** The definition names a schema refers to, directly (`prefix`: v2's #/definitions/ or v3's #/components/schemas/). */
export function referencesIn(value: unknown, into: Set<string> = new Set(), prefix = V2_REF): Set<string> {
  if (Array.isArray(value)) for (const item of value) referencesIn(item, into, prefix);
  else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith(prefix)) into.add(item.slice(prefix.length));
      else referencesIn(item, into, prefix);
    }
  }
  return into;
}

/**
 * The definitions of `types` (each kind and its list) in a served /openapi/v2 document, with every
 * definition they reach through $ref, keyed in sorted order. Kinds the document lacks are skipped.
 */
export function capturedSubset(
  definitions: Record<string, JsonObject>,
  types: readonly Pick<ResourceType, 'group' | 'version' | 'kind' | 'listKind'>[],
): Record<string, JsonObject> {
  const pending: string[] = [];
  for (const type of types) {
    for (const kind of [type.kind, type.listKind]) {
      const name = definitionNameOf(definitions, { ...type, kind });
      if (name) pending.push(name);
    }
  }
  const reached = new Set<string>();
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (reached.has(name)) continue;
    const definition = definitions[name];
    if (!definition) throw new Error(`the document refers to ${name} but does not define it`);
    reached.add(name);
    pending.push(...referencesIn(definition));
  }
  return Object.fromEntries([...reached].sort().map((name) => [name, definitions[name] as JsonObject]));
}
