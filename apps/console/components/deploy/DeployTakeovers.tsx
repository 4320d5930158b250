import Link from 'next/link';
import type { DeployTakeover } from '../../lib/deploy';
import { namespaceHref } from '../../lib/namespace-links';

export const TAKEOVERS_ID = 'agent-deploy-takeovers';

/**
 * RC3 before the click: what the agent set itself through SelfConfig that this deploy would take
 * (with force, recorded on the revision and on the SelfConfig request that set it). Nothing when
 * there is nothing to take; a note when the instance could not be read, so the list is unknown.
 */
export function DeployTakeovers({
  takeovers,
  namespaceId,
  agentId,
}: {
  takeovers: DeployTakeover[] | null;
  namespaceId: string;
  agentId: string;
}) {
  if (takeovers === null) {
    return (
      <p id={TAKEOVERS_ID} className="alert notice" data-testid="deploy-takeovers-unknown">
        Could not read the agent’s instance, so what this deploy would take from the agent’s own changes (SelfConfig) is not known.
        If the agent changed its own config, env or files, a deploy may replace them.
      </p>
    );
  }
  if (takeovers.length === 0) return null;
  return (
    <div id={TAKEOVERS_ID} className="alert notice takeovers" data-testid="deploy-takeovers">
      <p>
        <strong>This deploy will replace what the agent set itself:</strong>
      </p>
      <ul className="plain-list">
        {takeovers.map((takeover) => (
          <li key={`${takeover.kind}:${takeover.name}`} data-takeover={`${takeover.kind}:${takeover.name}`} data-action={takeover.action}>
            {takeover.description}
          </li>
        ))}
      </ul>
      <p className="hint">
        The deploy takes {takeovers.length === 1 ? 'it' : 'them'} and records it: the revision lists what it took, and the{' '}
        <Link href={namespaceHref('selfconfig', namespaceId, { agent: agentId })}>SelfConfig request</Link> that set{' '}
        {takeovers.length === 1 ? 'it' : 'them'} says “overridden by” that revision.
      </p>
    </div>
  );
}
