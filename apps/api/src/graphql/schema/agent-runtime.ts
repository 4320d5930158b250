import type { AgentRuntimeView } from '../../services/agent-runtime.ts';
import { builder } from '../builder.ts';
import { AgentRef } from './agent.ts';
import { AgentRevisionRef } from './deploy.ts';

// RC6: what the instance reconciler last observed of the agent's gateway, from the instance's
// status (Ready, Degraded and their reasons; which revision and generation the ready Pods run).

const AgentRuntimeRef = builder.objectRef<AgentRuntimeView>('AgentRuntime').implement({
  description: "What the instance reconciler last observed of the agent's gateway (its OpenClawInstance's status).",
  fields: (t) => ({
    phase: t.exposeString('phase', { description: 'Running, Progressing, Degraded, Stopped or Missing.' }),
    ready: t.exposeBoolean('ready'),
    reason: t.exposeString('reason', { description: "The Degraded condition's reason when it is true, else the Ready condition's (e.g. GatewayReady, RollingOut, CreateContainerConfigError, FailedMount, GatewayMissing, InstanceMissing, NamespaceLost)." }),
    message: t.exposeString('message', { description: 'Names the product’s secret ids, never a Kubernetes Secret.' }),
    instanceGeneration: t.exposeInt('instanceGeneration'),
    observedGeneration: t.exposeInt('observedGeneration', { description: 'The instance generation the reconciler last rendered.' }),
    runningGeneration: t.exposeInt('runningGeneration', { nullable: true, description: 'The instance generation the ready Pods run; null for Pods of an older rendering.' }),
    runningRevisionId: t.exposeID('runningRevisionId', { nullable: true }),
    runningRevision: t.field({ type: AgentRevisionRef, nullable: true, resolve: (r, _a, ctx) => (r.runningRevisionId ? ctx.loaders.agentRevision.load(r.runningRevisionId) : null) }),
    observedAt: t.expose('observedAt', { type: 'DateTime' }),
  }),
});

builder.objectField(AgentRef, 'runtime', (t) =>
  t.field({
    type: AgentRuntimeRef,
    nullable: true,
    description: 'RC6: the gateway as last observed; null before anything was deployed.',
    resolve: (agent, _a, ctx) => ctx.loaders.agentRuntime.load(agent.id),
  }),
);
