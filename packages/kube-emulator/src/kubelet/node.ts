// The simulator's Node and the kubelet endpoint it advertises (E3): a kubelet registers its Node,
// reports it Ready, and serves its containers' logs at status.daemonEndpoints.kubeletEndpoint;
// the API server answers pods/log by asking the Pod's node there, as kube-apiserver asks a real
// kubelet (/containerLogs/{namespace}/{pod}/{container}). Loopback HTTP, not the kubelet's HTTPS:
// the emulator is its only caller.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VERSION_INFO } from '../discovery.ts';
import type { ContainerLogs } from './logs.ts';

/** The Node a kubelet registers and keeps reporting: Ready, its address and kubelet port, its system info. */
export function renderNode(name: string, port: number, now: string): { metadata: Record<string, unknown>; spec: Record<string, unknown>; status: Record<string, unknown> } {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' } },
    spec: {},
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }],
      addresses: [
        { type: 'InternalIP', address: '127.0.0.1' },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: port } },
      nodeInfo: {
        machineID: '',
        systemUUID: '',
        bootID: '',
        kernelVersion: 'simulated',
        osImage: 'occ kubelet simulator',
        containerRuntimeVersion: 'simulated://1',
        kubeletVersion: VERSION_INFO.gitVersion,
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

export interface KubeletEndpoint {
  port: number;
  close(): Promise<void>;
}

/**
 * GET /containerLogs/{namespace}/{pod}/{container}: the container's lines, as the kubelet answers
 * them (text/plain; `timestamps`, `tailLines`, `limitBytes`, `previous`); 400 with the kubelet's words
 * for a container that has not started. `follow` is answered with what there is now.
 */
export async function serveKubeletEndpoint(logs: Pick<ContainerLogs, 'read'>): Promise<KubeletEndpoint> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://kubelet');
    const match = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (request.method !== 'GET' || !match) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
      return;
    }
    const [, namespace = '', pod = '', container = ''] = match.map(decodeURIComponent);
    const tail = url.searchParams.get('tailLines');
    const limit = url.searchParams.get('limitBytes');
    const answer = logs.read(namespace, pod, container, {
      previous: url.searchParams.get('previous') === 'true',
      timestamps: url.searchParams.get('timestamps') === 'true',
      tailLines: tail === null ? undefined : Number(tail),
      limitBytes: limit === null ? undefined : Number(limit),
    });
    if ('error' in answer) response.writeHead(400, { 'content-type': 'text/plain' }).end(answer.error);
    else response.writeHead(200, { 'content-type': 'text/plain' }).end(answer.text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
