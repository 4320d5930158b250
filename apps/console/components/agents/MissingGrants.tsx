'use client';

import { useEffect, useRef, useState } from 'react';
import { accessKeys, grantAccess } from '../../lib/access';
import { agentKeys, type MissingGrant } from '../../lib/agents';
import { deployKeys } from '../../lib/deploy';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { useToast } from '../feedback/Toaster';

/** A built-in role's id is `rol_<name>`: show the name. */
export const roleName = (roleId: string) => roleId.replace(/^rol_/, '');

/**
 * A3: what the agent's service principal still needs before it can consume its selection. Each
 * fix grants exactly the missing permission (the API names the built-in role carrying it, e.g.
 * secret-operator) on exactly that resource: never the namespace.
 */
export function MissingGrants({ grants, names }: { grants: MissingGrant[]; names: ReadonlyMap<string, string> }) {
  const region = useRef<HTMLDivElement>(null);
  const [granted, setGranted] = useState(0);
  // After "Grant it" the item leaves the list: focus the next fix, or the region once none is left.
  useEffect(() => {
    if (granted === 0) return;
    const next = region.current?.querySelector<HTMLElement>('button');
    if (next) next.focus();
    else region.current?.focus();
  }, [granted, grants.length]);

  if (grants.length === 0) {
    return (
      <div ref={region} tabIndex={-1} role="status" className="alert success" data-testid="missing-grants">
        <p>Nothing missing: its service principal may operate on every secret this agent consumes.</p>
      </div>
    );
  }
  return (
    <div ref={region} tabIndex={-1} className="alert notice" data-testid="missing-grants">
      <p>
        <strong>Missing grants.</strong> Its service principal cannot consume its selection until it has:
      </p>
      <ul className="plain-list">
        {grants.map((grant) => (
          <MissingGrantItem
            key={`${grant.action}:${grant.resourceKind}:${grant.resourceId}`}
            grant={grant}
            names={names}
            onGranted={() => setGranted((n) => n + 1)}
          />
        ))}
      </ul>
    </div>
  );
}

/**
 * Grants exactly one missing permission: the built-in role the API names, on exactly that resource
 * (never the namespace). Shared by this list and the deploy checks (components/deploy).
 */
export function useGrantMissing(grant: MissingGrant, target: string, onGranted?: () => void) {
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
    // The deploy checks (deployKeys) answer from the same grants.
    invalidate: [agentKeys.all, accessKeys.all, deployKeys.all],
    onSuccess: () => {
      toast(`Granted ${roleName(grant.roleId)} on ${target}.`);
      onGranted?.();
    },
  });
}

function MissingGrantItem({ grant, names, onGranted }: { grant: MissingGrant; names: ReadonlyMap<string, string>; onGranted: () => void }) {
  const target = `${grant.resourceKind} ${names.get(grant.resourceId) ?? grant.resourceId}`;
  const mutation = useGrantMissing(grant, target, onGranted);
  return (
    <li>
      <strong>{grant.action}</strong> on {target} (role <code>{roleName(grant.roleId)}</code>){' '}
      {/* The accessible name starts with the visible word (WCAG 2.5.3 label in name). */}
      <button type="button" className="button secondary" onClick={() => mutation.submit(undefined)} disabled={mutation.pending}>
        {mutation.pending ? 'Granting…' : 'Grant'}
        <span className="visually-hidden">
          {' '}
          {grant.action} on {target}
        </span>
      </button>
      {mutation.outcome?.kind !== 'success' ? <FormOutcome outcome={mutation.outcome} doing="grant" /> : null}
    </li>
  );
}
