// deploy/ as kustomize renders it, read without kubectl: the kustomization's `resources` files in
// order, each document given the kustomization's namespace when it is namespaced and its
// containers' images rewritten by the kustomization's `images` (name, newName, newTag). Enough for the
// manifests' own tests (deploy-manifests.test.ts) and for the E8 lane, which applies the same
// objects to a real kube-apiserver (deploy-manifests.real-only.test.ts).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { isObject, type KubeObject } from './types.ts';

/** deploy/ of this repository. */
export const DEPLOY_DIR = fileURLToPath(new URL('../../../deploy/', import.meta.url));

const CLUSTER_SCOPED = new Set(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'ValidatingWebhookConfiguration']);

interface ImageOverride {
  name: string;
  newName?: string;
  newTag?: string;
}

/** kustomize's image transformer: a container whose image is `name`, `name:tag` or `name@digest` takes the new name and tag. */
function rewriteImages(node: unknown, images: readonly ImageOverride[]): void {
  if (Array.isArray(node)) return node.forEach((item) => rewriteImages(item, images));
  if (!isObject(node)) return;
  for (const key of ['containers', 'initContainers']) {
    const containers = node[key];
    if (!Array.isArray(containers)) continue;
    for (const container of containers) {
      if (!isObject(container) || typeof container.image !== 'string') continue;
      const match = /^([^:@]+(?::\d+\/[^:@]+)?)(?::([^@]+))?(@.+)?$/.exec(container.image);
      const override = match && images.find((image) => image.name === match[1]);
      if (!match || !override) continue;
      const tag = override.newTag ?? match[2];
      container.image = `${override.newName ?? match[1]}${tag ? `:${tag}` : ''}${override.newTag ? '' : (match[3] ?? '')}`;
    }
  }
  Object.values(node).forEach((value) => rewriteImages(value, images));
}

export async function renderDeploy(dir = DEPLOY_DIR): Promise<KubeObject[]> {
  const kustomization = yaml.load(await readFile(join(dir, 'kustomization.yaml'), 'utf8')) as { namespace?: string; resources?: string[]; images?: ImageOverride[] };
  const objects: KubeObject[] = [];
  for (const file of kustomization.resources ?? []) {
    for (const document of yaml.loadAll(await readFile(join(dir, file), 'utf8'))) {
      if (!isObject(document)) continue;
      const object = document as KubeObject;
      if (kustomization.namespace && !CLUSTER_SCOPED.has(object.kind ?? '')) {
        object.metadata = { ...object.metadata, namespace: kustomization.namespace };
      }
      rewriteImages(object, kustomization.images ?? []);
      objects.push(object);
    }
  }
  return objects;
}
