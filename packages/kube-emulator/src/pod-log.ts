// pods/log (GET /api/v1/namespaces/{namespace}/pods/{name}/log), as kube-apiserver answers it
// (pkg/registry/core/pod/strategy.go LogLocation): the container is the query's or the Pod's only
// one, the Pod's node is looked up, and its kubelet (status.daemonEndpoints.kubeletEndpoint at the
// node's InternalIP) is asked for /containerLogs; what the kubelet refuses comes back as 400 with
// its words. A Pod not bound to a node has no logs yet (an empty answer). The kubelet simulator
// (kubelet/node.ts) is the only kubelet there is.

import type { KubeApi, Target } from './api.ts';
import { badRequest, StatusError } from './errors.ts';
import { NODES } from './registry.ts';
import { isObject, type JsonObject } from './types.ts';

const obj = (value: unknown): JsonObject => (isObject(value) ? value : {});
const names = (value: unknown): string[] => (Array.isArray(value) ? value.filter(isObject).map((c) => String(c.name ?? '')) : []);

/** Query parameters of PodLogOptions the kubelet reads, passed on as they came. */
const PASSED = ['previous', 'timestamps', 'tailLines', 'limitBytes', 'sinceSeconds', 'sinceTime', 'follow'];

export async function podLog(api: KubeApi, target: Target, query: URLSearchParams): Promise<string> {
  const pod = api.get({ type: target.type, namespace: target.namespace, name: target.name });
  const name = pod.metadata.name ?? '';
  const spec = obj(pod.spec);
  const containers = names(spec.containers);
  const initContainers = names(spec.initContainers);
  let container = query.get('container') ?? '';
  if (container === '') {
    if (containers.length === 1) container = containers[0] ?? '';
    else if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    else {
      const init = initContainers.length > 0 ? ` or one of the init containers: [${initContainers.join(' ')}]` : '';
      throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]${init}`);
    }
  } else if (![...containers, ...initContainers, ...names(spec.ephemeralContainers)].includes(container)) {
    throw badRequest(`container ${container} is not valid for pod ${name}`);
  }
  const nodeName = typeof spec.nodeName === 'string' ? spec.nodeName : '';
  if (nodeName === '') return '';
  const status = obj(api.get({ type: NODES, name: nodeName }).status);
  const addresses = Array.isArray(status.addresses) ? status.addresses.filter(isObject) : [];
  const address = String(addresses.find((a) => a.type === 'InternalIP')?.address ?? addresses[0]?.address ?? '');
  const port = Number(obj(obj(status.daemonEndpoints).kubeletEndpoint).Port ?? 0);
  if (address === '' || port === 0) throw new StatusError(500, 'InternalError', `node ${nodeName} has no kubelet endpoint`);
  const passed = new URLSearchParams([...query].filter(([key]) => PASSED.includes(key)));
  const host = address.includes(':') ? `[${address}]` : address;
  const url = `http://${host}:${port}/containerLogs/${encodeURIComponent(target.namespace ?? '')}/${encodeURIComponent(name)}/${encodeURIComponent(container)}?${passed}`;
  let answer: Response;
  try {
    answer = await fetch(url);
  } catch (error) {
    throw new StatusError(500, 'InternalError', `Get "${url}": ${(error as Error).message}`);
  }
  const text = await answer.text();
  if (answer.status === 404) throw new StatusError(404, 'NotFound', text);
  if (!answer.ok) throw badRequest(text);
  return text;
}
