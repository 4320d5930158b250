// What a kubelet makes of a Pod's configuration, as pure functions (E3): whether its volumes mount
// (the configmap, secret and projected volume plugins) and whether a container's environment
// resolves (kubelet_pods.go makeEnvironmentVariables), each failure worded as the kubelet words it;
// and, once a container starts, its environment and the files mounted into it, read from the
// Secrets and ConfigMaps as they are at that moment.

/** Loose shapes: the simulator reads what the API server sent, typed models or not. */
interface KeyRef {
  name?: string;
  key?: string;
  optional?: boolean;
}
interface NameRef {
  name?: string;
  optional?: boolean;
}
interface EnvVar {
  name?: string;
  value?: string;
  valueFrom?: { secretKeyRef?: KeyRef; configMapKeyRef?: KeyRef; fieldRef?: { fieldPath?: string } };
}
interface EnvFrom {
  prefix?: string;
  secretRef?: NameRef;
  configMapRef?: NameRef;
}
interface KeyToPath {
  key?: string;
  path?: string;
}
interface ProjectionSource {
  configMap?: NameRef & { items?: KeyToPath[] };
  secret?: NameRef & { items?: KeyToPath[] };
}
export interface Volume {
  name?: string;
  configMap?: NameRef & { items?: KeyToPath[] };
  secret?: { secretName?: string; optional?: boolean; items?: KeyToPath[] };
  projected?: { sources?: ProjectionSource[] };
}
interface VolumeMount {
  name?: string;
  mountPath?: string;
  subPath?: string;
}
export interface Container {
  name?: string;
  image?: string;
  env?: EnvVar[];
  envFrom?: EnvFrom[];
  volumeMounts?: VolumeMount[];
}
export interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  serviceAccountName?: string;
  nodeName?: string;
}
export interface PodMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export type ConfigKind = 'Secret' | 'ConfigMap';

/** Which keys a Secret (data) or ConfigMap (data, binaryData) has. */
export interface ConfigKeys {
  data: ReadonlySet<string>;
  binaryData: ReadonlySet<string>;
}

export interface ConfigSource {
  /** The keys of a Secret or ConfigMap of the namespace, or undefined when it does not exist. */
  keysOf(kind: ConfigKind, namespace: string, name: string): ConfigKeys | undefined;
}

/** A Secret's or ConfigMap's values as text (Secret data and binaryData decoded from base64). */
export interface ConfigObject {
  data: Record<string, string>;
  binaryData: Record<string, string>;
}

/** The Secrets and ConfigMaps of one Pod's namespace, read at container start. */
export interface ConfigValues {
  valuesOf(kind: ConfigKind, name: string): ConfigObject | undefined;
}

/** The key index of values already read, for deciding on exactly what a container would start with. */
export function keysOfValues(values: ConfigValues): ConfigSource {
  return {
    keysOf(kind, _namespace, name) {
      const object = values.valuesOf(kind, name);
      return object && { data: new Set(Object.keys(object.data)), binaryData: new Set(Object.keys(object.binaryData)) };
    },
  };
}

/** The Secrets and ConfigMaps a Pod's volumes and containers name, to be read at container start. */
export function referencedConfig(spec: PodSpec): Array<{ kind: ConfigKind; name: string }> {
  const out = new Map<string, { kind: ConfigKind; name: string }>();
  const add = (kind: ConfigKind, name: string | undefined) => {
    if (name) out.set(`${kind}/${name}`, { kind, name });
  };
  for (const volume of mountedVolumes(spec)) {
    add('ConfigMap', volume.configMap?.name);
    add('Secret', volume.secret?.secretName);
    for (const source of volume.projected?.sources ?? []) {
      add('ConfigMap', source.configMap?.name);
      add('Secret', source.secret?.name);
    }
  }
  for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    for (const from of container.envFrom ?? []) {
      add('ConfigMap', from.configMapRef?.name);
      add('Secret', from.secretRef?.name);
    }
    for (const env of container.env ?? []) {
      add('ConfigMap', env.valueFrom?.configMapKeyRef?.name);
      add('Secret', env.valueFrom?.secretKeyRef?.name);
    }
  }
  return [...out.values()];
}

/**
 * The volumes the kubelet mounts: those a container (or init container) mounts; the volume
 * manager leaves the others alone (desired_state_of_world_populator: "volume is not used").
 */
function mountedVolumes(spec: PodSpec): Volume[] {
  const used = new Set([...(spec.initContainers ?? []), ...(spec.containers ?? [])].flatMap((c) => (c.volumeMounts ?? []).map((m) => m.name ?? '')));
  return (spec.volumes ?? []).filter((v) => used.has(v.name ?? ''));
}

/** The kubelet's object managers answer a missing object as apierrors.NewNotFound(corev1.Resource("configmap"|"secret"), name). */
function notFound(kind: ConfigKind, name: string): string {
  return `${kind.toLowerCase()} "${name}" not found`;
}

/** MakePayload's refusal of an `items` key the object lacks (configmap.go and secret.go word it differently). */
function missingItemKey(kind: ConfigKind, key: string): string {
  return kind === 'ConfigMap' ? `configmap references non-existent config key: ${key}` : `references non-existent secret key: ${key}`;
}

/** The keys a volume may project: a ConfigMap's data and binaryData, a Secret's data. */
function projectable(keys: ConfigKeys): ReadonlySet<string> {
  return new Set([...keys.data, ...keys.binaryData]);
}

/** One configMap or secret source's SetUp error, or null: the object must exist and hold every item's key, unless optional. */
function sourceError(kind: ConfigKind, ref: { name?: string; optional?: boolean; items?: KeyToPath[] }, namespace: string, source: ConfigSource): string | null {
  const name = ref.name ?? '';
  const optional = ref.optional === true;
  const keys = source.keysOf(kind, namespace, name);
  if (!keys) return optional ? null : notFound(kind, name);
  const present = projectable(keys);
  for (const item of ref.items ?? []) {
    const key = item.key ?? '';
    if (!present.has(key) && !optional) return missingItemKey(kind, key);
  }
  return null;
}

/** Go's utilerrors.NewAggregate(...).Error(): one message as is, several deduplicated within brackets. */
function aggregate(messages: string[]): string | null {
  const distinct = [...new Set(messages)];
  if (distinct.length === 0) return null;
  return distinct.length === 1 ? (distinct[0] as string) : `[${distinct.join(', ')}]`;
}

/** Why a volume's SetUp fails, as the volume plugin words it, or null when it mounts. */
export function volumeSetUpError(volume: Volume, namespace: string, source: ConfigSource): string | null {
  if (volume.configMap) return sourceError('ConfigMap', volume.configMap, namespace, source);
  if (volume.secret) return sourceError('Secret', { ...volume.secret, name: volume.secret.secretName }, namespace, source);
  if (volume.projected) {
    // projected.go collectData: every source is tried, the errors aggregated.
    const errors: string[] = [];
    for (const s of volume.projected.sources ?? []) {
      const error = s.configMap ? sourceError('ConfigMap', s.configMap, namespace, source) : s.secret ? sourceError('Secret', s.secret, namespace, source) : null;
      if (error) errors.push(error);
    }
    return aggregate(errors);
  }
  return null;
}

export interface MountFailure {
  volume: string;
  /** The FailedMount event's message (operation_generator.go: GenerateError("MountVolume.SetUp failed", err)). */
  message: string;
}

/** The volumes of a Pod that do not mount, in the Pod's order. */
export function mountFailures(spec: PodSpec, namespace: string, source: ConfigSource): MountFailure[] {
  const failures: MountFailure[] = [];
  for (const volume of mountedVolumes(spec)) {
    const error = volumeSetUpError(volume, namespace, source);
    if (error) failures.push({ volume: volume.name ?? '', message: `MountVolume.SetUp failed for volume "${volume.name ?? ''}" : ${error}` });
  }
  return failures;
}

/**
 * Why one container cannot be created, as the kubelet words it (makeEnvironmentVariables), or
 * null. envFrom is read before env, and the kubelet stops at the first problem. Environment
 * variables read a ConfigMap's data only, never its binaryData.
 */
export function containerConfigError(container: Container, namespace: string, source: ConfigSource): string | null {
  for (const from of container.envFrom ?? []) {
    for (const [kind, ref] of [
      ['ConfigMap', from.configMapRef],
      ['Secret', from.secretRef],
    ] as const) {
      if (!ref || ref.optional === true) continue;
      if (!source.keysOf(kind, namespace, ref.name ?? '')) return notFound(kind, ref.name ?? '');
    }
  }
  for (const env of container.env ?? []) {
    for (const [kind, ref] of [
      ['ConfigMap', env.valueFrom?.configMapKeyRef],
      ['Secret', env.valueFrom?.secretKeyRef],
    ] as const) {
      if (!ref) continue;
      const name = ref.name ?? '';
      const key = ref.key ?? '';
      const keys = source.keysOf(kind, namespace, name);
      if (!keys) {
        if (ref.optional === true) continue;
        return notFound(kind, name);
      }
      if (!keys.data.has(key) && ref.optional !== true) return `couldn't find key ${key} in ${kind} ${namespace}/${name}`;
    }
  }
  return null;
}

/** A downward-API field of the Pod (fieldpath.ExtractFieldPathAsString and the kubelet's podFieldSelectorRuntimeValue). */
export function podFieldValue(pod: { metadata?: PodMeta; spec?: PodSpec }, fieldPath: string): string {
  const subscripted = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(fieldPath);
  if (subscripted) {
    const map = subscripted[1] === 'labels' ? pod.metadata?.labels : pod.metadata?.annotations;
    return map?.[subscripted[2] ?? ''] ?? '';
  }
  switch (fieldPath) {
    case 'metadata.name':
      return pod.metadata?.name ?? '';
    case 'metadata.namespace':
      return pod.metadata?.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata?.uid ?? '';
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? '';
    default:
      // status.podIP, status.hostIP and the like: no network here.
      return '';
  }
}

/**
 * A started container's environment as its process sees it: envFrom entries in order (each key
 * with its prefix), then env entries in order, a later name replacing an earlier one. Optional
 * references to what is missing contribute nothing. `$(VAR)` references are left as written.
 */
export function containerEnvironment(pod: { metadata?: PodMeta; spec?: PodSpec }, container: Container, values: ConfigValues): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const [kind, ref] = from.configMapRef ? (['ConfigMap', from.configMapRef] as const) : (['Secret', from.secretRef] as const);
    const object = ref ? values.valuesOf(kind, ref.name ?? '') : undefined;
    for (const [key, value] of Object.entries(object?.data ?? {})) env[`${from.prefix ?? ''}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    const name = variable.name ?? '';
    const from = variable.valueFrom;
    if (!from) {
      env[name] = variable.value ?? '';
      continue;
    }
    if (from.fieldRef) {
      env[name] = podFieldValue(pod, from.fieldRef.fieldPath ?? '');
      continue;
    }
    const [kind, ref] = from.configMapKeyRef ? (['ConfigMap', from.configMapKeyRef] as const) : (['Secret', from.secretKeyRef] as const);
    const value = ref ? values.valuesOf(kind, ref.name ?? '')?.data[ref.key ?? ''] : undefined;
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** A source's files relative to its volume: every key, or the `items` key → path mappings. */
function sourceFiles(object: ConfigObject | undefined, items: KeyToPath[] | undefined): Record<string, string> {
  if (!object) return {};
  const all = { ...object.data, ...object.binaryData };
  if (!items || items.length === 0) return all;
  const files: Record<string, string> = {};
  for (const item of items) {
    const content = all[item.key ?? ''];
    if (content !== undefined) files[item.path ?? ''] = content;
  }
  return files;
}

/** A volume's files relative to its root; projected sources in order, a later path replacing an earlier one. */
function volumeFiles(volume: Volume, values: ConfigValues): Record<string, string> {
  if (volume.configMap) return sourceFiles(values.valuesOf('ConfigMap', volume.configMap.name ?? ''), volume.configMap.items);
  if (volume.secret) return sourceFiles(values.valuesOf('Secret', volume.secret.secretName ?? ''), volume.secret.items);
  const files: Record<string, string> = {};
  for (const s of volume.projected?.sources ?? []) {
    if (s.configMap) Object.assign(files, sourceFiles(values.valuesOf('ConfigMap', s.configMap.name ?? ''), s.configMap.items));
    if (s.secret) Object.assign(files, sourceFiles(values.valuesOf('Secret', s.secret.name ?? ''), s.secret.items));
  }
  return files;
}

function joinPath(directory: string, relative: string): string {
  return relative === '' ? directory : `${directory.replace(/\/+$/, '')}/${relative}`;
}

/**
 * The files a started container sees, by absolute path: each volumeMount's volume at its
 * mountPath; with a subPath, only that file (at mountPath itself) or directory of the volume.
 */
export function containerFiles(spec: PodSpec, container: Container, values: ConfigValues): Record<string, string> {
  const files: Record<string, string> = {};
  for (const mount of container.volumeMounts ?? []) {
    const volume = (spec.volumes ?? []).find((v) => v.name === mount.name);
    if (!volume) continue;
    const mountPath = mount.mountPath ?? '';
    const subPath = (mount.subPath ?? '').replace(/^\/+|\/+$/g, '');
    for (const [path, content] of Object.entries(volumeFiles(volume, values))) {
      if (subPath === '') files[joinPath(mountPath, path)] = content;
      else if (path === subPath) files[mountPath] = content;
      else if (path.startsWith(`${subPath}/`)) files[joinPath(mountPath, path.slice(subPath.length + 1))] = content;
    }
  }
  return files;
}
