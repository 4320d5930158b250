import type {
  BlastRadius,
  BlastRadiusAgent,
  BlastRadiusConfiguration,
  BlastRadiusCounts,
  BlastRadiusGateway,
  BlastRadiusRevision,
} from '../../services/blast-radius.ts';
import { builder } from '../builder.ts';
import { ConfigurationRef } from './configuration.ts';
import { RevisionStateEnum } from './deploy.ts';
import { SecretRef } from './secret.ts';

// V6: Secret.blastRadius and Configuration.blastRadius, asked before a rotate or a delete. What
// the caller may not read is counted in `hidden`, never named (S7's consumers, P6).

const BlastRadiusViaEnum = builder.enumType('BlastRadiusVia', {
  values: {
    CONFIGURATION: { value: 'configuration', description: 'It selects a configuration that binds the secret (or the configuration itself).' },
    HARNESS_AUTH: { value: 'harnessAuth', description: 'It uses the secret as harnessAuth.' },
    REVISION: { value: 'revision', description: 'A live revision of it delivers the secret (or was frozen from the configuration).' },
  } as const,
});

const BlastRadiusConfigurationRef = builder.objectRef<BlastRadiusConfiguration>('BlastRadiusConfiguration').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    generation: t.exposeInt('generation'),
    envNames: t.exposeStringList('envNames', { description: 'The env names it binds the secret under (for a configuration: all its bound names).' }),
  }),
});

const BlastRadiusAgentRef = builder.objectRef<BlastRadiusAgent>('BlastRadiusAgent').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    status: t.exposeString('status'),
    via: t.field({ type: [BlastRadiusViaEnum], resolve: (a) => a.via }),
  }),
});

const BlastRadiusRevisionRef = builder.objectRef<BlastRadiusRevision>('BlastRadiusRevision').implement({
  description: 'An active revision, or one on its way (queued to activating).',
  fields: (t) => ({
    id: t.exposeID('id'),
    agentId: t.exposeID('agentId'),
    number: t.exposeInt('number'),
    state: t.field({ type: RevisionStateEnum, resolve: (r) => r.state }),
    envNames: t.exposeStringList('envNames'),
    versions: t.exposeIntList('versions', { description: 'The secret versions it was admitted at (empty for a configuration).' }),
  }),
});

const BlastRadiusGatewayRef = builder.objectRef<BlastRadiusGateway>('BlastRadiusGateway').implement({
  description: "An agent's gateway, as the product names it: its OpenClawInstance and the Deployment rendered from it.",
  fields: (t) => ({
    agentId: t.exposeID('agentId'),
    agentName: t.exposeString('agentName'),
    k8sNamespace: t.exposeString('k8sNamespace'),
    instanceName: t.exposeString('instanceName'),
    deploymentName: t.exposeString('deploymentName'),
    revisionId: t.exposeID('revisionId', { nullable: true, description: 'The active revision it runs; null when you may not read it.' }),
    revisionNumber: t.exposeInt('revisionNumber', { nullable: true }),
  }),
});

const BlastRadiusCountsRef = builder.objectRef<BlastRadiusCounts>('BlastRadiusCounts').implement({
  fields: (t) => ({
    configurations: t.exposeInt('configurations'),
    agents: t.exposeInt('agents'),
    revisions: t.exposeInt('revisions'),
    gateways: t.exposeInt('gateways'),
  }),
});

const BlastRadiusRef = builder.objectRef<BlastRadius>('BlastRadius').implement({
  description: 'V6: what a rotate or delete would touch. Never a value or a backend locator.',
  fields: (t) => ({
    configurations: t.field({ type: [BlastRadiusConfigurationRef], resolve: (b) => b.configurations }),
    agents: t.field({ type: [BlastRadiusAgentRef], resolve: (b) => b.agents }),
    revisions: t.field({ type: [BlastRadiusRevisionRef], resolve: (b) => b.revisions }),
    gateways: t.field({ type: [BlastRadiusGatewayRef], resolve: (b) => b.gateways }),
    total: t.field({ type: BlastRadiusCountsRef, description: 'Everything touched, readable or not.', resolve: (b) => b.total }),
    hidden: t.field({ type: BlastRadiusCountsRef, description: 'What you may not read: counted, never named (P6).', resolve: (b) => b.hidden }),
  }),
});

builder.objectField(SecretRef, 'blastRadius', (t) =>
  t.field({
    type: BlastRadiusRef,
    description: 'V6: the configurations, agents, revisions and gateways a rotation or a delete of this secret would touch.',
    resolve: (s, _args, ctx) => ctx.loaders.secretBlastRadius.load({ id: s.id, version: s.version }),
  }),
);

builder.objectField(ConfigurationRef, 'blastRadius', (t) =>
  t.field({
    type: BlastRadiusRef,
    description: 'V6: the agents, revisions and gateways an update or a delete of this configuration would touch.',
    resolve: (c, _args, ctx) => ctx.loaders.configurationBlastRadius.load({ id: c.id, name: c.name, generation: c.generation }),
  }),
);
