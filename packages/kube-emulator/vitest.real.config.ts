import { defineConfig, mergeConfig } from 'vitest/config';
import { baseTestConfig } from '../../vitest.shared.ts';

// The E8 lane (`npm run test:real`, run by scripts/kube-apiserver/cluster with OCC_KUBE_TARGET=real
// and KUBECONFIG): the same conformance files against a real kube-apiserver, plus the differential
// test that replays one request sequence on both servers. Files whose subject exists only in the
// emulator (fault injection, persistence, its own kubeconfig) are *.emulator-only.test.ts and stay out.
// One file at a time: they share one real server, and the CRDs some of them install are cluster-wide.
export default mergeConfig(
  baseTestConfig,
  defineConfig({
    test: {
      isolate: false,
      fileParallelism: false,
      include: ['src/**/*.test.ts'],
      exclude: ['**/node_modules/**', 'src/**/*.emulator-only.test.ts'],
    },
  }),
);
