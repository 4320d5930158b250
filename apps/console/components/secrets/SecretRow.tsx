'use client';

import { useState } from 'react';
import { formatDateTime } from '../../lib/format';
import type { Secret } from '../../lib/secrets';
import { DeleteSecretPanel } from './DeleteSecretPanel';
import { RotateSecretPanel } from './RotateSecretPanel';

type Panel = 'rotate' | 'delete' | null;

export function SecretRow({ namespaceId, secret }: { namespaceId: string; secret: Secret }) {
  const [panel, setPanel] = useState<Panel>(null);
  const panelId = `panel-${secret.id}`;
  const toggle = (next: Exclude<Panel, null>) => setPanel((current) => (current === next ? null : next));

  return (
    <>
      <tr>
        <th scope="row">{secret.name}</th>
        <td>
          <code>{secret.id}</code>
        </td>
        <td className="numeric">{secret.version}</td>
        <td>
          <time dateTime={secret.updatedAt}>{formatDateTime(secret.updatedAt)}</time>
        </td>
        <td>
          <code className="reference">
            {JSON.stringify({ kind: secret.reference.kind, namespaceId: secret.reference.namespaceId, id: secret.reference.id })}
          </code>
        </td>
        <td className="actions">
          <button
            type="button"
            className="button secondary"
            aria-expanded={panel === 'rotate'}
            aria-controls={panel === 'rotate' ? panelId : undefined}
            aria-label={`Rotate ${secret.name}`}
            onClick={() => toggle('rotate')}
          >
            Rotate
          </button>
          <button
            type="button"
            className="button danger"
            aria-expanded={panel === 'delete'}
            aria-controls={panel === 'delete' ? panelId : undefined}
            aria-label={`Delete ${secret.name}`}
            onClick={() => toggle('delete')}
          >
            Delete
          </button>
        </td>
      </tr>
      {panel ? (
        <tr className="panel-row">
          <td colSpan={6} id={panelId}>
            {panel === 'rotate' ? (
              <RotateSecretPanel namespaceId={namespaceId} secret={secret} onClose={() => setPanel(null)} />
            ) : (
              <DeleteSecretPanel namespaceId={namespaceId} secret={secret} onClose={() => setPanel(null)} />
            )}
          </td>
        </tr>
      ) : null}
    </>
  );
}
