import Link from 'next/link';
import { useMemo } from 'react';
import type { SecretListItem } from '../../lib/secrets';
import type { Sorting } from '../../lib/paging';
import { StaleBadge } from '../deploy/RedeployConsumers';
import { CopyId } from '../ui/CopyId';
import { DataTable, listColumn, type ListColumn } from '../ui/DataTable';
import { RelativeTime } from '../ui/RelativeTime';
import { SecretActions, SecretRow } from './SecretRow';

function secretColumns(namespaceId: string): Array<ListColumn<SecretListItem>> {
  return [
    listColumn('name', { label: 'Name', rowHeader: true, sort: { ascending: 'NAME_A_TO_Z', descending: 'NAME_Z_TO_A' } }, (secret) => (
      // The name opens the secret's page (its references, versions and Rotate): one link, no button beside it.
      <Link className="object-link" href={`/secrets?${new URLSearchParams({ namespace: namespaceId, id: secret.id }).toString()}`} aria-label={`References of ${secret.name}`}>
        {secret.name}
      </Link>
    )),
    listColumn('id', { label: 'ID' }, (secret) => <CopyId value={secret.id} label={`id of ${secret.name}`} />),
    listColumn('version', { label: 'Version', className: 'numeric' }, (secret) => (
      <>
        {secret.version} <StaleBadge count={secret.staleConsumers.total} />
      </>
    )),
    listColumn('usedBy', { label: 'Used by', className: 'numeric', testId: 'used-by' }, (secret) => secret.consumers.total),
    listColumn('updated', { label: 'Updated' }, (secret) => <RelativeTime iso={secret.updatedAt} />),
    // The reference a configuration or harnessAuth takes, copied as the API's JSON, not shown as it.
    listColumn('reference', { label: 'Reference' }, (secret) => (
      <CopyId
        value={JSON.stringify({ kind: secret.reference.kind, namespaceId: secret.reference.namespaceId, id: secret.reference.id })}
        label={`reference to ${secret.name}`}
        idle="Copy reference"
        hidden
      />
    )),
    listColumn('actions', { label: 'Actions', className: 'actions' }, (secret) => <SecretActions secret={secret} />),
  ];
}

export function SecretTable({ namespaceId, secrets, sorting }: { namespaceId: string; secrets: SecretListItem[]; sorting?: Sorting | undefined }) {
  const columns = useMemo(() => secretColumns(namespaceId), [namespaceId]);
  return (
    <DataTable
      name="secrets"
      label="Secrets"
      rows={secrets}
      columns={columns}
      rowId={(secret) => secret.id}
      sorting={sorting}
      row={(secret, cells, width) => (
        <SecretRow namespaceId={namespaceId} secret={secret} width={width}>
          {cells}
        </SecretRow>
      )}
    />
  );
}
