import { randomBytes } from 'node:crypto';
import type { CoreV1Event } from '@kubernetes/client-node';

// An Event as `kubectl describe` shows it under the object it concerns: one per occurrence (a
// random name suffix), its component the field manager that acted, its message cut to the 1 KiB an
// API server keeps.

export interface Involved {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  uid: string;
}

export function eventBody(involved: Involved, type: 'Normal' | 'Warning', reason: string, message: string, component: string, now: Date): CoreV1Event {
  return {
    metadata: { name: `${involved.name}.${randomBytes(8).toString('hex')}`, namespace: involved.namespace },
    involvedObject: { apiVersion: involved.apiVersion, kind: involved.kind, name: involved.name, namespace: involved.namespace, uid: involved.uid },
    type,
    reason,
    message: message.slice(0, 1024),
    source: { component },
    reportingComponent: component,
    reportingInstance: component,
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}
