import {
  revisionGateway,
  type GatewayDeployment,
  type ReferenceAgent,
  type ReferenceConfiguration,
  type ReferenceDelivery,
  type ReferenceRevision,
  type SecretReferenceGraph,
} from '../../services/secret-references.ts';
import { builder } from '../builder.ts';
import { AgentRevisionRef, RevisionStateEnum } from './deploy.ts';
import { SecretRef } from './secret.ts';

// A secret's reference graph, for auditors. Ids, names, env names and versions only:
// never a value, never a backend locator (S3, S4).

export const GatewayDeploymentRef = builder.objectRef<GatewayDeployment>('GatewayDeployment').implement({
  description: 'The Kubernetes Deployment that runs an active revision (W4): its namespace and name.',
  fields: (t) => ({ k8sNamespace: t.exposeString('k8sNamespace'), name: t.exposeString('name') }),
});

const ReferenceConfigurationRef = builder.objectRef<ReferenceConfiguration>('SecretReferenceConfiguration').implement({
  description: 'A configuration that binds the secret.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    namespaceId: t.exposeID('namespaceId'),
    generation: t.exposeInt('generation'),
    envNames: t.exposeStringList('envNames', { description: 'The env names it binds the secret under.' }),
  }),
});

const ReferenceAgentRef = builder.objectRef<ReferenceAgent>('SecretReferenceAgent').implement({
  description: 'An agent that references the secret, or whose live revisions still deliver it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    namespaceId: t.exposeID('namespaceId'),
    status: t.exposeString('status'),
    configurationId: t.exposeID('configurationId', { nullable: true, description: 'The configuration it selects, when that binds the secret and you may read it.' }),
    viaConfiguration: t.exposeBoolean('viaConfiguration', { description: 'It selects a configuration that binds the secret.' }),
    harnessAuthProvider: t.exposeString('harnessAuthProvider', { nullable: true, description: 'Set when it uses the secret as harnessAuth.' }),
  }),
});

const ReferenceDeliveryRef = builder.objectRef<ReferenceDelivery>('SecretReferenceDelivery').implement({
  fields: (t) => ({
    purpose: t.exposeString('purpose', { description: 'binding (gateway env) or harnessAuth (the model workload).' }),
    envName: t.exposeString('envName'),
    version: t.exposeInt('version', { description: 'The version of the secret the revision was admitted at.' }),
    stale: t.exposeBoolean('stale', { description: 'Running with a version older than the current one (W7).' }),
  }),
});

const ReferenceRevisionRef = builder.objectRef<ReferenceRevision>('SecretReferenceRevision').implement({
  description: 'A revision that delivers the secret (active) or is on its way to (queued to activating).',
  fields: (t) => ({
    id: t.exposeID('id'),
    agentId: t.exposeID('agentId'),
    number: t.exposeInt('number'),
    state: t.field({ type: RevisionStateEnum, resolve: (r) => r.state }),
    deliveries: t.field({ type: [ReferenceDeliveryRef], resolve: (r) => r.deliveries }),
    stale: t.exposeBoolean('stale', { description: 'Some delivery of this secret is older than its current version (W7).' }),
    gateway: t.field({ type: GatewayDeploymentRef, nullable: true, description: 'Set while the revision is active.', resolve: (r) => r.gateway }),
  }),
});

const ReferenceHiddenCountsRef = builder.objectRef<SecretReferenceGraph['hidden']>('SecretReferenceHiddenCounts').implement({
  description: 'Nodes you may not read: counted, never named (P6).',
  fields: (t) => ({
    configurations: t.exposeInt('configurations'),
    agents: t.exposeInt('agents'),
    revisions: t.exposeInt('revisions'),
  }),
});

const SecretReferenceGraphRef = builder.objectRef<SecretReferenceGraph>('SecretReferenceGraph').implement({
  description: 'Where the secret is referenced: configurations → agents → revisions → gateway Deployments. Edges are the ids each node holds.',
  fields: (t) => ({
    currentVersion: t.exposeInt('currentVersion'),
    configurations: t.field({ type: [ReferenceConfigurationRef], resolve: (g) => g.configurations }),
    agents: t.field({ type: [ReferenceAgentRef], resolve: (g) => g.agents }),
    revisions: t.field({ type: [ReferenceRevisionRef], description: 'Newest first per agent.', resolve: (g) => g.revisions }),
    hidden: t.field({ type: ReferenceHiddenCountsRef, resolve: (g) => g.hidden }),
  }),
});

builder.objectField(SecretRef, 'references', (t) =>
  t.field({
    type: SecretReferenceGraphRef,
    description: 'The transitive reference graph of this secret, for audit. Loaded for a page of secrets at once.',
    resolve: (s, _args, ctx) => ctx.loaders.secretReferences.load(s),
  }),
);

builder.objectField(AgentRevisionRef, 'gateway', (t) =>
  t.field({
    type: GatewayDeploymentRef,
    nullable: true,
    description: 'The Deployment that runs this revision, while it is active.',
    resolve: (r) => revisionGateway(r),
  }),
);
