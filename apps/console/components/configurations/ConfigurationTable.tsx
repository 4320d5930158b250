import Link from 'next/link';
import { useMemo } from 'react';
import type { ConfigurationSummary } from '../../lib/configurations';
import { namespaceHref } from '../../lib/namespace-links';
import type { Sorting } from '../../lib/paging';
import { CopyId } from '../ui/CopyId';
import { DataTable, listColumn, type ListColumn } from '../ui/DataTable';
import { RelativeTime } from '../ui/RelativeTime';

function configurationColumns(namespaceId: string): Array<ListColumn<ConfigurationSummary>> {
  return [
    listColumn('name', { label: 'Name', rowHeader: true, sort: { ascending: 'NAME_A_TO_Z', descending: 'NAME_Z_TO_A' } }, (c) => c.name),
    listColumn('id', { label: 'ID' }, (c) => <CopyId value={c.id} label={`id of ${c.name}`} />),
    listColumn('generation', { label: 'Generation', className: 'numeric' }, (c) => c.generation),
    listColumn('bindings', { label: 'Bindings', className: 'numeric' }, (c) => c.secretBindings.length),
    listColumn('updated', { label: 'Updated' }, (c) => <RelativeTime iso={c.updatedAt} />),
    listColumn('links', { label: 'Links', quietHeader: true }, (c) => (
      <Link href={namespaceHref('configurations', namespaceId, { id: c.id })} aria-label={`Open configuration ${c.name}`}>
        Open
      </Link>
    )),
  ];
}

export function ConfigurationTable({ namespaceId, configurations, sorting }: { namespaceId: string; configurations: ConfigurationSummary[]; sorting?: Sorting | undefined }) {
  const columns = useMemo(() => configurationColumns(namespaceId), [namespaceId]);
  return <DataTable name="configurations" label="Configurations" rows={configurations} columns={columns} rowId={(c) => c.id} sorting={sorting} />;
}
