import { forbidden, type StatusError } from './errors.ts';

// Pod Security Admission (Kubernetes 1.25+, emulated: the lane's 1.20 server has none): a
// namespace labelled `pod-security.kubernetes.io/enforce: baseline | restricted` refuses a Pod
// that violates that level, when it is created, with the real plugin's words
// (k8s.io/pod-security-admission/policy: each check's reason, then what to set, joined by ", ").
// Only `enforce` is emulated (not `audit` or `warn`), for the checks of the current ("latest")
// version of each level; a Pod is judged as created, so a Deployment whose template violates the
// level keeps its ReplicaSet without Pods (the simulator's FailedCreate).

export type PodSecurityLevel = 'privileged' | 'baseline' | 'restricted';

export const ENFORCE_LABEL = 'pod-security.kubernetes.io/enforce';
export const ENFORCE_VERSION_LABEL = 'pod-security.kubernetes.io/enforce-version';

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** The level a namespace's labels enforce (an unknown value counts as restricted, as the plugin's defaulting would refuse it). */
export function enforcedLevel(labels: Record<string, string> | undefined): { level: PodSecurityLevel; version: string } | null {
  const value = labels?.[ENFORCE_LABEL];
  if (value === undefined || value === 'privileged') return null;
  const level: PodSecurityLevel = value === 'baseline' ? 'baseline' : 'restricted';
  return { level, version: labels?.[ENFORCE_VERSION_LABEL] || 'latest' };
}

/** The capabilities a baseline Pod may add (the container runtime's defaults). */
const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
const RESTRICTED_VOLUME_TYPES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);

function quoted(names: string[]): string {
  return names.map((n) => JSON.stringify(n)).join(', ');
}

/** `container "a"` or `containers "a", "b"`, as the plugin names them. */
function containers(names: string[]): string {
  return `${names.length === 1 ? 'container' : 'containers'} ${quoted(names)}`;
}

/** Each violation of `level` by the Pod's spec, in the plugin's order and words. */
export function podSecurityViolations(level: PodSecurityLevel, spec: Obj): string[] {
  if (level === 'privileged') return [];
  const all = [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)];
  const named = (pick: (c: Obj, sc: Obj) => boolean) => all.filter((c) => pick(c, isObject(c.securityContext) ? c.securityContext : {})).map((c) => String(c.name ?? ''));
  const podContext = isObject(spec.securityContext) ? spec.securityContext : {};
  const out: string[] = [];

  // baseline
  const hostNamespaces = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((f) => spec[f] === true);
  if (hostNamespaces.length) out.push(`host namespaces (${hostNamespaces.map((f) => `${f}=true`).join(', ')})`);
  const privileged = named((_c, sc) => sc.privileged === true);
  if (privileged.length) out.push(`privileged (${containers(privileged)} must not set securityContext.privileged=true)`);
  const added = all.flatMap((c) => {
    const caps = isObject(c.securityContext) && isObject(c.securityContext.capabilities) ? c.securityContext.capabilities : {};
    return (Array.isArray(caps.add) ? caps.add.map(String) : []).filter((cap) => !BASELINE_CAPABILITIES.has(cap)).map((cap) => ({ container: String(c.name ?? ''), cap }));
  });
  if (added.length && level === 'baseline') {
    const names = [...new Set(added.map((a) => a.container))];
    out.push(`non-default capabilities (${containers(names)} must not include ${quoted([...new Set(added.map((a) => a.cap))])} in securityContext.capabilities.add)`);
  }
  // At restricted, the restricted volume types and capabilities checks replace these two
  // (the plugin's OverrideCheckIDs): one message each, not two.
  const hostPaths = level === 'baseline' ? list(spec.volumes).filter((v) => v.hostPath !== undefined).map((v) => String(v.name ?? '')) : [];
  if (hostPaths.length) out.push(`hostPath volumes (${hostPaths.length === 1 ? 'volume' : 'volumes'} ${quoted(hostPaths)})`);
  const hostPorts = all.flatMap((c) => list(c.ports).filter((p) => typeof p.hostPort === 'number' && p.hostPort !== 0).map((p) => ({ container: String(c.name ?? ''), port: p.hostPort as number })));
  if (hostPorts.length) {
    out.push(`hostPort (${containers([...new Set(hostPorts.map((h) => h.container))])} ${hostPorts.length === 1 ? 'uses hostPort' : 'use hostPorts'} ${hostPorts.map((h) => h.port).join(', ')})`);
  }
  if (level === 'baseline') return out;

  // restricted
  const restrictedVolumes = list(spec.volumes).filter((v) => !Object.keys(v).some((k) => k !== 'name' && RESTRICTED_VOLUME_TYPES.has(k)));
  if (restrictedVolumes.length) {
    const types = restrictedVolumes.map((v) => Object.keys(v).find((k) => k !== 'name') ?? 'unknown');
    out.push(`restricted volume types (${restrictedVolumes.length === 1 ? 'volume' : 'volumes'} ${quoted(restrictedVolumes.map((v) => String(v.name ?? '')))} ${restrictedVolumes.length === 1 ? 'uses' : 'use'} restricted volume ${types.length === 1 ? 'type' : 'types'} ${quoted([...new Set(types)])})`);
  }
  const escalating = named((_c, sc) => sc.allowPrivilegeEscalation !== false);
  if (escalating.length) out.push(`allowPrivilegeEscalation != false (${containers(escalating)} must set securityContext.allowPrivilegeEscalation=false)`);
  const undropped = named((_c, sc) => !(isObject(sc.capabilities) && Array.isArray(sc.capabilities.drop) && sc.capabilities.drop.includes('ALL')));
  const extra = all.flatMap((c) => {
    const caps = isObject(c.securityContext) && isObject(c.securityContext.capabilities) ? c.securityContext.capabilities : {};
    return (Array.isArray(caps.add) ? caps.add.map(String) : []).filter((cap) => cap !== 'NET_BIND_SERVICE').map((cap) => ({ container: String(c.name ?? ''), cap }));
  });
  if (undropped.length || extra.length) {
    const parts = [
      ...(undropped.length ? [`${containers(undropped)} must set securityContext.capabilities.drop=["ALL"]`] : []),
      ...(extra.length ? [`${containers([...new Set(extra.map((e) => e.container))])} must not include ${quoted([...new Set(extra.map((e) => e.cap))])} in securityContext.capabilities.add`] : []),
    ];
    out.push(`unrestricted capabilities (${parts.join('; ')})`);
  }
  const podNonRoot = podContext.runAsNonRoot === true;
  const rootContainers = named((_c, sc) => sc.runAsNonRoot === false || (!podNonRoot && sc.runAsNonRoot !== true));
  if (podContext.runAsNonRoot === false || rootContainers.length) {
    out.push(
      podNonRoot || rootContainers.length === 0
        ? `runAsNonRoot != true (${containers(rootContainers)} must not set securityContext.runAsNonRoot=false)`
        : `runAsNonRoot != true (pod or ${containers(rootContainers)} must set securityContext.runAsNonRoot=true)`,
    );
  }
  const rootUsers = named((_c, sc) => sc.runAsUser === 0);
  if (podContext.runAsUser === 0 || rootUsers.length) {
    out.push(`runAsUser=0 (${podContext.runAsUser === 0 ? 'pod' : containers(rootUsers)} must not set runAsUser=0)`);
  }
  const seccompOk = (sc: Obj) => isObject(sc.seccompProfile) && (sc.seccompProfile.type === 'RuntimeDefault' || sc.seccompProfile.type === 'Localhost');
  const podSeccomp = seccompOk(podContext);
  const unconfined = named((_c, sc) => (sc.seccompProfile !== undefined ? !seccompOk(sc) : !podSeccomp));
  if (unconfined.length) {
    out.push(
      podSeccomp
        ? `seccompProfile (${containers(unconfined)} must not set securityContext.seccompProfile.type to "Unconfined")`
        : `seccompProfile (pod or ${containers(unconfined)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`,
    );
  }
  return out;
}

/** The refusal of a Pod that violates its namespace's enforced level, or null. */
export function podSecurityRefusal(namespaceLabels: Record<string, string> | undefined, pod: Obj): StatusError | null {
  const enforced = enforcedLevel(namespaceLabels);
  if (!enforced) return null;
  const violations = podSecurityViolations(enforced.level, isObject(pod.spec) ? pod.spec : {});
  if (violations.length === 0) return null;
  const name = isObject(pod.metadata) && typeof pod.metadata.name === 'string' ? pod.metadata.name : '';
  return forbidden({ group: '', resource: 'pods' }, name, `violates PodSecurity "${enforced.level}:${enforced.version}": ${violations.join(', ')}`);
}
