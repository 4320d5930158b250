// deploy/ as kustomize renders it, read without kubectl: the kustomization's `resources` files in
// order, each document given the kustomization's namespace when it is namespaced. Enough for the
// manifests' own tests (deploy-manifests.test.ts) and for the E8 lane, which applies the same
// objects to a real kube-apiserver (deploy-manifests.real-only.test.ts).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { isObject, type KubeObject } from './types.ts';

/** deploy/ of this repository. */
export const DEPLOY_DIR = fileURLToPath(new URL('../../../deploy/', import.meta.url));

const CLUSTER_SCOPED = new Set(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding']);

export async function renderDeploy(dir = DEPLOY_DIR): Promise<KubeObject[]> {
  const kustomization = yaml.load(await readFile(join(dir, 'kustomization.yaml'), 'utf8')) as { namespace?: string; resources?: string[] };
  const objects: KubeObject[] = [];
  for (const file of kustomization.resources ?? []) {
    for (const document of yaml.loadAll(await readFile(join(dir, file), 'utf8'))) {
      if (!isObject(document)) continue;
      const object = document as KubeObject;
      if (kustomization.namespace && !CLUSTER_SCOPED.has(object.kind ?? '')) {
        object.metadata = { ...object.metadata, namespace: kustomization.namespace };
      }
      objects.push(object);
    }
  }
  return objects;
}
