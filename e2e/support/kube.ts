import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import path from 'node:path';
import type { StackInfo } from './stack';

// The embedded Kubernetes API server of the stack under test, reached the way kubectl reaches it:
// the kubeconfig the product wrote into its data directory (HTTPS, its own CA, a bearer token).
// For asserting what the product did to the cluster, and for breaking it on purpose.

type Kube = { server: URL; ca: Buffer; token: string };

function kubeconfig(stack: StackInfo): Kube {
  const text = readFileSync(path.join(stack.dataDir, 'kubeconfig.yaml'), 'utf8');
  const field = (name: string) => {
    const match = new RegExp(`^\\s*${name}:\\s*(\\S+)\\s*$`, 'm').exec(text);
    if (!match) throw new Error(`kubeconfig.yaml has no ${name}`);
    return match[1]!.replace(/^["']|["']$/g, '');
  };
  return { server: new URL(field('server')), ca: Buffer.from(field('certificate-authority-data'), 'base64'), token: field('token') };
}

export async function kubeRequest<T = unknown>(
  stack: StackInfo,
  method: 'GET' | 'PATCH' | 'POST' | 'DELETE',
  apiPath: string,
  body?: { contentType: string; json: unknown },
): Promise<{ status: number; body: T }> {
  const kube = kubeconfig(stack);
  const url = new URL(apiPath, kube.server);
  const payload = body ? JSON.stringify(body.json) : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ca: kube.ca,
        headers: {
          authorization: `Bearer ${kube.token}`,
          accept: 'application/json',
          ...(body ? { 'content-type': body.contentType, 'content-length': Buffer.byteLength(payload!) } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, body: (text ? JSON.parse(text) : null) as T });
        });
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } };
export type Deployment = {
  metadata: { name: string; namespace: string };
  spec: { replicas?: number; template: { spec: { containers: { name: string; env?: EnvVar[] }[] } } };
};

/** The agent's gateway Deployment (`gateway-<uuid of the agent id>`, packages/domain kubernetes-names). */
export async function gatewayDeployment(stack: StackInfo, k8sNamespace: string, agentId: string): Promise<Deployment> {
  const name = `gateway-${agentId.replace(/^agt_/, '')}`;
  const answer = await kubeRequest<Deployment>(stack, 'GET', `/apis/apps/v1/namespaces/${k8sNamespace}/deployments/${name}`);
  if (answer.status !== 200) throw new Error(`GET deployment ${k8sNamespace}/${name}: HTTP ${answer.status}`);
  return answer.body;
}

/**
 * Creates a Kubernetes Secret out of band, as someone with kubectl would: no labels of the
 * control plane, so it is not one of its objects (for tests that break a deploy on purpose).
 */
export async function createForeignSecret(stack: StackInfo, k8sNamespace: string, name: string, value: string): Promise<void> {
  const answer = await kubeRequest(stack, 'POST', `/api/v1/namespaces/${k8sNamespace}/secrets`, {
    contentType: 'application/json',
    json: { apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { value } },
  });
  if (answer.status !== 201) throw new Error(`POST secret ${k8sNamespace}/${name}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
}

export type OpenClawInstance = {
  metadata: { name: string; namespace: string; generation: number };
  spec: { config?: { raw?: Record<string, unknown> } };
  status?: { observedGeneration?: number; running?: { generation: number | null; revision: { id: string; number: number } | null } | null };
};

/** An agent's OpenClawInstance, as kubectl would read it. */
export async function openClawInstance(stack: StackInfo, k8sNamespace: string, name: string): Promise<OpenClawInstance> {
  const answer = await kubeRequest<OpenClawInstance>(stack, 'GET', `/apis/openclaw.rocks/v1alpha1/namespaces/${k8sNamespace}/openclawinstances/${name}`);
  if (answer.status !== 200) throw new Error(`GET openclawinstance ${k8sNamespace}/${name}: HTTP ${answer.status}`);
  return answer.body;
}

/** Deletes a Kubernetes namespace out of band, as someone with kubectl would (RC5). */
export async function deleteKubernetesNamespace(stack: StackInfo, k8sNamespace: string): Promise<void> {
  const answer = await kubeRequest(stack, 'DELETE', `/api/v1/namespaces/${k8sNamespace}`);
  if (answer.status !== 200 && answer.status !== 202) throw new Error(`DELETE namespace ${k8sNamespace}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
}

/** The HTTP status of a GET of a Kubernetes namespace: 200 while it exists, 404 once gone. */
export async function kubernetesNamespaceStatus(stack: StackInfo, k8sNamespace: string): Promise<{ status: number; phase: string | null }> {
  const answer = await kubeRequest<{ status?: { phase?: string } } | null>(stack, 'GET', `/api/v1/namespaces/${k8sNamespace}`);
  return { status: answer.status, phase: answer.body?.status?.phase ?? null };
}
