import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { classifyKubeError } from '../kube/errors.ts';
import type { Logger } from '../log.ts';

// R4: leader election through a coordination.k8s.io/v1 Lease, for work that must run once
// (sweepers, the SelfConfig controller). client-go's algorithm: a holder renews every retry
// period; a candidate takes the Lease once the holder has not changed it for a whole lease
// duration as measured on the candidate's own clock (so clocks need not agree); every write is
// conditional on the resourceVersion read; a leader that cannot renew within its renew deadline
// (shorter than the duration) steps down before anyone else may take over.

export interface ElectorOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
  /** A leader that has not renewed for this long stops acting as one; 2/3 of the duration by default. */
  renewDeadlineMs?: number;
  /** How often to try acquiring or renewing; the duration / 5 by default. */
  retryPeriodMs?: number;
  clock?: () => number;
  logger?: Logger;
  onChange?: (leader: boolean) => void;
}

export interface Elector {
  isLeader(): boolean;
  /** One acquire-or-renew round (the loop calls it every retry period; tests call it directly). */
  tick(): Promise<void>;
  start(): void;
  /** Stops the loop and, when leading, releases the Lease so another replica takes it at once. */
  stop(): Promise<void>;
}

export function createElector(options: ElectorOptions): Elector {
  const api = options.kubeConfig.makeApiClient(CoordinationV1Api);
  const duration = options.leaseDurationSeconds ?? 15;
  const renewDeadlineMs = options.renewDeadlineMs ?? (duration * 1000 * 2) / 3;
  const retryPeriodMs = options.retryPeriodMs ?? (duration * 1000) / 5;
  const clock = options.clock ?? Date.now;
  const { namespace, name, identity } = options;
  let leader = false;
  let lastRenewAt = -Infinity;
  let observed: { key: string; at: number } | null = null;
  let timer: NodeJS.Timeout | null = null;
  let round: Promise<void> = Promise.resolve();
  let stopped = false;

  const setLeader = (value: boolean) => {
    if (value === leader) return;
    leader = value;
    options.logger?.info(value ? 'became leader' : 'lost leadership', { lease: `${namespace}/${name}`, identity });
    options.onChange?.(value);
  };

  // Lease times are MicroTime: a plain Date would serialize with three fractional digits, which a
  // real API server refuses (400; found by the E8 lane). What was read back is re-sent as read.
  // (client-node types a MicroTime it read as V1MicroTime but hands back the string it received.)
  const micro = (time: V1MicroTime | string): V1MicroTime => (typeof time === 'string' || time instanceof V1MicroTime ? (time as V1MicroTime) : new V1MicroTime(time));
  const spec = (now: number, previous?: V1Lease) => ({
    holderIdentity: identity,
    leaseDurationSeconds: duration,
    acquireTime: previous?.spec?.holderIdentity === identity && previous.spec.acquireTime ? micro(previous.spec.acquireTime) : new V1MicroTime(now),
    renewTime: new V1MicroTime(now),
    leaseTransitions: (previous?.spec?.leaseTransitions ?? 0) + (previous && previous.spec?.holderIdentity !== identity ? 1 : 0),
  });

  async function tryAcquireOrRenew(): Promise<boolean> {
    const now = clock();
    let current: V1Lease;
    try {
      current = await api.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (classifyKubeError(error).kind !== 'object-not-found') throw error;
      try {
        await api.createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec: spec(now) } });
        return true;
      } catch (createError) {
        if (classifyKubeError(createError).kind === 'already-exists') return false;
        throw createError;
      }
    }
    const holder = current.spec?.holderIdentity ?? '';
    // What the holder last wrote: a change restarts the candidate's own count of the duration.
    const key = `${holder}|${String(current.spec?.renewTime ?? '')}|${current.metadata?.resourceVersion ?? ''}`;
    if (!observed || observed.key !== key) observed = { key, at: now };
    const heldByOther = holder !== '' && holder !== identity;
    const leaseMs = (current.spec?.leaseDurationSeconds ?? duration) * 1000;
    if (heldByOther && now < observed.at + leaseMs) return false;
    try {
      // Conditional on the resourceVersion read: a concurrent candidate's write makes this a 409.
      await api.replaceNamespacedLease({ name, namespace, body: { ...current, spec: spec(now, current) } });
      return true;
    } catch (error) {
      if (classifyKubeError(error).kind === 'conflict') return false;
      throw error;
    }
  }

  async function tick(): Promise<void> {
    if (stopped) return;
    try {
      if (await tryAcquireOrRenew()) {
        lastRenewAt = clock();
        setLeader(true);
        return;
      }
      setLeader(false);
    } catch (error) {
      options.logger?.warn('lease renewal failed', { error });
    }
    if (leader && clock() - lastRenewAt >= renewDeadlineMs) setLeader(false);
  }

  function loop(): void {
    round = round.then(tick);
    void round.then(() => {
      if (!stopped) timer = setTimeout(loop, retryPeriodMs);
    });
  }

  return {
    isLeader: () => leader && clock() - lastRenewAt < renewDeadlineMs,
    tick: () => (round = round.then(tick)),
    start: loop,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await round;
      if (!leader) return;
      setLeader(false);
      try {
        const current = await api.readNamespacedLease({ name, namespace });
        if (current.spec?.holderIdentity !== identity) return;
        // Released as client-go does: no holder, so a candidate need not wait out the duration.
        await api.replaceNamespacedLease({ name, namespace, body: { ...current, spec: { ...current.spec, holderIdentity: undefined, leaseDurationSeconds: 1, renewTime: new V1MicroTime(clock()) } } });
      } catch (error) {
        options.logger?.warn('lease release failed', { error });
      }
    },
  };
}
