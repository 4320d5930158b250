'use client';

import { createContext, useContext, useRef, useState, type ReactNode, type RefObject } from 'react';
import type { SecretListItem } from '../../lib/secrets';
import { RedeployConsumersPanel } from '../deploy/RedeployConsumers';
import { NotAllowedButton, notAllowedReason } from '../ui/NotAllowedButton';
import { DeleteSecretButton } from './DeleteSecretPanel';
import { RotateSecretPanel } from './RotateSecretPanel';

/** What a row's actions open: the panels drawn after the row, spanning the columns shown. */
interface RowPanels {
  rotating: boolean;
  toggleRotate: () => void;
  rotateButton: RefObject<HTMLButtonElement | null>;
  redeploying: boolean;
  toggleRedeploy: () => void;
}

const PanelsOfRow = createContext<RowPanels | null>(null);

const panelId = (secret: SecretListItem) => `panel-${secret.id}`;
const redeployId = (secret: SecretListItem) => `redeploy-${secret.id}`;

/** One secret's row (its cells, from the table's columns) and the Rotate and Redeploy panels after it. */
export function SecretRow({ namespaceId, secret, width, children }: { namespaceId: string; secret: SecretListItem; width: number; children: ReactNode }) {
  const [rotating, setRotating] = useState(false);
  // Closing the rotate panel (Cancel, Close, Escape) focuses Rotate first: never <body> in between.
  const rotateButton = useRef<HTMLButtonElement>(null);
  const closeRotate = () => {
    rotateButton.current?.focus();
    setRotating(false);
  };
  const [redeploying, setRedeploying] = useState(false);
  const panels: RowPanels = {
    rotating,
    toggleRotate: () => setRotating((open) => !open),
    rotateButton,
    redeploying,
    toggleRedeploy: () => setRedeploying((open) => !open),
  };

  return (
    <PanelsOfRow.Provider value={panels}>
      <tr>{children}</tr>
      {rotating ? (
        <tr className="panel-row">
          <td colSpan={width} id={panelId(secret)}>
            <RotateSecretPanel namespaceId={namespaceId} secret={secret} onClose={closeRotate} onRedeploy={() => setRedeploying(true)} />
          </td>
        </tr>
      ) : null}
      {redeploying ? (
        <tr className="panel-row">
          <td colSpan={width} id={redeployId(secret)}>
            <RedeployConsumersPanel namespaceId={namespaceId} secretId={secret.id} secretName={secret.name} />
          </td>
        </tr>
      ) : null}
    </PanelsOfRow.Provider>
  );
}

/** The Actions cell: Rotate, Redeploy (while consumers are stale), Delete; refused ones say why. */
export function SecretActions({ namespaceId, secret }: { namespaceId: string; secret: SecretListItem }) {
  const panels = useContext(PanelsOfRow);
  if (!panels) throw new Error('SecretActions is drawn inside a SecretRow');
  const { rotating, toggleRotate, rotateButton, redeploying, toggleRedeploy } = panels;
  return (
    <>
      {secret.viewerCan.update ? (
        <button
          ref={rotateButton}
          type="button"
          className="button secondary"
          aria-expanded={rotating}
          aria-controls={rotating ? panelId(secret) : undefined}
          aria-label={`Rotate ${secret.name}`}
          onClick={toggleRotate}
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
          aria-controls={redeploying ? redeployId(secret) : undefined}
          aria-label={`Redeploy consumers of ${secret.name}`}
          onClick={toggleRedeploy}
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
    </>
  );
}
