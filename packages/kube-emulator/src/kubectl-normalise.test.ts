// The differential kubectl test (E8) compares both servers' answers after `normalise`; only the
// lane runs that test, so what normalise hides, and what it must leave for comparison, is held here.
import { describe, expect, it } from 'vitest';
import { normalise } from './kubectl-testing.ts';

const NS = 'kubectl-diff-1a2b3c';

/** A small deterministic generator, so a failure names a reproducible case. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('E8 normalise (the kubectl differential test)', () => {
  it('E8 replaces what differs between two runs: namespace, uid, resourceVersion, times, tokens, addresses, temp paths, klog prefixes', () => {
    const text = [
      `namespace/${NS} created`,
      'uid: 0f8fad5b-d9cb-469f-a165-70867728950e',
      'resourceVersion: "12345"',
      '"resourceVersion":"9"',
      'creationTimestamp: "2026-12-07T03:04:05Z"',
      'time: 2026-12-07 03:04:05.123456 +0000 UTC',
      'token: eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl',
      'error: dial tcp 127.0.0.1:36841: connect: connection refused on https://127.0.0.1:6443',
      'error: open /tmp/kube-abc/x.yaml: no such file',
      'I1207 03:04:05.123456   12345 request.go:1] Throttling',
    ].join('\n');
    expect(normalise(text, NS)).toBe(
      [
        'namespace/<ns> created',
        'uid: <uid>',
        'resourceVersion: <rv>',
        '"resourceVersion":<rv>',
        'creationTimestamp: "<time>"',
        'time: <time> UTC',
        'token: <token>',
        'error: dial tcp <server>: connect: connection refused on <server>',
        'error: open <tmp> no such file',
        'I<klog> request.go:1] Throttling',
      ].join('\n'),
    );
  });

  it('E8 keeps what the servers must agree on: names, counts, numbers in columns that are not ages, words ending in s/m/h/d', () => {
    const text = ['NAME    READY   UP-TO-DATE   AVAILABLE', 'web     1/1     1            1', 'replicas: 10', 'message: pods 3d is not a duration', 'name: web-10s'].join('\n');
    expect(normalise(text, NS)).toBe(text);
  });

  it('E8 two tables that differ only in their ages and the padding those ages cause normalise alike (generated ages)', () => {
    const random = generator(7);
    const age = () => {
      const units = ['s', 'm', 'h', 'd'];
      const first = `${1 + Math.floor(random() * 99)}${units[Math.floor(random() * 4)]}`;
      return random() < 0.3 ? `${first}${1 + Math.floor(random() * 59)}s` : first;
    };
    const table = (ages: string[]) => {
      const width = Math.max(3, ...ages.map((a) => a.length));
      return [`NAME   DATA   ${'AGE'.padEnd(width)}   LABELS`, ...ages.map((a, i) => `cm-${i}   ${i}      ${a.padEnd(width)}   app=x`)].join('\n');
    };
    for (let round = 0; round < 200; round++) {
      const rows = 1 + Math.floor(random() * 4);
      const left = Array.from({ length: rows }, age);
      const right = Array.from({ length: rows }, age);
      expect(normalise(table(left), NS), `${left} vs ${right}`).toBe(normalise(table(right), NS));
    }
    // Ages at the end of a line (no LABELS column) too.
    expect(normalise('cm   1      9s', NS)).toBe(normalise('cm   1      2d3h', NS));
  });
});
