'use client';

import { useEffect, useRef, useState } from 'react';
import { accessKeys, grantAccess } from '../../lib/access';
import { agentKeys, type MissingGrant } from '../../lib/agents';
import { deployKeys, type DeployCheck } from '../../lib/deploy';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { useToast } from '../feedback/Toaster';
import { BusyButton } from '../ui/Busy';

/** A built-in role's id is `rol_<name>`: show the name. */
export const roleName = (roleId: string) => roleId.replace(/^rol_/, '');

/**
 * D6: every check deployAgent applies, shown before the click, each with pass or fail and its fix.
 * A missing grant of the agent's own service principal (A3) is fixed here in one click, granting
 * exactly that permission on exactly that resource: the page's one offer of it (the agent's
 * "Missing grants" list points here). After a grant, focus moves to the next fix, or
 * to the Deploy button once nothing is left to fix.
 */
export function DeployChecks({
  checks,
  names,
  focusAfterFixes,
}: {
  checks: DeployCheck[];
  names: ReadonlyMap<string, string>;
  focusAfterFixes: () => void;
}) {
  const region = useRef<HTMLUListElement>(null);
  const [granted, setGranted] = useState(0);
  const handled = useRef(0);
  const failingAtGrant = useRef(0);
  const failing = checks.filter((check) => !check.passed).length;
  // Once per grant, and only after the refreshed checks show it (one fewer failing): later
  // refreshes (after a deploy or a stop) must not move focus.
  useEffect(() => {
    if (granted === handled.current || failing >= failingAtGrant.current) return;
    handled.current = granted;
    const next = region.current?.querySelector<HTMLElement>('button[data-fix]');
    if (next) next.focus();
    else focusAfterFixes();
  }, [granted, failing]);

  return (
    <ul ref={region} className="checks" aria-label="Deploy checks" data-testid="deploy-checks">
      {checks.map((check) => (
        <li
          key={`${check.id}:${check.secretId ?? ''}`}
          className={check.passed ? 'check passed' : 'check failed'}
          data-check={check.id}
          data-passed={check.passed}
        >
          <span className={`badge ${check.passed ? 'badge-ready' : 'badge-failed'}`}>{check.passed ? 'Pass' : 'Fail'}</span>{' '}
          <span className="check-rule">{check.rule}</span> {check.message}
          {!check.passed && check.fix ? (
            <p className="check-fix">
              <strong>Fix:</strong> {check.fix}
            </p>
          ) : null}
          {!check.passed && check.missingGrant ? (
            <GrantIt
              check={check}
              names={names}
              onGranted={() => {
                failingAtGrant.current = failing;
                setGranted((n) => n + 1);
              }}
            />
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * Grants exactly one missing permission: the built-in role the API names (secret-operator), on
 * exactly that resource, never the namespace.
 */
function useGrantMissing(grant: MissingGrant, target: string, onGranted: () => void) {
  const toast = useToast();
  return useResultMutation({
    mutationFn: () =>
      grantAccess({
        subjectId: grant.subjectId,
        roleId: grant.roleId,
        scope: {
          kind: 'RESOURCE',
          resourceKind: grant.resourceKind,
          resourceId: grant.resourceId,
          ...(grant.namespaceId ? { namespaceId: grant.namespaceId } : {}),
        },
      }),
    // The agent's missing grants and its grants table answer from the same grants.
    invalidate: [agentKeys.all, accessKeys.all, deployKeys.all],
    onSuccess: () => {
      toast(`Granted ${roleName(grant.roleId)} on ${target}.`);
      onGranted();
    },
  });
}

function GrantIt({ check, names, onGranted }: { check: DeployCheck; names: ReadonlyMap<string, string>; onGranted: () => void }) {
  const grant = check.missingGrant!;
  const target = `${grant.resourceKind} ${names.get(grant.resourceId) ?? grant.resourceId}`;
  const mutation = useGrantMissing(grant, target, onGranted);
  return (
    <div className="check-fix">
      {/* The accessible name starts with the visible words (WCAG 2.5.3 label in name). */}
      <BusyButton type="button" className="button secondary" data-fix onClick={() => mutation.submit(undefined)} busy={mutation.pending}>
        {mutation.pending ? 'Granting…' : 'Grant it'}
        <span className="visually-hidden">
          : {roleName(grant.roleId)} on {target} to the agent's service principal
        </span>
      </BusyButton>
      {mutation.outcome?.kind !== 'success' ? <FormOutcome outcome={mutation.outcome} doing="grant" /> : null}
    </div>
  );
}
