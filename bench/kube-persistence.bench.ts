// kube-emulator bench: what a write costs as the embedded cluster fills, with its data files on
// (as `npm start` runs it). Run with `npm run bench` (turbo) or `cd packages/kube-emulator && npm run bench`.
//
// Two emulators in this process, one whose data file holds SMALL (1,000) ConfigMaps, one LARGE
// (50,000), each started on a data file written for it. Alternating rounds of the same writes
// (server-side apply of one of 200 ConfigMaps, as the product's controller writes, 8 in flight) go
// to each; every write is persisted as the server runs it: appended to the log, which a worker
// thread folds into the data file as it passes its budget (half the data file: 3,000 writes a
// round, ~700 bytes of log each, so the large side's log passes it during the run). Printed, as
// ratios large / small:
//   - the write's p50 and p95 latency (budget: p50 ≤ 1.2×; over it the bench exits 1),
//   - the event loop's delay p99 while the writes run,
//   - a namespace's list (5 objects) while the rest of the cluster holds the fill,
// and, for comparison, what the earlier persistence spent on the event loop per burst of writes:
// serialising the whole store (timed here on the same states).

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { loadState, snapshotText } from '../packages/kube-emulator/src/persistence-format.ts';
import { startKubeEmulator, type KubeEmulator } from '../packages/kube-emulator/src/server.ts';
import { filledDataFile } from './cluster-fill.ts';

const SMALL = Number(process.env.OCC_BENCH_SMALL_OBJECTS ?? 1_000);
const LARGE = Number(process.env.OCC_BENCH_LARGE_OBJECTS ?? 50_000);
const ROUNDS = Number(process.env.OCC_BENCH_ROUNDS ?? 6);
const WRITES_PER_ROUND = Number(process.env.OCC_BENCH_WRITES ?? 3000);
const IN_FLIGHT = 8;
const HOT = 200;
const BUDGET = 1.2;

const ssa = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

function configMap(i: number, revision: number) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: `ns-${i % 50}`, labels: { 'app.kubernetes.io/managed-by': 'occ' } },
    data: { 'openclaw.json': JSON.stringify({ agent: `cm-${i}`, model: 'gpt', skills: ['search', 'browse'], revision }) },
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const dir = await mkdtemp(join(tmpdir(), 'occ-bench-persistence-'));
const emulators: KubeEmulator[] = [];
try {
  const sides = [] as { label: string; objects: number; core: CoreV1Api; latencies: number[]; loopP99: number[]; rewriteMs: number; revision: number; startedAt: number }[];
  for (const [label, objects] of [['small', SMALL], ['large', LARGE]] as const) {
    const text = filledDataFile(objects, 'ns-', (i) => configMap(i, 0));
    const dataFile = join(dir, label, 'objects.json');
    await mkdir(join(dir, label), { recursive: true });
    await writeFile(dataFile, text, { mode: 0o600 });
    // The earlier persistence: the whole store serialised on the event loop after each burst.
    const state = (await loadState(dataFile))!;
    const t0 = performance.now();
    for (let i = 0; i < 3; i++) snapshotText(state.resourceVersion, state.collections);
    const rewriteMs = (performance.now() - t0) / 3;
    const started = performance.now();
    const emulator = await startKubeEmulator({ dataFile });
    emulators.push(emulator);
    console.log(`${label}: ${objects} ConfigMaps, data file ${(text.length / 1024 / 1024).toFixed(1)} MB, started in ${(performance.now() - started).toFixed(0)} ms`);
    sides.push({ label, objects, core: emulator.kubeConfig().makeApiClient(CoreV1Api), latencies: [], loopP99: [], rewriteMs, revision: 1, startedAt: Date.now() });
  }

  const round = async (side: (typeof sides)[number], record: boolean) => {
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < WRITES_PER_ROUND; i = next++) {
          const body = configMap(i % HOT, side.revision++);
          const t = performance.now();
          await side.core.patchNamespacedConfigMap({ name: body.metadata.name, namespace: body.metadata.namespace, fieldManager: 'occ-controller', force: true, body }, ssa);
          if (record) side.latencies.push(performance.now() - t);
        }
      }),
    );
    loop.disable();
    if (record) side.loopP99.push(loop.percentile(99) / 1e6);
  };
  for (const side of sides) await round(side, false); // warm-up
  for (let r = 0; r < ROUNDS; r++) for (const side of r % 2 === 0 ? sides : [...sides].reverse()) await round(side, true);

  // A namespace's list as the cluster fills elsewhere (what the kubelet simulator reads per
  // Deployment sync: its namespace's ReplicaSets and Pods): 5 ConfigMaps in a namespace of their own.
  for (const side of sides) {
    await side.core.createNamespace({ body: { metadata: { name: 'quiet' } } });
    for (let i = 0; i < 5; i++) await side.core.createNamespacedConfigMap({ namespace: 'quiet', body: { metadata: { name: `q-${i}` } } });
  }
  const listTimes = new Map(sides.map((side) => [side.label, [] as number[]]));
  for (let r = 0; r < 2 * ROUNDS; r++) {
    for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
      for (let i = 0; i < 50; i++) {
        const t = performance.now();
        await side.core.listNamespacedConfigMap({ namespace: 'quiet' });
        listTimes.get(side.label)!.push(performance.now() - t);
      }
    }
  }

  const [small, large] = sides as [(typeof sides)[number], (typeof sides)[number]];
  const row = (name: string, s: number, l: number, unit: string) =>
    console.log(`  ${name.padEnd(52)} ${s.toFixed(2).padStart(8)} ${l.toFixed(2).padStart(8)} ${unit.padEnd(3)} ${(l / s).toFixed(2).padStart(6)} x`);
  console.log(`\n${ROUNDS} alternating rounds of ${WRITES_PER_ROUND} applies each, ${IN_FLIGHT} in flight, client-node over HTTP`);
  console.log(`  ${''.padEnd(52)} ${String(SMALL).padStart(8)} ${String(LARGE).padStart(8)}     large/small`);
  const p50 = [percentile(small.latencies, 50), percentile(large.latencies, 50)] as const;
  row('write p50', p50[0], p50[1], 'ms');
  row('write p95', percentile(small.latencies, 95), percentile(large.latencies, 95), 'ms');
  row('event loop delay p99 while writing (median round)', percentile(small.loopP99, 50), percentile(large.loopP99, 50), 'ms');
  row('list of a 5-object namespace, p50', percentile(listTimes.get('small')!, 50), percentile(listTimes.get('large')!, 50), 'ms');
  row('for comparison: whole-store serialisation', small.rewriteMs, large.rewriteMs, 'ms');
  for (const side of sides) {
    const files = await readdir(join(dir, side.label));
    const log = files.filter((f) => f.startsWith('objects.json.wal-'));
    let logBytes = 0;
    for (const f of log) logBytes += (await stat(join(dir, side.label, f))).size;
    const snapshot = await stat(join(dir, side.label, 'objects.json'));
    console.log(`  ${side.label}: data file ${snapshot.mtimeMs > side.startedAt ? 'rewritten by compaction' : 'not rewritten yet'}; log now ${log.length} segment(s), ${(logBytes / 1024 / 1024).toFixed(1)} MB`);
  }
  const ratio = p50[1] / p50[0];
  console.log(`budget: write p50 large/small ≤ ${BUDGET}×: ${ratio <= BUDGET ? 'ok' : 'OVER'} (${ratio.toFixed(2)}×)`);
  if (ratio > BUDGET) process.exitCode = 1;
} finally {
  for (const emulator of emulators) await emulator.close();
  await rm(dir, { recursive: true, force: true });
}
