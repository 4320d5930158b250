'use client';

import { createContext, useContext, useRef, useState, type ReactNode, type RefObject } from 'react';
import type { SecretListItem } from '../../lib/secrets';
import { RedeployConsumersPanel } from '../deploy/RedeployConsumers';
import { notAllowedReason } from '../ui/NotAllowedButton';
import { RowActions, type RowAction } from '../ui/RowActions';
import { DeleteSecretButton } from './DeleteSecretPanel';
import { RotateSecretPanel } from './RotateSecretPanel';

/** What a row's actions open: the panels drawn after the row (spanning the columns shown) and the delete dialog. */
interface RowPanels {
  rotating: boolean;
  toggleRotate: () => void;
  redeploying: boolean;
  toggleRedeploy: () => void;
  openDelete: () => void;
  /** The row's Actions button: where focus goes back when a panel or the dialog closes. */
  menuButton: RefObject<HTMLButtonElement | null>;
}

const PanelsOfRow = createContext<RowPanels | null>(null);

/** One secret's row (its cells, from the table's columns), the Rotate and Redeploy panels after it, and its Delete dialog. */
export function SecretRow({ namespaceId, secret, width, children }: { namespaceId: string; secret: SecretListItem; width: number; children: ReactNode }) {
  const [rotating, setRotating] = useState(false);
  const [redeploying, setRedeploying] = useState(false);
  const [deleting, setDeleting] = useState(false);
  // Closing the rotate panel (Cancel, Close, Escape) focuses the row's Actions button first: never <body> in between.
  const menuButton = useRef<HTMLButtonElement>(null);
  const closeRotate = () => {
    menuButton.current?.focus();
    setRotating(false);
  };
  const panels: RowPanels = {
    rotating,
    toggleRotate: () => setRotating((open) => !open),
    redeploying,
    toggleRedeploy: () => setRedeploying((open) => !open),
    openDelete: () => setDeleting(true),
    menuButton,
  };

  return (
    <PanelsOfRow.Provider value={panels}>
      <tr>{children}</tr>
      {rotating ? (
        <tr className="panel-row">
          <td colSpan={width}>
            <RotateSecretPanel namespaceId={namespaceId} secret={secret} onClose={closeRotate} onRedeploy={() => setRedeploying(true)} />
          </td>
        </tr>
      ) : null}
      {redeploying ? (
        <tr className="panel-row">
          <td colSpan={width}>
            <RedeployConsumersPanel namespaceId={namespaceId} secretId={secret.id} secretName={secret.name} />
          </td>
        </tr>
      ) : null}
      {secret.viewerCan.delete ? <DeleteSecretButton namespaceId={namespaceId} secret={secret} opener={{ open: deleting, close: () => setDeleting(false), trigger: menuButton }} /> : null}
    </PanelsOfRow.Provider>
  );
}

/**
 * The Actions cell: one menu with Rotate, Redeploy consumers (while consumers are stale, or its
 * panel is open) and Delete. What the viewer may not do stays in the menu, refused, with why.
 */
export function SecretActions({ secret }: { secret: SecretListItem }) {
  const panels = useContext(PanelsOfRow);
  if (!panels) throw new Error('SecretActions is drawn inside a SecretRow');
  const { rotating, toggleRotate, redeploying, toggleRedeploy, openDelete, menuButton } = panels;
  const actions: RowAction[] = [
    {
      id: 'rotate',
      label: rotating ? 'Close rotate' : 'Rotate…',
      onSelect: toggleRotate,
      notAllowed: secret.viewerCan.update ? undefined : notAllowedReason(secret.name, 'rotate', 'update', 'secret'),
    },
  ];
  if (secret.staleConsumers.total > 0 || redeploying) {
    actions.push({ id: 'redeploy', label: redeploying ? 'Close redeploy consumers' : 'Redeploy consumers…', onSelect: toggleRedeploy });
  }
  actions.push({
    id: 'delete',
    label: 'Delete…',
    danger: true,
    onSelect: openDelete,
    notAllowed: secret.viewerCan.delete ? undefined : notAllowedReason(secret.name, 'delete', 'delete', 'secret'),
  });
  return <RowActions name={secret.name} actions={actions} trigger={menuButton} />;
}
