import type { MutationError } from '../../lib/errors';
import { ConsumersList } from './ConsumersList';

// Each typed error gets its own title and advice, so "not allowed", "not ready yet" and "we do not
// know whether it happened" never look alike.
const titles: Record<MutationError['__typename'], string> = {
  ValidationError: 'Invalid input',
  NotFoundError: 'Not found',
  ForbiddenError: 'Not allowed',
  ConflictError: 'Conflict',
  NamespaceNotReadyError: 'Namespace not ready',
  SecretInUseError: 'Secret in use',
  ConfigurationInUseError: 'Configuration in use',
  OutcomeUnknownError: 'Outcome unknown',
};

// Some codes within one error type need their own advice (a stale generation is not a name clash).
const adviceByCode: Record<string, string> = {
  STALE_GENERATION:
    'Someone saved a newer generation since you opened this. Load the latest generation, reapply your change and save again.',
  NAME_TAKEN: 'Choose another name: this one is taken.',
  ROLLOUT_APPROVER_IS_ROTATOR: 'Ask another administrator of this secret to approve it.',
  ROLLOUT_STATE_CONFLICT: 'The rollout moved on since this page last read it; its current state is shown below.',
};

function advice(error: MutationError): string | null {
  const byCode = adviceByCode[error.code];
  if (byCode) return byCode;
  switch (error.__typename) {
    case 'ForbiddenError':
      return 'Your principal lacks the grant this needs. Ask an installation administrator.';
    case 'NamespaceNotReadyError':
      return `The namespace is ${error.namespaceStatus}. Try again once it is READY.`;
    case 'OutcomeUnknownError':
      return 'The server could not confirm whether the change was made. Reload the list and check before retrying.';
    case 'ConflictError':
      return 'Someone changed this at the same time. Reload and try again.';
    case 'SecretInUseError':
      return 'Remove these references first, then delete the secret.';
    case 'ConfigurationInUseError':
      return 'Point these agents at another configuration, or delete them, then delete the configuration.';
    default:
      return null;
  }
}

export function MutationErrorAlert({ error }: { error: MutationError }) {
  const hint = advice(error);
  return (
    <div role="alert" className={`alert error error-${error.code.toLowerCase()}`} data-error-code={error.code}>
      <p>
        <strong>{titles[error.__typename]}</strong>
        {error.__typename === 'ValidationError' && error.field ? (
          <>
            {' '}
            (field <code>{error.field}</code>)
          </>
        ) : null}
        {': '}
        {error.message}
      </p>
      {hint ? <p className="hint">{hint}</p> : null}
      {error.__typename === 'SecretInUseError' ? <ConsumersList consumers={error.consumers} /> : null}
      {error.__typename === 'ConfigurationInUseError' ? (
        <ConsumersList consumers={{ ...error.agents, items: error.agents.items.map((agent) => ({ kind: 'agent', ...agent })) }} />
      ) : null}
    </div>
  );
}
