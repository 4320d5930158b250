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
  OutcomeUnknownError: 'Outcome unknown',
};

function advice(error: MutationError): string | null {
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
    </div>
  );
}
