// The formatting helpers kube-apiserver's printers share (k8s.io/apimachinery's duration and
// label formatting, k8s.io/kubernetes pkg/printers/internalversion), for the cells of Table rows.

import { isObject, type JsonObject } from '../types.ts';

/** k8s.io/apimachinery/pkg/util/duration.HumanDuration, as kubectl shows ages. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/** translateTimestampSince: the age of a timestamp, `<unknown>` when there is none. */
export function since(timestamp: unknown, now = Date.now()): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const at = Date.parse(timestamp);
  return Number.isNaN(at) ? '<unknown>' : humanDuration(now - at);
}

/** A timestamp as the printers' "Created At" columns write it: RFC 3339 in UTC, to the second. */
export function rfc3339(timestamp: unknown): string {
  const at = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  return Number.isNaN(at) ? '0001-01-01T00:00:00Z' : new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const obj = (value: unknown): JsonObject => (isObject(value) ? value : {});
export const list = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isObject) : []);
export const text = (value: unknown): string => (typeof value === 'string' ? value : '');
export const int = (value: unknown): number => (typeof value === 'number' ? Math.trunc(value) : 0);

/** labels.FormatLabels: `k=v` pairs sorted by key, `<none>` for none. */
export function formatLabels(labels: unknown): string {
  const pairs = Object.entries(obj(labels))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${String(v)}`);
  return pairs.length > 0 ? pairs.join(',') : '<none>';
}

/**
 * metav1.FormatLabelSelector: the selector's requirements sorted by key (`k=v`, `k in (a,b)`,
 * `k notin (a,b)`, `k`, `!k`), `<none>` for an empty or absent selector.
 */
export function formatLabelSelector(selector: unknown): string {
  const requirements: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(obj(obj(selector).matchLabels))) requirements.push([key, `${key}=${String(value)}`]);
  for (const expression of list(obj(selector).matchExpressions)) {
    const key = text(expression.key);
    const values = (Array.isArray(expression.values) ? expression.values.map(String) : []).sort();
    switch (expression.operator) {
      case 'In':
        requirements.push([key, `${key} in (${values.join(',')})`]);
        break;
      case 'NotIn':
        requirements.push([key, `${key} notin (${values.join(',')})`]);
        break;
      case 'Exists':
        requirements.push([key, key]);
        break;
      case 'DoesNotExist':
        requirements.push([key, `!${key}`]);
        break;
      default:
        return '<error>';
    }
  }
  const formatted = requirements
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, r]) => r)
    .join(',');
  return formatted === '' ? '<none>' : formatted;
}

/** layoutContainerCells: the names and the images of a pod template's containers, comma-separated. */
export function containerCells(podTemplate: unknown): [string, string] {
  const containers = list(obj(obj(podTemplate).spec).containers);
  return [containers.map((c) => text(c.name)).join(','), containers.map((c) => text(c.image)).join(',')];
}

/** intstr.IntOrString.String(). */
export function intOrString(value: unknown): string {
  return typeof value === 'number' ? String(Math.trunc(value)) : text(value);
}
