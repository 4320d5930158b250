// RC6: an agent's status, derived by the API on every read from its revisions and what the instance
// reconciler last observed of its gateway (Agent.runtime), and that observation in words.
import { queryOptions } from '@tanstack/react-query';
import { agentKeys } from './agents';
import { gql, graphql, type ResultOf } from './graphql';

export const AgentRuntimeFields = gql(`
  fragment AgentRuntimeFields on AgentRuntime {
    phase ready reason message instanceGeneration observedGeneration runningGeneration observedAt
    runningRevision { id number }
  }
`);

export type AgentRuntime = ResultOf<typeof AgentRuntimeFields>;

export const AgentRuntimeQuery = gql(`
  query AgentRuntime($id: ID!) {
    agent(id: $id) {
      id status desiredState activeRevisionId
      activeRevision { id number instanceGeneration }
      runtime { ...AgentRuntimeFields }
    }
  }
`, [AgentRuntimeFields]);

export type AgentRuntimeView = NonNullable<ResultOf<typeof AgentRuntimeQuery>['agent']>;

/** What Agent.status answers (RC6); anything else the API adds later is shown as it comes. */
export const AGENT_STATUSES = ['created', 'deploying', 'running', 'degraded', 'failed', 'stopped', 'deleting', 'deleted'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** The badge colours the namespace and revision badges use, and degraded its own (not failed, not on its way). */
const STATUS_TONE: Record<AgentStatus, string> = {
  created: 'deleting',
  deploying: 'provisioning',
  running: 'ready',
  degraded: 'degraded',
  failed: 'failed',
  stopped: 'deleting',
  deleting: 'deleting',
  deleted: 'deleting',
};

const STATUS_MEANING: Record<AgentStatus, string> = {
  created: 'Not deployed yet: no revision has run.',
  deploying: 'A deploy is on its way: a revision is being prepared, activated, or waited for until its gateway is ready.',
  running: 'Its gateway runs the active revision and is ready.',
  degraded:
    'The active revision is in place, but its gateway is not ready, is gone, or runs something else. The runtime below says what the cluster shows.',
  failed: 'Its active revision failed, or its last deploy failed with none active. The revision below says why and what to do.',
  stopped: 'Stopped: its gateway is scaled to zero. Deploy to start it again.',
  deleting: 'Being deleted.',
  deleted: 'Deleted.',
};

export function isAgentStatus(status: string): status is AgentStatus {
  return (AGENT_STATUSES as readonly string[]).includes(status);
}

export function statusTone(status: string): string {
  return isAgentStatus(status) ? STATUS_TONE[status] : 'deleting';
}

export function statusMeaning(status: string): string {
  return isAgentStatus(status) ? STATUS_MEANING[status] : `The API answered the status “${status}”.`;
}

/** The reconciler's reasons (the Degraded condition's when it holds, else Ready's), in words. */
const REASONS: Record<string, string> = {
  GatewayReady: 'The gateway’s Pods are ready.',
  RollingOut: 'The gateway is rolling out: not every Pod of the newest generation is ready yet.',
  Creating: 'The gateway is being created.',
  ScaledToZero: 'The gateway is scaled to zero.',
  GatewayMissing: 'The gateway Deployment does not exist.',
  InstanceMissing: 'The agent’s OpenClawInstance does not exist: nothing runs.',
  NamespaceLost: 'The Kubernetes namespace was deleted outside the product: the gateway is gone with it.',
  CreateContainerConfigError: 'A gateway container cannot start: a Secret or key it reads does not exist.',
  CreateContainerError: 'A gateway container cannot be created.',
  ErrImagePull: 'The gateway image cannot be pulled.',
  ImagePullBackOff: 'The gateway image cannot be pulled; the kubelet keeps retrying.',
  InvalidImageName: 'The gateway image name is not valid.',
  CrashLoopBackOff: 'The gateway container keeps crashing.',
  FailedMount: 'A gateway Pod cannot mount a volume: a ConfigMap or Secret it mounts does not exist.',
  ProgressDeadlineExceeded: 'The gateway did not become ready within its progress deadline.',
  ApplyFailed: 'The Kubernetes API refused one of the gateway’s objects.',
  UnadmittedReference: 'An env var takes its value from a reference no revision admitted: it is not delivered.',
  ValueAndReference: 'An env var holds both a literal and a reference: the reference is delivered.',
};

export function reasonWords(reason: string): string {
  return REASONS[reason] ?? (reason ? `The reconciler reports ${reason}.` : 'No reason recorded.');
}

const POLL_MOVING_MS = 2000;
const POLL_SETTLED_MS = 15_000;

/**
 * The status and runtime, polled: every two seconds while something is on its way (a deploy, a
 * rollout, a delete), else every fifteen, since the gateway can change under a settled agent too.
 * Keyed under the agent's detail, so what invalidates the agent refreshes this.
 */
export function agentRuntimeQueryOptions(agentId: string) {
  return queryOptions({
    queryKey: [...agentKeys.detail(agentId), 'runtime'] as const,
    queryFn: async ({ signal }) => (await graphql(AgentRuntimeQuery, { id: agentId }, signal)).agent,
    refetchInterval: (query) => {
      const agent = query.state.data;
      if (!agent) return false;
      const moving = agent.status === 'deploying' || agent.status === 'deleting' || agent.runtime?.phase === 'Progressing';
      return moving ? POLL_MOVING_MS : POLL_SETTLED_MS;
    },
  });
}
