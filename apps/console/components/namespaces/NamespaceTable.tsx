import Link from 'next/link';
import { lazy, Suspense, useMemo } from 'react';
import { plural } from '../../lib/format';
import { mayNeedReprovisioning } from '../../lib/namespace-reprovision';
import type { NamespaceHealth } from '../../lib/namespace-health';
import type { Namespace } from '../../lib/namespaces';
import type { Sorting } from '../../lib/paging';
import { CopyId } from '../ui/CopyId';
import { RelativeTime } from '../ui/RelativeTime';
import { DataTable, listColumn, type ListColumn } from '../ui/DataTable';
import { NAMESPACE_SECTIONS, namespaceHref, type NamespaceSection } from '../../lib/namespace-links';
import { StatusBadge } from './StatusBadge';

// Offered only on a LOST or FAILED row (RC5), so a chunk of its own loaded then: the confirmation,
// the form hook and the access check stay out of every route's first load (scripts/size-budgets.json).
const ReprovisionNamespaceButton = lazy(() => import('./ReprovisionNamespaceButton'));

/** The sections a namespace's row links to, and how each link is read ("Secrets of …", "Access in …"). */
const ROW_LINK_WORD: Partial<Record<NamespaceSection, string>> = { secrets: 'of', configurations: 'of', agents: 'of', access: 'in' };
const ROW_SECTIONS = NAMESPACE_SECTIONS.filter((s) => ROW_LINK_WORD[s.key]);

const namespaceLinks = (ns: Namespace) => (
  <span className="link-list">
    {ROW_SECTIONS.map((s) => (
      <Link key={s.key} href={namespaceHref(s.key, ns.id)} aria-label={`${s.label} ${ROW_LINK_WORD[s.key]} ${ns.name}`}>
        {s.label}
      </Link>
    ))}
  </span>
);

function StatusCell({ ns }: { ns: Namespace }) {
  return (
    <>
      <StatusBadge status={ns.status} />
      {ns.statusMessage ? (
        <span className={ns.status === 'LOST' ? 'status-message lost-message' : 'status-message'} data-testid="namespace-status-message">
          {ns.statusMessage}
        </span>
      ) : null}
      {mayNeedReprovisioning(ns.status) ? (
        <span className="row-action">
          <Suspense fallback={null}>
            <ReprovisionNamespaceButton namespace={ns} />
          </Suspense>
        </span>
      ) : null}
    </>
  );
}

function namespaceColumns(health: ReadonlyMap<string, NamespaceHealth> | null): Array<ListColumn<Namespace>> {
  return [
    listColumn('name', { label: 'Name', rowHeader: true, sort: { ascending: 'NAME_A_TO_Z', descending: 'NAME_Z_TO_A' } }, (ns) => ns.name),
    listColumn('id', { label: 'ID' }, (ns) => <CopyId value={ns.id} label={`id of ${ns.name}`} />),
    listColumn('status', { label: 'Status' }, (ns) => <StatusCell ns={ns} />),
    listColumn('health', { label: 'Health', testId: 'namespace-health' }, (ns) => <HealthCell namespace={ns} health={health?.get(ns.id) ?? null} />),
    listColumn('created', { label: 'Created', sort: { ascending: 'OLDEST_FIRST', descending: 'NEWEST_FIRST', first: 'NEWEST_FIRST' } }, (ns) => <RelativeTime iso={ns.createdAt} />),
    listColumn('links', { label: 'Links', quietHeader: true }, namespaceLinks),
  ];
}

export function NamespaceTable({ namespaces, health, sorting }: { namespaces: Namespace[]; health: ReadonlyMap<string, NamespaceHealth> | null; sorting?: Sorting | undefined }) {
  const columns = useMemo(() => namespaceColumns(health), [health]);
  return <DataTable name="namespaces" label="Namespaces" rows={namespaces} columns={columns} rowId={(ns) => ns.id} sorting={sorting} />;
}

/**
 * The namespace at a glance: one word (OK, ATTENTION, FAILING), then what makes it so, each a
 * link to the list filtered to those rows (the agents that failed, the stale secrets, the
 * SelfConfig requests waiting, the last day's failures in the audit log). Counts are of what the
 * viewer may read; the failures are not shown to a viewer who may not read the audit log.
 */
function HealthCell({ namespace, health }: { namespace: Namespace; health: NamespaceHealth | null }) {
  if (!health) return <span className="health-counts">…</span>;
  const { agents, secrets } = health;
  const links: Array<{ text: string; href: string }> = [];
  if (agents.failed) links.push({ text: `${agents.failed} failed`, href: namespaceHref('agents', namespace.id, { status: 'failed' }) });
  if (agents.degraded) links.push({ text: `${agents.degraded} degraded`, href: namespaceHref('agents', namespace.id, { status: 'degraded' }) });
  if (agents.deploying) links.push({ text: `${agents.deploying} deploying`, href: namespaceHref('agents', namespace.id, { status: 'deploying' }) });
  if (secrets.stale) links.push({ text: plural(secrets.stale, 'stale secret'), href: namespaceHref('secrets', namespace.id, { stale: '1' }) });
  if (health.rolloutsAwaitingApproval) links.push({ text: `${plural(health.rolloutsAwaitingApproval, 'rollout')} awaiting approval`, href: namespaceHref('secrets', namespace.id) });
  if (health.selfConfigAwaitingApproval) {
    links.push({ text: `${plural(health.selfConfigAwaitingApproval, 'SelfConfig request')} awaiting approval`, href: namespaceHref('selfconfig', namespace.id, { phase: 'AwaitingApproval' }) });
  }
  // The audit log as the count read it: this namespace, FAILURE, since the window's start.
  if (health.recentFailures) {
    const params = new URLSearchParams({ namespaceId: namespace.id, outcome: 'FAILURE', from: health.recentFailuresSince });
    links.push({ text: `${plural(health.recentFailures, 'failure')} in the last day`, href: `/audit?${params.toString()}` });
  }
  return (
    <>
      <span className={`badge health-${health.status.toLowerCase()}`}>{health.status}</span>{' '}
      <span className="health-counts">
        {plural(agents.total, 'agent')} ({agents.running} running), {plural(secrets.total, 'secret')}
      </span>
      {links.length ? (
        <span className="link-list health-links">
          {links.map((l) => (
            <Link key={l.href + l.text} href={l.href} aria-label={`${l.text} in ${namespace.name}`}>
              {l.text}
            </Link>
          ))}
        </span>
      ) : null}
    </>
  );
}
