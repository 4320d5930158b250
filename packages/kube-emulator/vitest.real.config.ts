import { defineConfig, mergeConfig } from 'vitest/config';
import { baseTestConfig } from '../../vitest.shared.ts';

// The E8 lane (`npm run test:real`, run by scripts/kube-apiserver/cluster with OCC_KUBE_TARGET=real
// and KUBECONFIG): the same conformance files against a real kube-apiserver, plus the differential
// test that replays one request sequence on both servers. Files whose subject exists only in the
// emulator (fault injection, persistence, its own kubeconfig) are *.emulator-only.test.ts and stay out.
// One file at a time: they share one real server, and the CRDs some of them install are cluster-wide.
// Subjects the 1.20 server of the lane does not have yet, which the emulator follows as current
// Kubernetes does (REAL-SERVER-DIFFERENCES.md, D-entries): server-side field validation
// (`fieldValidation`, 1.25+) and the OpenAPI v3 documents (1.27+). They would run against a newer server.
const NEWER_THAN_1_20 = ['src/field-validation.test.ts', 'src/openapi-docs.test.ts'];
// *.needs-controllers.test.ts: garbage collection and namespace deletion are done by
// kube-controller-manager, which the lane does not run (L1); they pass on a full cluster.

export default mergeConfig(
  baseTestConfig,
  defineConfig({
    test: {
      isolate: false,
      fileParallelism: false,
      include: ['src/**/*.test.ts'],
      exclude: ['**/node_modules/**', 'src/**/*.emulator-only.test.ts', 'src/**/*.needs-controllers.test.ts', ...NEWER_THAN_1_20],
    },
  }),
);
