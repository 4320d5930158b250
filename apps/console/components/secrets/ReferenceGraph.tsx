'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import {
  secretReferencesQueryOptions,
  type ReferenceAgent,
  type ReferenceRevision,
  type SecretReferenceGraph,
} from '../../lib/references';
import { namespaceSecretsQueryOptions } from '../../lib/secrets';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { plural } from '../../lib/format';
import { namespaceHref } from '../../lib/namespace-links';
import { NamespaceHeader } from '../namespaces/NamespaceHeader';
import { CopyId } from '../ui/CopyId';
import { NotAllowedButton, notAllowedReason } from '../ui/NotAllowedButton';
import { RotateSecretPanel } from './RotateSecretPanel';
import { RelativeTime } from '../ui/RelativeTime';
import { TableSkeleton } from '../ui/Skeleton';

// /secrets?namespace=ns_…&id=sec_… : where one secret's references go, for auditors. Drawn as
// nested lists (secret → configurations → agents → revisions → gateway Deployments), so a screen
// reader announces the depth and the keyboard follows the links in order; stale deliveries say so
// in words. Nodes the viewer may not read are counted, never named (the API withholds them).

export function SecretReferencesScreen({ namespaceId, secretId }: { namespaceId: string; secretId: string }) {
  const query = useQuery(secretReferencesQueryOptions(secretId));
  const { data, error, isPending } = query;
  const secret = data && data.namespace?.id === namespaceId ? data : null;
  // The namespace's name for the header while the secret loads (or when it cannot be seen).
  const secrets = useQuery({ ...namespaceSecretsQueryOptions(namespaceId), enabled: !secret && !isPending });

  return (
    <>
      <NamespaceHeader
        namespace={secret?.namespace ?? secrets.data?.namespace ?? null}
        namespaceId={namespaceId}
        section="secrets"
        title={secret ? `References of ${secret.name}` : 'References'}
        trail={[{ label: secret?.name ?? secretId }, { label: 'References' }]}
      />
      <p className="lede">Where this secret is referenced: the configurations that bind it, the agents that use them, their revisions and the gateways that run them.</p>
      {isPending ? <TableSkeleton label="Loading references…" rows={5} /> : null}
      {error ? <QueryErrorAlert error={error} what="this secret's references" retry={() => query.refetch()} /> : null}
      {!isPending && !error && !secret ? (
        <p role="alert" className="alert error">
          Secret <code>{secretId}</code> does not exist in this namespace or you may not see it.{' '}
          <Link href={namespaceHref('secrets', namespaceId)}>Back to secrets</Link>
        </p>
      ) : null}
      {secret ? (
        <>
          <dl className="facts">
            <dt>ID</dt>
            <dd>
              <CopyId value={secret.id} label="secret id" />
            </dd>
            <dt>Version</dt>
            <dd>{secret.version}</dd>
            <dt>Updated</dt>
            <dd>
              <RelativeTime iso={secret.updatedAt} />
            </dd>
          </dl>
          <p>
            <Link href={namespaceHref('references', namespaceId, { focus: secret.id })}>See it in the namespace’s reference graph</Link>, with everything it reaches lit.
          </p>
          <SecretRotate namespaceId={namespaceId} secret={secret} />
          <ReferenceGraph namespaceId={namespaceId} secretName={secret.name} graph={secret.references} />
        </>
      ) : null}
    </>
  );
}

/**
 * Rotate from the secret's own page: the button, or why not; `&rotate=1` (the command palette's
 * "Rotate secret …", with `#rotate` so focus lands on the form) opens the form at once.
 */
function SecretRotate({ namespaceId, secret }: { namespaceId: string; secret: { id: string; name: string; version: number; viewerCan: { update: boolean } } }) {
  const asked = useSearchParams().get('rotate') === '1';
  const [open, setOpen] = useState(asked && secret.viewerCan.update);
  // Closing the form returns focus to the button that opens it (not to the page's body), as a
  // row's Rotate does in the list (SecretRow).
  // In a layout effect, before the frame is painted: the button exists only once the form is gone.
  const button = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  const close = () => {
    refocus.current = true;
    setOpen(false);
  };
  useLayoutEffect(() => {
    if (open || !refocus.current) return;
    refocus.current = false;
    button.current?.focus();
  }, [open]);
  return (
    <section id="rotate" aria-label={`Rotate ${secret.name}`} className="section">
      {secret.viewerCan.update ? (
        open ? (
          <RotateSecretPanel
            namespaceId={namespaceId}
            secret={secret}
            onClose={close}
          />
        ) : (
          <button ref={button} type="button" className="button secondary" onClick={() => setOpen(true)}>
            Rotate
          </button>
        )
      ) : (
        <NotAllowedButton label={`Rotate ${secret.name}`} reason={notAllowedReason(secret.name, 'rotate', 'update', 'secret')}>
          Rotate
        </NotAllowedButton>
      )}
    </section>
  );
}

export function ReferenceGraph({ namespaceId, secretName, graph }: { namespaceId: string; secretName: string; graph: SecretReferenceGraph }) {
  const agentHref = (id: string, hash = '') => `${namespaceHref('agents', namespaceId, { id })}${hash}`;
  const visibleAgents = new Set(graph.agents.map((a) => a.id));
  const stale = graph.revisions.filter((r) => r.stale).length;
  const running = graph.revisions.filter((r) => r.state === 'ACTIVE').length;
  const throughHidden = graph.agents.filter((a) => a.viaConfiguration && a.configurationId === null);
  const harness = graph.agents.filter((a) => a.harnessAuthProvider !== null);
  const formerly = graph.agents.filter((a) => !a.viaConfiguration && a.harnessAuthProvider === null);
  const orphanRevisions = graph.revisions.filter((r) => !visibleAgents.has(r.agentId));
  const { hidden } = graph;
  const empty = graph.configurations.length === 0 && graph.agents.length === 0 && graph.revisions.length === 0 && hidden.configurations + hidden.agents + hidden.revisions === 0;

  const revisionsOf = (agentId: string) => graph.revisions.filter((r) => r.agentId === agentId);
  const agentNode = (agent: ReferenceAgent, how: ReactNode) => (
    <li key={agent.id}>
      <span className="ref-kind">Agent</span> <Link href={agentHref(agent.id)}>{agent.name}</Link> <span className="hint">{how} · {agent.status}</span>
      <RevisionList revisions={revisionsOf(agent.id)} agentHref={(hash) => agentHref(agent.id, hash)} />
    </li>
  );

  return (
    <section aria-labelledby="reference-graph-title" className="section">
      <h2 id="reference-graph-title">Reference graph</h2>
      <p role="status" data-testid="reference-summary">
        {plural(graph.configurations.length, 'configuration')}, {plural(graph.agents.length, 'agent')}, {plural(running, 'running revision')}
        {stale > 0 ? `, ${stale} of them stale` : ''}.
        {hidden.configurations + hidden.agents + hidden.revisions > 0
          ? ` You may not see ${[
              hidden.configurations ? plural(hidden.configurations, 'configuration') : null,
              hidden.agents ? plural(hidden.agents, 'agent') : null,
              hidden.revisions ? plural(hidden.revisions, 'revision') : null,
            ]
              .filter(Boolean)
              .join(', ')} more.`
          : ''}
      </p>
      {empty ? (
        <p className="empty">Nothing references this secret: no configuration binds it, no agent uses it, no revision delivers it.</p>
      ) : (
        <ul className="ref-tree" aria-label={`References of ${secretName}`}>
          <li>
            <span className="ref-kind">Secret</span> <strong>{secretName}</strong> <span className="hint">current version {graph.currentVersion}</span>
            <ul>
              {graph.configurations.length > 0 || hidden.configurations > 0 ? (
                <li>
                  <span className="ref-group">Bound by configurations</span>
                  <ul>
                    {graph.configurations.map((c) => {
                      const agents = graph.agents.filter((a) => a.configurationId === c.id);
                      return (
                        <li key={c.id}>
                          <span className="ref-kind">Configuration</span>{' '}
                          <Link href={namespaceHref('configurations', namespaceId, { id: c.id })}>{c.name}</Link>{' '}
                          <span className="hint">
                            binds it as{' '}
                            {c.envNames.map((n, i) => (
                              <span key={n}>
                                {i > 0 ? ', ' : ''}
                                <code>{n}</code>
                              </span>
                            ))}{' '}
                            · generation {c.generation}
                          </span>
                          {agents.length > 0 ? (
                            <ul>{agents.map((a) => agentNode(a, 'selects it'))}</ul>
                          ) : (
                            <ul>
                              <li className="hint">No agent you may see selects it.</li>
                            </ul>
                          )}
                        </li>
                      );
                    })}
                    {hidden.configurations > 0 ? (
                      <li data-testid="hidden-configurations">
                        <span className="ref-hidden">{plural(hidden.configurations, 'configuration')} you may not see</span>
                        {throughHidden.length > 0 ? <ul>{throughHidden.map((a) => agentNode(a, 'selects one of them'))}</ul> : null}
                      </li>
                    ) : null}
                  </ul>
                </li>
              ) : null}
              {harness.length > 0 ? (
                <li>
                  <span className="ref-group">Model credential (harnessAuth) of</span>
                  <ul>{harness.map((a) => agentNode(a, `harnessAuth ${a.harnessAuthProvider}`))}</ul>
                </li>
              ) : null}
              {formerly.length > 0 ? (
                <li>
                  <span className="ref-group">No longer referenced, still delivered by</span>
                  <ul>{formerly.map((a) => agentNode(a, 'its live revisions hold it'))}</ul>
                </li>
              ) : null}
              {orphanRevisions.length > 0 || hidden.agents > 0 ? (
                <li data-testid="hidden-agents">
                  <span className="ref-hidden">
                    {hidden.agents > 0 ? `${plural(hidden.agents, 'agent')} you may not see` : 'Agents you may not see'}
                  </span>
                  <RevisionList revisions={orphanRevisions} agentHref={null} />
                </li>
              ) : null}
              {hidden.revisions > 0 ? (
                <li data-testid="hidden-revisions">
                  <span className="ref-hidden">{plural(hidden.revisions, 'revision')} you may not see</span>
                </li>
              ) : null}
            </ul>
          </li>
        </ul>
      )}
    </section>
  );
}

function RevisionList({ revisions, agentHref }: { revisions: ReferenceRevision[]; agentHref: ((hash: string) => string) | null }) {
  if (revisions.length === 0) {
    return agentHref ? (
      <ul>
        <li className="hint">No live revision delivers it (not deployed, stopped or failed).</li>
      </ul>
    ) : null;
  }
  return (
    <ul>
      {revisions.map((r) => {
        const held = [...new Set(r.deliveries.map((d) => d.version))].join(', ');
        const label = `Revision ${r.number}`;
        return (
          <li key={r.id} data-testid="reference-revision">
            <span className="ref-kind">Revision</span> {agentHref ? <Link href={agentHref('#agent-revisions-title')}>{label}</Link> : <code>{r.id}</code>}{' '}
            <span className="hint">
              {r.state.toLowerCase()} · delivers{' '}
              {r.deliveries.map((d, i) => (
                <span key={d.envName}>
                  {i > 0 ? ', ' : ''}
                  <code>{d.envName}</code>
                  {d.purpose === 'harnessAuth' ? ' (model workload)' : ''}
                </span>
              ))}{' '}
              · holds version {held}
            </span>{' '}
            {r.stale ? <strong className="badge badge-stale">Stale: older than the current version</strong> : null}
            {r.gateway ? (
              <ul>
                <li>
                  <span className="ref-kind">Gateway Deployment</span>{' '}
                  {agentHref ? (
                    <Link href={agentHref('#gateway')}>
                      <code>
                        {r.gateway.k8sNamespace}/{r.gateway.name}
                      </code>
                    </Link>
                  ) : (
                    <code>
                      {r.gateway.k8sNamespace}/{r.gateway.name}
                    </code>
                  )}
                </li>
              </ul>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}
