import type { MissingGrant } from '../../lib/agents';
import { roleName } from '../deploy/DeployChecks';

/**
 * A3: what the agent's service principal still needs before it can consume its selection. Listed
 * here, offered once: each missing grant is a failing deploy check above, whose "Grant it" grants
 * exactly that role (secret-operator) on exactly that secret, never the namespace. Two buttons for
 * one grant asked which one to press and moved focus two different ways.
 */
export function MissingGrants({ grants, names }: { grants: MissingGrant[]; names: ReadonlyMap<string, string> }) {
  // One live region for both states, so a grant made in the checks is announced here too.
  return (
    <div role="status" className={`alert ${grants.length === 0 ? 'success' : 'notice'}`} data-testid="missing-grants">
      {grants.length === 0 ? (
        <p>Nothing missing: its service principal may operate on every secret this agent consumes.</p>
      ) : (
        <>
          <p>
            <strong>Missing grants.</strong> Its service principal cannot consume its selection until it has:
          </p>
          <ul className="plain-list">
            {grants.map((grant) => (
              <li key={`${grant.action}:${grant.resourceKind}:${grant.resourceId}`}>
                <strong>{grant.action}</strong> on {grant.resourceKind} {names.get(grant.resourceId) ?? grant.resourceId} (role{' '}
                <code>{roleName(grant.roleId)}</code>)
              </li>
            ))}
          </ul>
          <p>
            To add {grants.length === 1 ? 'it' : 'them'}, use “Grant it” in the <a href="#agent-deploy-title">deploy checks</a>: exactly
            that role on exactly that secret.
          </p>
        </>
      )}
    </div>
  );
}
