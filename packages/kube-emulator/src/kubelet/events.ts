// The Warning events the kubelet records on a Pod (E3), written as client-go's event recorder
// writes core/v1 Events: involvedObject the Pod (with the container's fieldPath for container
// events), source and reportingComponent `kubelet`. Like its correlator, a repeated event is not a
// new object: an event stays recorded while its problem lasts, and when the problem comes back after
// going away the existing Event's count and lastTimestamp go up. Names are derived from the Pod's
// uid and the event, so a restarted simulator finds what it wrote before (409) instead of repeating it.

import { createHash } from 'node:crypto';
import { ApiException, type CoreV1Api, type CoreV1Event, type V1Pod } from '@kubernetes/client-node';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { kubeTimestamp } from '../types.ts';
import type { KubeletEvent } from './gateway-status.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

interface Recorded {
  name: string;
  count: number;
  /** The problem is there at the last evaluation. */
  active: boolean;
}

function code(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

export class PodEvents {
  private readonly recorded = new Map<string, Map<string, Recorded>>();

  constructor(
    private readonly core: CoreV1Api,
    private readonly clock: () => Date,
    private readonly host: string,
    private readonly fieldManager: string,
  ) {}

  /** Records the events of the Pod's current problems that are not recorded as ongoing. */
  async sync(pod: V1Pod, events: readonly KubeletEvent[]): Promise<void> {
    const uid = pod.metadata?.uid ?? '';
    const known = this.recorded.get(uid) ?? new Map<string, Recorded>();
    this.recorded.set(uid, known);
    const current = new Set<string>();
    for (const event of events) {
      const key = JSON.stringify([event.reason, event.message, event.fieldPath ?? '']);
      current.add(key);
      const entry = known.get(key);
      if (entry?.active) continue;
      if (entry && (await this.repeat(pod, entry))) continue;
      known.set(key, await this.create(pod, event, key));
    }
    for (const [key, entry] of known) if (!current.has(key)) entry.active = false;
  }

  /** The Pod is gone (its events stay until the server's event TTL). */
  forget(uid: string): void {
    this.recorded.delete(uid);
  }

  private async repeat(pod: V1Pod, entry: Recorded): Promise<boolean> {
    const namespace = pod.metadata?.namespace ?? '';
    const body = { count: entry.count + 1, lastTimestamp: kubeTimestamp(this.clock()) };
    try {
      await this.core.patchNamespacedEvent({ name: entry.name, namespace, body, fieldManager: this.fieldManager }, mergePatch);
    } catch (error) {
      if (code(error) === 404) return false;
      throw error;
    }
    entry.count += 1;
    entry.active = true;
    return true;
  }

  private async create(pod: V1Pod, event: KubeletEvent, key: string): Promise<Recorded> {
    const namespace = pod.metadata?.namespace ?? '';
    const podName = pod.metadata?.name ?? '';
    const name = `${podName}.${createHash('sha256')
      .update(`${pod.metadata?.uid ?? ''}\n${key}`)
      .digest('hex')
      .slice(0, 16)}`;
    const now = kubeTimestamp(this.clock());
    // Times as RFC 3339 seconds: the typed model's Date would be sent with milliseconds.
    const body = {
      metadata: { name, namespace },
      involvedObject: {
        kind: 'Pod',
        namespace,
        name: podName,
        uid: pod.metadata?.uid,
        apiVersion: 'v1',
        resourceVersion: pod.metadata?.resourceVersion,
        ...(event.fieldPath ? { fieldPath: event.fieldPath } : {}),
      },
      reason: event.reason,
      message: event.message,
      type: 'Warning',
      source: { component: 'kubelet', host: this.host },
      reportingComponent: 'kubelet',
      reportingInstance: this.host,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    } as unknown as CoreV1Event;
    try {
      await this.core.createNamespacedEvent({ namespace, body, fieldManager: this.fieldManager });
      return { name, count: 1, active: true };
    } catch (error) {
      if (code(error) !== 409) throw error;
      // Written before this process started: it is the same event, already there.
      const existing = await this.core.readNamespacedEvent({ name, namespace });
      return { name, count: existing.count ?? 1, active: true };
    }
  }
}
