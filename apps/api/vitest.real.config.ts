import baseConfig from './vitest.config.ts';

// The E8 lane (`npm run test:real`, inside scripts/kube-apiserver/cluster with OCC_KUBE_TARGET=real):
// the Kubernetes driver tests, through the whole API as `npm start` wires it, against a real
// kube-apiserver instead of the embedded one: secrets (S*), namespaces and their tenant RoleBinding
// (K1), deploy with the compute driver and activation (D*, W*), the SelfConfig controller (SC*), and
// the instance reconciler with its composition of the two managers and its drift repair (RC*),
// a worker stopped past its lease sending no write (R4), and the SelfConfig webhook with the
// certificates the product makes, called by the real server through the install's Service (SC5).
// The real-cluster setup installs the CRDs and runs one kubelet simulator for the lane's missing
// controllers (L1). Files that inject faults into the embedded server (secrets-canary,
// secrets-compensation, shutdown, the webhook's) or start their own (bootstrap-installation,
// elector) test the emulator's features and stay on the default lane. (Set, not merged: Vite's
// mergeConfig would append this list to the default `src/**/*.test.ts`.)
export default {
  ...baseConfig,
  test: {
    ...baseConfig.test,
    globalSetup: [...(baseConfig.test?.globalSetup as string[]), 'src/test/real-cluster-setup.ts'],
    // Tests named "(emulator faults)" inject failures through the embedded server's fault API,
    // which a real server does not have; "(namespace controller)" ones need a deleted namespace's
    // contents gone, which the namespace controller does and the lane does not run (L1);
    // "(Kubernetes 1.30+)" ones need an API the lane's 1.20 server lacks (ValidatingAdmissionPolicy).
    // The rest of their files runs here.
    testNamePattern: /^(?!.*\((emulator faults|namespace controller|Kubernetes 1\.30\+)\)).*$/,
    // One file at a time: every file shares the one real server and its simulator.
    maxWorkers: 1,
    fileParallelism: false,
    include: [
      'src/services/secrets.test.ts',
      'src/services/namespaces.test.ts',
      'src/services/secrets-backend-causes.test.ts',
      'src/services/deploy-flow.test.ts',
      'src/services/deploy-lifecycle-flow.test.ts',
      'src/services/secret-rollouts.test.ts',
      'src/selfconfig/scenarios.test.ts',
      'src/instance/composition.test.ts',
      'src/instance/reconciler.test.ts',
      // (R7's production-build.test.ts is not here: it applies deploy/ to the shared server, and the
      // API's deploy tests after it found their gateways without secretKeyRefs. It runs last, in a
      // run of its own: vitest.real-install.config.ts, `npm run test:real:install`.)
      'src/worker-fencing.test.ts',
      // SC5: the install's service-referenced webhook with the product's own certificates, called
      // by the real server through the Service's Endpoints (the lane runs it with aggregator routing).
      'src/kube/webhook-certificates.test.ts',
    ],
  },
};
