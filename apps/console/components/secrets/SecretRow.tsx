'use client';

import Link from 'next/link';
import { useRef, useState } from 'react';
import type { SecretListItem } from '../../lib/secrets';
import { RedeployConsumersPanel, StaleBadge } from '../deploy/RedeployConsumers';
import { CopyId } from '../ui/CopyId';
import { NotAllowedButton, notAllowedReason } from '../ui/NotAllowedButton';
import { RelativeTime } from '../ui/RelativeTime';
import { DeleteSecretButton } from './DeleteSecretPanel';
import { RotateSecretPanel } from './RotateSecretPanel';

export function SecretRow({ namespaceId, secret }: { namespaceId: string; secret: SecretListItem }) {
  const [rotating, setRotating] = useState(false);
  // Closing the rotate panel (Cancel, Close, Escape) focuses Rotate first: never <body> in between.
  const rotateButton = useRef<HTMLButtonElement>(null);
  const closeRotate = () => {
    rotateButton.current?.focus();
    setRotating(false);
  };
  const [redeploying, setRedeploying] = useState(false);
  const panelId = `panel-${secret.id}`;
  const redeployId = `redeploy-${secret.id}`;

  return (
    <>
      <tr>
        <th scope="row">
          {/* The name opens the secret's page (its references, versions and Rotate): one link, no button beside it. */}
          <Link className="object-link" href={`/secrets?${new URLSearchParams({ namespace: namespaceId, id: secret.id }).toString()}`} aria-label={`References of ${secret.name}`}>
            {secret.name}
          </Link>
        </th>
        <td>
          <CopyId value={secret.id} label={`id of ${secret.name}`} />
        </td>
        <td className="numeric">
          {secret.version} <StaleBadge count={secret.staleConsumers.total} />
        </td>
        <td className="numeric" data-testid="used-by">
          {secret.consumers.total}
        </td>
        <td>
          <RelativeTime iso={secret.updatedAt} />
        </td>
        <td>
          {/* The reference a configuration or harnessAuth takes, copied as the API's JSON, not shown as it. */}
          <CopyId
            value={JSON.stringify({ kind: secret.reference.kind, namespaceId: secret.reference.namespaceId, id: secret.reference.id })}
            label={`reference to ${secret.name}`}
            idle="Copy reference"
            hidden
          />
        </td>
        <td className="actions">
          {secret.viewerCan.update ? (
            <button
              ref={rotateButton}
              type="button"
              className="button secondary"
              aria-expanded={rotating}
              aria-controls={rotating ? panelId : undefined}
              aria-label={`Rotate ${secret.name}`}
              onClick={() => setRotating((open) => !open)}
            >
              Rotate
            </button>
          ) : (
            <NotAllowedButton label={`Rotate ${secret.name}`} reason={notAllowedReason(secret.name, 'rotate', 'update', 'secret')}>
              Rotate
            </NotAllowedButton>
          )}
          {secret.staleConsumers.total > 0 || redeploying ? (
            <button
              type="button"
              className="button secondary"
              aria-expanded={redeploying}
              aria-controls={redeploying ? redeployId : undefined}
              aria-label={`Redeploy consumers of ${secret.name}`}
              onClick={() => setRedeploying((open) => !open)}
            >
              Redeploy
            </button>
          ) : null}
          {secret.viewerCan.delete ? (
            <DeleteSecretButton namespaceId={namespaceId} secret={secret} />
          ) : (
            <NotAllowedButton label={`Delete ${secret.name}`} reason={notAllowedReason(secret.name, 'delete', 'delete', 'secret')}>
              Delete
            </NotAllowedButton>
          )}
        </td>
      </tr>
      {rotating ? (
        <tr className="panel-row">
          <td colSpan={7} id={panelId}>
            <RotateSecretPanel
              namespaceId={namespaceId}
              secret={secret}
              onClose={closeRotate}
              onRedeploy={() => setRedeploying(true)}
            />
          </td>
        </tr>
      ) : null}
      {redeploying ? (
        <tr className="panel-row">
          <td colSpan={7} id={redeployId}>
            <RedeployConsumersPanel namespaceId={namespaceId} secretId={secret.id} secretName={secret.name} />
          </td>
        </tr>
      ) : null}
    </>
  );
}
