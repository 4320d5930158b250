import realConfig from './vitest.real.config.ts';

// The E8 lane's last step (`npm run test:real:install`, after `test:real`): the install as written
// (R7, production-build.test.ts) against the real kube-apiserver: deploy/ applied whole, its
// containers' command lines run on the built tree as the install's service account, and the real
// server calling the API's SelfConfig webhook through the install's Service (SC5). Last, and in a
// run of its own, because it leaves deploy/'s objects (its CRDs taken over, its RBAC) on the shared
// server, which the other files' harness set up differently.
export default {
  ...realConfig,
  test: {
    ...realConfig.test,
    include: ['src/cli/production-build.test.ts'],
  },
};
