import type { SecretExposure, SecretVersionView, VersionExposure } from '../../services/secret-versions.ts';
import { builder } from '../builder.ts';
import { SecretRef } from './secret.ts';

// V5: a secret's versions and who runs which, since when. Metadata only: no bytes, and no backend
// locator (S4: installation administrators read the current one on Secret.backendLocator).

const SecretVersionRef = builder.objectRef<SecretVersionView>('SecretVersion').implement({
  description: 'V5: one version of a secret, its own immutable Kubernetes Secret (V1), and its window.',
  fields: (t) => ({
    number: t.exposeInt('number'),
    current: t.exposeBoolean('current', { description: 'The version deploys freeze from now on.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    firstDeliveredAt: t.expose('firstDeliveredAt', { type: 'DateTime', nullable: true, description: 'When a revision holding it first became active; null if none has.' }),
    lastDeliveredAt: t.expose('lastDeliveredAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When a revision holding it last became or stopped being active. Which agents run it now: Secret.exposure.',
    }),
    retiredAt: t.expose('retiredAt', { type: 'DateTime', nullable: true, description: 'V3: when its Kubernetes Secret was deleted; null while kept.' }),
  }),
});

const VersionExposureRef = builder.objectRef<VersionExposure>('SecretVersionExposure').implement({
  description: "V5: an agent whose running revision holds a version of the secret (exact, V2).",
  fields: (t) => ({
    version: t.exposeInt('version'),
    agentId: t.exposeID('agentId'),
    agentName: t.exposeString('agentName', { nullable: true }),
    revisionId: t.exposeID('revisionId'),
    revisionNumber: t.exposeInt('revisionNumber'),
    envNames: t.exposeStringList('envNames', { description: 'The env names it is delivered under (harnessAuth: the model workload).' }),
    since: t.expose('since', { type: 'DateTime', description: 'When that revision became active.' }),
  }),
});

const SecretExposureRef = builder.objectRef<SecretExposure>('SecretExposure').implement({
  description: 'V5: the exposure matrix, agents × versions: one item per running revision and version it holds.',
  fields: (t) => ({
    hiddenCount: t.exposeInt('hiddenCount', { description: 'Running agents the caller may not read: counted, not named.' }),
    items: t.field({ type: [VersionExposureRef], resolve: (e) => e.items }),
  }),
});

builder.objectField(SecretRef, 'versions', (t) =>
  t.field({
    type: [SecretVersionRef],
    description: 'V5: every version, newest first, retired ones included. Metadata only, never a locator.',
    resolve: (s, _args, ctx) => ctx.loaders.secretVersions.load(s.id),
  }),
);

builder.objectField(SecretRef, 'exposure', (t) =>
  t.field({
    type: SecretExposureRef,
    description: 'V5: which agents run which version, since when.',
    resolve: (s, _args, ctx) => ctx.loaders.secretExposure.load(s.id),
  }),
);
