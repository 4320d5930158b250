import { describe, expect, it } from 'vitest';
import {
  containerConfigError,
  containerEnvironment,
  containerFiles,
  mountFailures,
  type ConfigKind,
  type ConfigObject,
  type ConfigSource,
  type ConfigValues,
  type PodSpec,
} from './pod-config.ts';

type Objects = Partial<Record<`${ConfigKind}/${string}`, Partial<ConfigObject>>>;

/** A namespace's Secrets and ConfigMaps, as values and as the key index the simulator keeps. */
function world(objects: Objects): { values: ConfigValues; source: ConfigSource } {
  const get = (kind: ConfigKind, name: string): ConfigObject | undefined => {
    const o = objects[`${kind}/${name}`];
    return o && { data: o.data ?? {}, binaryData: o.binaryData ?? {} };
  };
  return {
    values: { valuesOf: get },
    source: {
      keysOf: (kind, _ns, name) => {
        const o = get(kind, name);
        return o && { data: new Set(Object.keys(o.data)), binaryData: new Set(Object.keys(o.binaryData)) };
      },
    },
  };
}

const mounted = (volumes: PodSpec['volumes']): PodSpec => ({
  containers: [{ name: 'gateway', volumeMounts: (volumes ?? []).map((v, i) => ({ name: v.name, mountPath: `/mnt/${i}` })) }],
  volumes,
});

describe('volumes, as the kubelet mounts them', () => {
  it("E3 a missing ConfigMap, Secret or items key fails SetUp in the volume plugin's words", () => {
    const { source } = world({ 'ConfigMap/settings': { data: { mode: 'fast' } }, 'Secret/creds': { data: { value: 'x' } } });
    const spec = mounted([
      { name: 'config', configMap: { name: 'absent' } },
      { name: 'keys', configMap: { name: 'settings', items: [{ key: 'mode', path: 'mode' }, { key: 'level', path: 'level' }] } },
      { name: 'model-auth', secret: { secretName: 'gone' } },
      { name: 'secret-keys', secret: { secretName: 'creds', items: [{ key: 'token', path: 't' }] } },
      { name: 'fine', configMap: { name: 'settings', items: [{ key: 'mode', path: 'm' }] } },
    ]);
    expect(mountFailures(spec, 'ns', source)).toEqual([
      { volume: 'config', message: 'MountVolume.SetUp failed for volume "config" : configmap "absent" not found' },
      { volume: 'keys', message: 'MountVolume.SetUp failed for volume "keys" : configmap references non-existent config key: level' },
      { volume: 'model-auth', message: 'MountVolume.SetUp failed for volume "model-auth" : secret "gone" not found' },
      { volume: 'secret-keys', message: 'MountVolume.SetUp failed for volume "secret-keys" : references non-existent secret key: token' },
    ]);
  });

  it('E3 a projected volume tries every source and aggregates their errors as Go does', () => {
    const { source } = world({ 'Secret/creds': { data: { value: 'x' } } });
    const one = mounted([{ name: 'p', projected: { sources: [{ secret: { name: 'creds' } }, { configMap: { name: 'absent' } }] } }]);
    expect(mountFailures(one, 'ns', source).map((f) => f.message)).toEqual(['MountVolume.SetUp failed for volume "p" : configmap "absent" not found']);
    const two = mounted([{ name: 'p', projected: { sources: [{ configMap: { name: 'absent' } }, { secret: { name: 'creds', items: [{ key: 'nope', path: 'n' }] } }] } }]);
    expect(mountFailures(two, 'ns', source).map((f) => f.message)).toEqual([
      'MountVolume.SetUp failed for volume "p" : [configmap "absent" not found, references non-existent secret key: nope]',
    ]);
  });

  it('E3 optional sources, binaryData keys and volumes no container mounts do not fail', () => {
    const { source } = world({ 'ConfigMap/bin': { binaryData: { blob: 'AA==' } } });
    const spec: PodSpec = {
      containers: [{ name: 'gateway', volumeMounts: [{ name: 'a', mountPath: '/a' }, { name: 'b', mountPath: '/b' }, { name: 'c', mountPath: '/c' }] }],
      volumes: [
        { name: 'a', configMap: { name: 'absent', optional: true, items: [{ key: 'x', path: 'x' }] } },
        { name: 'b', configMap: { name: 'bin', items: [{ key: 'blob', path: 'blob' }] } },
        { name: 'c', projected: { sources: [{ secret: { name: 'absent', optional: true } }] } },
        { name: 'unused', secret: { secretName: 'absent' } },
      ],
    };
    expect(mountFailures(spec, 'ns', source)).toEqual([]);
  });
});

describe('environment, as the kubelet makes it', () => {
  it('E3 env reads a ConfigMap\'s data only, and optional references to what is missing are skipped', () => {
    const { source } = world({ 'ConfigMap/bin': { binaryData: { blob: 'AA==' } } });
    expect(containerConfigError({ env: [{ name: 'B', valueFrom: { configMapKeyRef: { name: 'bin', key: 'blob' } } }] }, 'ns', source)).toBe(
      "couldn't find key blob in ConfigMap ns/bin",
    );
    expect(
      containerConfigError(
        {
          envFrom: [{ secretRef: { name: 'absent', optional: true } }],
          env: [
            { name: 'A', valueFrom: { secretKeyRef: { name: 'absent', key: 'k', optional: true } } },
            { name: 'B', valueFrom: { configMapKeyRef: { name: 'bin', key: 'blob', optional: true } } },
          ],
        },
        'ns',
        source,
      ),
    ).toBeNull();
    expect(containerConfigError({ envFrom: [{ configMapRef: { name: 'absent' } }] }, 'ns', source)).toBe('configmap "absent" not found');
  });

  it('E3 a started container sees envFrom then env, later names replacing earlier ones, and the downward fields it names', () => {
    const { values } = world({
      'ConfigMap/settings': { data: { MODE: 'fast', LEVEL: '3' } },
      'Secret/creds': { data: { TOKEN: 'sk-1', MODE: 'from-secret' } },
    });
    const pod = {
      metadata: { name: 'gw-1', namespace: 'ns', uid: 'u-1', labels: { app: 'gw' }, annotations: { 'example.com/rev': 'r7' } },
      spec: { serviceAccountName: 'gw-sa' },
    };
    const env = containerEnvironment(
      pod,
      {
        envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'CFG_' }, { configMapRef: { name: 'settings' } }, { secretRef: { name: 'creds' } }, { secretRef: { name: 'absent', optional: true } }],
        env: [
          { name: 'MODE', value: 'literal' },
          { name: 'KEY', valueFrom: { secretKeyRef: { name: 'creds', key: 'TOKEN' } } },
          { name: 'LVL', valueFrom: { configMapKeyRef: { name: 'settings', key: 'LEVEL' } } },
          { name: 'MISSING', valueFrom: { secretKeyRef: { name: 'creds', key: 'nope', optional: true } } },
          { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          { name: 'REV', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['example.com/rev']" } } },
          { name: 'SA', valueFrom: { fieldRef: { fieldPath: 'spec.serviceAccountName' } } },
          { name: 'EMPTY' },
          { name: 'LVL', value: 'last wins' },
        ],
      },
      values,
    );
    expect(env).toEqual({
      CFG_MODE: 'fast',
      CFG_LEVEL: '3',
      LEVEL: '3',
      MODE: 'literal',
      TOKEN: 'sk-1',
      KEY: 'sk-1',
      LVL: 'last wins',
      POD: 'gw-1',
      NS: 'ns',
      APP: 'gw',
      REV: 'r7',
      SA: 'gw-sa',
      EMPTY: '',
    });
  });
});

describe('files, as a started container sees them', () => {
  it('E3 items map keys to paths, projected sources merge in order, and a subPath mounts one file', () => {
    const { values } = world({
      'ConfigMap/settings': { data: { 'config.json': '{"a":1}', 'skills.json': '[]' }, binaryData: { 'logo.txt': 'logo' } },
      'Secret/creds': { data: { value: 'sk-1', other: 'o' } },
    });
    const spec: PodSpec = {
      volumes: [
        { name: 'config', configMap: { name: 'settings', items: [{ key: 'config.json', path: 'openclaw.json' }, { key: 'skills.json', path: 'sub/skills.json' }] } },
        { name: 'auth', secret: { secretName: 'creds' } },
        { name: 'all', projected: { sources: [{ configMap: { name: 'settings', items: [{ key: 'config.json', path: 'x' }] } }, { secret: { name: 'creds', items: [{ key: 'value', path: 'x' }] } }] } },
        { name: 'absent', configMap: { name: 'absent', optional: true } },
      ],
    };
    const files = containerFiles(
      spec,
      {
        volumeMounts: [
          { name: 'config', mountPath: '/etc/openclaw/' },
          { name: 'auth', mountPath: '/var/run/auth' },
          { name: 'all', mountPath: '/p' },
          { name: 'config', mountPath: '/only/skills.json', subPath: 'sub/skills.json' },
          { name: 'config', mountPath: '/dir', subPath: 'sub' },
          { name: 'absent', mountPath: '/nothing' },
        ],
      },
      values,
    );
    expect(files).toEqual({
      '/etc/openclaw/openclaw.json': '{"a":1}',
      '/etc/openclaw/sub/skills.json': '[]',
      '/var/run/auth/value': 'sk-1',
      '/var/run/auth/other': 'o',
      '/p/x': 'sk-1',
      '/only/skills.json': '[]',
      '/dir/skills.json': '[]',
    });
  });
});
