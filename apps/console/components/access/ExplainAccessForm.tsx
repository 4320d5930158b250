'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import {
  ACTIONS,
  describeScope,
  explainAccessQueryOptions,
  RESOURCE_KINDS,
  type AccessDecision,
  type ExplainRequest,
} from '../../lib/access';
import { MutationErrorAlert } from '../feedback/MutationErrorAlert';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { CopyId } from '../ui/CopyId';
import { SubjectPicker, type PrincipalOption } from './SubjectPicker';

type Named = { id: string; name: string };

/** "Why?": asks explainAccess whether a subject may do an action here, and shows the evidence. */
export function ExplainAccessForm({
  namespace,
  resources,
  names,
  principals,
  initialSubjectId,
}: {
  namespace: Named;
  resources: { secret: Named[]; configuration: Named[]; agent: Named[] };
  names: ReadonlyMap<string, string>;
  principals: PrincipalOption[];
  initialSubjectId: string;
}) {
  const id = useId();
  const [resourceKind, setResourceKind] = useState<string>('secret');
  const [request, setRequest] = useState<ExplainRequest | null>(null);
  const answer = useQuery({
    ...explainAccessQueryOptions(request ?? { subjectId: '', action: '', resourceKind: '', namespaceId: null, resourceId: null }),
    enabled: request !== null,
  });

  const targets: Named[] =
    resourceKind === 'secret' || resourceKind === 'configuration' || resourceKind === 'agent' ? resources[resourceKind] : [];

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const fields = new FormData(event.currentTarget);
    const target = String(fields.get('target') ?? '');
    const next: ExplainRequest = {
      subjectId: String(fields.get('subjectId') ?? '').trim(),
      action: String(fields.get('action') ?? ''),
      resourceKind,
      namespaceId: namespace.id,
      resourceId: resourceKind === 'namespace' ? namespace.id : target || null,
    };
    // The same question again: ask again (grants may have changed elsewhere).
    if (request && JSON.stringify(request) === JSON.stringify(next)) void answer.refetch();
    else setRequest(next);
  }

  return (
    <section aria-labelledby={`${id}-title`} className="card">
      <h2 id={`${id}-title`}>Why? Explain a decision</h2>
      <p className="hint">
        Asks the API whether a subject may do an action here, and which grant allows it. No action implies another.
      </p>
      <form method="post" className="form" onSubmit={onSubmit}>
        <div className="grid-2">
          <SubjectPicker label="Subject" name="subjectId" principals={principals} initialValue={initialSubjectId} required />
          <div className="field">
            <label htmlFor={`${id}-action`}>Action</label>
            <select id={`${id}-action`} name="action" defaultValue="operate">
              {ACTIONS.map((action) => (
                <option key={action} value={action}>
                  {action}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-kind`}>Resource kind</label>
            <select id={`${id}-kind`} value={resourceKind} onChange={(event) => setResourceKind(event.target.value)}>
              {RESOURCE_KINDS.map((kind) => (
                <option key={kind} value={kind}>
                  {kind}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-target`}>Resource</label>
            <select id={`${id}-target`} name="target" defaultValue="" key={resourceKind}>
              {resourceKind === 'namespace' ? (
                <option value="">This namespace ({namespace.name})</option>
              ) : (
                <option value="">Any {resourceKind} in {namespace.name}</option>
              )}
              {targets.map((target) => (
                <option key={target.id} value={target.id}>
                  {target.name}
                </option>
              ))}
            </select>
          </div>
        </div>
        <button type="submit" className="button primary">
          Explain
        </button>
      </form>
      {answer.error ? <QueryErrorAlert error={answer.error} what="the explanation" retry={() => answer.refetch()} /> : null}
      {request && answer.isFetching ? <p role="status">Asking…</p> : null}
      {answer.data && !answer.isFetching ? (
        answer.data.__typename === 'AccessDecision' ? (
          <DecisionView decision={answer.data} names={names} />
        ) : (
          <MutationErrorAlert error={answer.data} />
        )
      ) : null}
    </section>
  );
}

/** The API's summary names objects by id; say their names where this page knows them. */
export function withNames(text: string, names: ReadonlyMap<string, string>): string {
  return text.replace(/\b[a-z]{2,4}_[A-Za-z0-9-]{6,}/g, (id) => names.get(id) ?? id);
}

function DecisionView({ decision, names }: { decision: AccessDecision; names: ReadonlyMap<string, string> }) {
  return (
    <div className={`decision ${decision.allowed ? 'allowed' : 'denied'}`} data-testid="decision" role="status">
      <p className="verdict">{decision.allowed ? 'Allowed' : 'Denied'}</p>
      <p data-testid="decision-summary">{withNames(decision.summary, names)}</p>
      {decision.evidence.length > 0 ? (
        <table className="table compact">
          <caption>Evidence: the grants that allow it</caption>
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">Scope</th>
              <th scope="col">Subject</th>
              <th scope="col">Binding</th>
            </tr>
          </thead>
          <tbody>
            {decision.evidence.map((item) => (
              <tr key={item.binding.id}>
                <th scope="row">{item.roleName}</th>
                <td>{describeScope(item.binding.scope, names)}</td>
                <td>{item.binding.subject.name}</td>
                <td>
                  <CopyId value={item.binding.id} label="binding id" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {decision.hiddenEvidenceCount > 0 ? (
        <p className="hint">
          and {decision.hiddenEvidenceCount} more {decision.hiddenEvidenceCount === 1 ? 'grant' : 'grants'} you may not read.
        </p>
      ) : null}
    </div>
  );
}
