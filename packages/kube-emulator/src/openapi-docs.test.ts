import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENCLAW_CRD_DIR } from './crds.ts';
import { CAPTURED } from './kinds/openapi-captured.ts';
import { emulatorRequest, startTestCluster, type TestCluster } from './testing.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({ crdDirs: [OPENCLAW_CRD_DIR] });
});
afterAll(() => cluster.close());

async function get(path: string, accept = 'application/json'): Promise<{ status: number; body: Obj }> {
  const response = await emulatorRequest(cluster.emulator, path, { headers: { authorization: `Bearer ${cluster.emulator.token}`, accept } });
  return { status: response.status, body: response.json() as Obj };
}

describe('OpenAPI documents', () => {
  it('E6 /openapi/v3 names one document per group-version; each PATCH operation carries its kind and fieldValidation', async () => {
    const root = await get('/openapi/v3');
    expect(Object.keys(root.body.paths)).toEqual(expect.arrayContaining(['api/v1', 'apis/apps/v1', 'apis/openclaw.rocks/v1alpha1']));
    const url = root.body.paths['apis/openclaw.rocks/v1alpha1'].serverRelativeURL as string;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/openclaw\.rocks\/v1alpha1\?hash=[0-9A-F]{128}$/);
    const custom = (await get(url)).body;
    const item = custom.paths['/apis/openclaw.rocks/v1alpha1/namespaces/{namespace}/openclawinstances/{name}'];
    expect(item.patch['x-kubernetes-group-version-kind']).toEqual({ group: 'openclaw.rocks', kind: 'OpenClawInstance', version: 'v1alpha1' });
    expect(item.patch.parameters.map((p: Obj) => p.name)).toContain('fieldValidation');
    // Custom resources take JSON merge patches, never strategic ones (kubectl picks by this list).
    expect(Object.keys(item.patch.requestBody.content)).not.toContain('application/strategic-merge-patch+json');
    const schema = custom.components.schemas['rocks.openclaw.v1alpha1.OpenClawInstance'];
    expect(schema['x-kubernetes-group-version-kind']).toEqual([{ group: 'openclaw.rocks', kind: 'OpenClawInstance', version: 'v1alpha1' }]);
    expect(schema.properties.spec.properties.skills['x-kubernetes-list-type']).toBe('set');

    const core = (await get('/openapi/v3/api/v1')).body;
    const configMap = core.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
    expect(Object.keys(configMap.patch.requestBody.content)).toContain('application/strategic-merge-patch+json');
    // The built-in kinds' schemas are the real server's (kinds/openapi-captured.ts), to the leaves.
    expect(core.components.schemas['io.k8s.api.core.v1.ConfigMap'].properties.data.additionalProperties).toEqual({ type: 'string' });
    const container = core.components.schemas['io.k8s.api.core.v1.Container'];
    expect(container.required).toEqual(['name']);
    expect(container.properties.env['x-kubernetes-patch-merge-key']).toBe('name');
    expect(container.properties.ports.items).toEqual({ $ref: '#/components/schemas/io.k8s.api.core.v1.ContainerPort' });
    expect((await get('/openapi/v3/apis/nothing.example/v1')).status).toBe(404);
  });

  it('E6 /openapi/v2 answers JSON definitions; a protobuf-only Accept is 406 (the protobuf form is not served)', async () => {
    const v2 = await get('/openapi/v2');
    expect(v2.body.swagger).toBe('2.0');
    expect(v2.body.definitions['io.k8s.api.apps.v1.Deployment'].properties.metadata.$ref).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(v2.body.definitions['io.k8s.api.apps.v1.Deployment']).toEqual(CAPTURED.definitions['io.k8s.api.apps.v1.Deployment']);
    expect((await get('/openapi/v2', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf')).status).toBe(406);
  });
});
