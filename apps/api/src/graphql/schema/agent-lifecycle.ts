import { ConflictError, ForbiddenError, NotFoundError, OutcomeUnknownError } from '@occ/domain/errors';
import type { RemovedObject } from '../../drivers/kubernetes-agent-objects.ts';
import { deleteAgent, type DeleteAgentResult } from '../../services/delete-agent.ts';
import { stopAgent, type StopAgentResult } from '../../services/stop-agent.ts';
import { actorOf, builder } from '../builder.ts';
import { AgentRef } from './agent.ts';

// An agent's lifecycle after deploy: stop (W6) and delete. Deploys live with the agent type.

const RemovedObjectRef = builder.objectRef<RemovedObject>('RemovedKubernetesObject').implement({
  fields: (t) => ({
    kind: t.exposeString('kind'),
    name: t.exposeString('name'),
    alreadyGone: t.boolean({ resolve: (o) => o.result === 'missing' }),
  }),
});

const DeleteAgentInput = builder.inputType('DeleteAgentInput', { fields: (t) => ({ id: t.id({ required: true }) }) });

const DeleteAgentSuccess = builder.objectRef<DeleteAgentResult>('DeleteAgentSuccess').implement({
  fields: (t) => ({
    deletedAgentId: t.exposeID('deletedAgentId'),
    removedObjects: t.field({ type: [RemovedObjectRef], description: "The agent's Kubernetes objects, found by its labels.", resolve: (r) => r.removedObjects }),
  }),
});

builder.mutationField('deleteAgent', (t) =>
  t.field({
    type: DeleteAgentSuccess,
    description: 'Only a stopped agent (AGENT_NOT_STOPPED otherwise). Removes its Kubernetes objects; its revisions stay, for audit.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: DeleteAgentInput, required: true }) },
    errors: { types: [NotFoundError, ForbiddenError, ConflictError, OutcomeUnknownError], union: { name: 'DeleteAgentResult' } },
    resolve: (_root, { input }, ctx) => deleteAgent(ctx.deps, actorOf(ctx), input),
  }),
);

const StopAgentInput = builder.inputType('StopAgentInput', { fields: (t) => ({ agentId: t.id({ required: true }) }) });

const StopAgentSuccess = builder.objectRef<StopAgentResult>('StopAgentSuccess').implement({
  fields: (t) => ({
    agent: t.field({ type: AgentRef, resolve: (r) => r.agent }),
    stoppedRevisionIds: t.exposeIDList('stoppedRevisionIds', { description: 'The active revision and any still on their way.' }),
    gatewayScaledToZero: t.boolean({ description: 'false when the agent had no gateway (never deployed).', resolve: (r) => r.gateway === 'scaled' }),
  }),
});

builder.mutationField('stopAgent', (t) =>
  t.field({
    type: StopAgentSuccess,
    description: 'W6: scales the gateway to zero, sets the desired state stopped and stops its revisions. Needs deploy on the agent.',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: StopAgentInput, required: true }) },
    errors: { types: [NotFoundError, ForbiddenError, OutcomeUnknownError], union: { name: 'StopAgentResult' } },
    resolve: (_root, { input }, ctx) => stopAgent(ctx.deps, actorOf(ctx), { agentId: String(input.agentId) }),
  }),
);
