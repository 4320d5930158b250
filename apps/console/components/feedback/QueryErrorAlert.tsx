import { UnauthenticatedError } from '../../lib/graphql';

export function QueryErrorAlert({ error, what }: { error: Error; what: string }) {
  if (error instanceof UnauthenticatedError) {
    // The query provider is already redirecting to /sign-in.
    return <p role="status">Your session has ended. Redirecting to sign-in…</p>;
  }
  return (
    <p role="alert" className="alert error">
      <strong>Could not load {what}:</strong> {error.message}
    </p>
  );
}
