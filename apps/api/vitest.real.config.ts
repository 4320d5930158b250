import baseConfig from './vitest.config.ts';

// The E8 lane (`npm run test:real`, inside scripts/kube-apiserver/cluster with OCC_KUBE_TARGET=real):
// the Kubernetes driver tests, through the whole API as `npm start` wires it, against a real
// kube-apiserver instead of the embedded one. Files that inject faults into the embedded server
// (secrets-canary, secrets-compensation, shutdown) or start their own (bootstrap-installation,
// elector) test the emulator's features and stay on the default lane. (Set, not merged: Vite's
// mergeConfig would append this list to the default `src/**/*.test.ts`.)
export default {
  ...baseConfig,
  test: {
    ...baseConfig.test,
    include: ['src/services/secrets.test.ts', 'src/services/namespaces.test.ts', 'src/services/secrets-backend-causes.test.ts'],
  },
};
