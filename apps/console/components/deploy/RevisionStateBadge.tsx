import type { RevisionState } from '../../lib/deploy';

// The namespace badges' colours: done (ACTIVE) green, on its way amber, FAILED red, retired grey.
const tone: Record<RevisionState, string> = {
  QUEUED: 'provisioning',
  PREPARING: 'provisioning',
  PREPARED: 'provisioning',
  ACTIVATING: 'provisioning',
  ACTIVE: 'ready',
  FAILED: 'failed',
  SUPERSEDED: 'deleting',
  STOPPED: 'deleting',
};

export function RevisionStateBadge({ state }: { state: RevisionState }) {
  return (
    <span className={`badge badge-${tone[state]}`} data-testid="revision-state">
      {state}
    </span>
  );
}
