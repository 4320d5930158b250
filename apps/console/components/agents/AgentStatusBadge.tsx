import { statusTone } from '../../lib/agent-runtime';

/** RC6: the agent's derived status; degraded and failed each have their own colour and word. */
export function AgentStatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge badge-${statusTone(status)}`} data-testid="agent-status" data-status={status}>
      {status}
    </span>
  );
}
