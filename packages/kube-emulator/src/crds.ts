// CustomResourceDefinitions from YAML files: the emulator preloads them at start
// (`startKubeEmulator({ crdDirs })`) and tests create the same documents through the
// apiextensions API. Read as plain YAML, not through client-node's typed models, which would
// drop the x-kubernetes-* extension keys.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { isObject, type KubeObject } from './types.ts';

/** deploy/crds of this repository: the OpenClawInstance and OpenClawSelfConfig CRDs (rule K2). */
export const OPENCLAW_CRD_DIR = fileURLToPath(new URL('../../../deploy/crds/', import.meta.url));

/** deploy/rbac.yaml: the product's ClusterRoles, among them occ-selfconfig-agent that agents are bound to (SC5, E9). */
export const OPENCLAW_RBAC_FILE = fileURLToPath(new URL('../../../deploy/rbac.yaml', import.meta.url));
/** The occ-tenant binding restriction (a ValidatingAdmissionPolicy and its binding), for `admissionPolicyFiles`. */
export const OPENCLAW_TENANT_POLICY_FILE = fileURLToPath(new URL('../../../deploy/policies/tenant-binding.yaml', import.meta.url));

/** Every CustomResourceDefinition document in the .yaml/.yml/.json files of `dirs`, in file name order. */
export async function readCrdFiles(dirs: readonly string[]): Promise<KubeObject[]> {
  const crds: KubeObject[] = [];
  for (const dir of dirs) {
    const files = (await readdir(dir)).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();
    for (const file of files) {
      const text = await readFile(join(dir, file), 'utf8');
      for (const document of yaml.loadAll(text)) {
        if (isObject(document) && document.kind === 'CustomResourceDefinition') crds.push(document as KubeObject);
      }
    }
  }
  return crds;
}

const MODEL_NAMES: Record<string, string> = { enum: '_enum', default: '_default', $ref: 'ref', $schema: 'schema' };

function schemaForModels(node: unknown): unknown {
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const name = MODEL_NAMES[key] ?? key.replace(/^x-kubernetes-/, 'x_kubernetes_').replace(/-/g, '_');
    if (key === 'properties' && isObject(value)) {
      out[name] = Object.fromEntries(Object.entries(value).map(([p, v]) => [p, schemaForModels(v)]));
    } else if ((key === 'anyOf' || key === 'allOf' || key === 'oneOf') && Array.isArray(value)) {
      out[name] = value.map(schemaForModels);
    } else if (key === 'not') {
      out[name] = schemaForModels(value);
    } else {
      // items and additionalProperties are `any` in the models: serialized as given, so they keep the wire spelling.
      out[name] = value;
    }
  }
  return out;
}

/**
 * The CRD with its schema keys spelled as client-node's typed models expect
 * (`x_kubernetes_list_type`, `_enum` …), so that ApiextensionsV1Api or KubernetesObjectApi
 * serialize them back to the wire names instead of dropping them.
 */
export function crdForClientModels(crd: KubeObject): KubeObject {
  const copy = structuredClone(crd);
  const spec = isObject(copy.spec) ? copy.spec : {};
  for (const version of Array.isArray(spec.versions) ? spec.versions : []) {
    if (isObject(version) && isObject(version.schema)) {
      version.schema.openAPIV3Schema = schemaForModels(version.schema.openAPIV3Schema);
    }
  }
  return copy;
}
