'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { revisionDiffQueryOptions, type RevisionDiff } from '../../lib/deploy';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { ScrollTable } from '../ui/ScrollTable';

/** A value as the frozen document holds it: references and literals, never a secret value (V7). */
function shown(value: unknown): string {
  if (value === undefined || value === null) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * V7: how this revision differs from the active one, read when asked: the configuration, each
 * changed value by path, the bindings, the secret versions, and the SelfConfig requests applied in
 * between. References and version numbers only.
 */
export function RevisionCompare({ revisionId, number, activeRevisionId, activeNumber }: { revisionId: string; number: number; activeRevisionId: string; activeNumber: number | null }) {
  const active = activeNumber === null ? 'the active revision' : `active revision ${activeNumber}`;
  const [open, setOpen] = useState(false);
  const region = useId();
  // Asked of the active revision against this one: what changed from this revision to the active.
  const query = useQuery({ ...revisionDiffQueryOptions(activeRevisionId, revisionId), enabled: open });
  return (
    <div className="revision-compare" data-testid="revision-compare">
      <button type="button" className="button" aria-expanded={open} aria-controls={region} onClick={() => setOpen((o) => !o)}>
        {open ? 'Hide the comparison' : `Compare with ${active}`}
      </button>
      {open ? (
        <div id={region} role="region" aria-label={`Revision ${number} compared with ${active}`}>
          {query.isPending ? <p className="hint">Comparing…</p> : null}
          {query.error ? <QueryErrorAlert error={query.error} what="the comparison" retry={() => query.refetch()} /> : null}
          {query.data && query.data.__typename !== 'RevisionDiff' ? <p className="alert error">{'message' in query.data ? query.data.message : 'The revisions cannot be compared.'}</p> : null}
          {query.data?.__typename === 'RevisionDiff' ? <DiffTables diff={query.data} /> : null}
          {query.isSuccess && query.data === null ? <p className="hint">This revision is no longer there.</p> : null}
        </div>
      ) : null}
    </div>
  );
}

function DiffTables({ diff }: { diff: RevisionDiff }) {
  const nothing = !diff.configurationChanged && diff.values.length === 0 && diff.bindings.length === 0 && diff.versions.length === 0 && diff.selfConfigRequests.length === 0;
  const from = `revision ${diff.from.number}`;
  const to = `revision ${diff.to.number}`;
  return (
    <div data-testid="revision-diff">
      {nothing ? <p className="hint">The two revisions deliver the same configuration, bindings and versions.</p> : null}
      <p data-testid="revision-diff-configuration">
        {diff.configurationChanged
          ? `Configuration: generation ${diff.from.configurationGeneration ?? 'none'} in ${from}, ${diff.to.configurationGeneration ?? 'none'} in ${to}.`
          : 'Configuration: the same generation in both.'}
      </p>
      {diff.values.length > 0 ? (
        <ScrollTable label="Changed values">
          <table className="table" data-testid="revision-diff-values">
            <caption className="table-caption">Values of the frozen document that differ</caption>
            <thead>
              <tr>
                <th scope="col">Path</th>
                <th scope="col">Change</th>
                <th scope="col">In {from}</th>
                <th scope="col">In {to}</th>
              </tr>
            </thead>
            <tbody>
              {diff.values.map((v) => (
                <tr key={v.path.join('.')}>
                  <td>
                    <code>{v.path.join('.')}</code>
                  </td>
                  <td>{v.change.toLowerCase()}</td>
                  <td>
                    <code>{shown(v.before)}</code>
                  </td>
                  <td>
                    <code>{shown(v.after)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : null}
      {diff.bindings.length > 0 ? (
        <ScrollTable label="Changed bindings">
          <table className="table" data-testid="revision-diff-bindings">
            <caption className="table-caption">Secret references added, removed or pointed elsewhere</caption>
            <thead>
              <tr>
                <th scope="col">Env name</th>
                <th scope="col">Change</th>
                <th scope="col">In {from}</th>
                <th scope="col">In {to}</th>
              </tr>
            </thead>
            <tbody>
              {diff.bindings.map((b) => (
                <tr key={`${b.purpose}:${b.envName}`}>
                  <td>
                    <code>{b.envName}</code>
                  </td>
                  <td>{b.change.toLowerCase()}</td>
                  <td>{b.before ? <code>{`${b.before.secretId} v${b.before.version}`}</code> : '—'}</td>
                  <td>{b.after ? <code>{`${b.after.secretId} v${b.after.version}`}</code> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : null}
      {diff.versions.length > 0 ? (
        <ul data-testid="revision-diff-versions">
          {diff.versions.map((v) => (
            <li key={`${v.purpose}:${v.envName}`}>
              <code>{v.envName}</code>: version {v.fromVersion} in {from}, version {v.toVersion} in {to}
            </li>
          ))}
        </ul>
      ) : null}
      {diff.selfConfigRequests.length > 0 ? <p>{diff.selfConfigRequests.length} SelfConfig request(s) applied to the agent between the two deploys.</p> : null}
    </div>
  );
}
