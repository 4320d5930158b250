import Link from 'next/link';
import { namespaceHref } from '../namespaces/NamespaceHeader';

/** The agent's own identity: what an administrator must grant `operate` on the secrets it consumes. */
export function ServicePrincipalCallout({
  namespaceId,
  servicePrincipalId,
  consumedSecrets,
}: {
  namespaceId: string;
  servicePrincipalId: string;
  consumedSecrets: { id: string; name: string }[];
}) {
  return (
    <div className="principal-callout" data-testid="service-principal">
      <strong>Service principal</strong>
      <code className="principal-id">{servicePrincipalId}</code>
      <p>
        Grant it <strong>operate</strong> on the secrets it consumes
        {consumedSecrets.length > 0 ? (
          <>
            : {consumedSecrets.map((secret, i) => (
              <span key={secret.id}>
                {i > 0 ? ', ' : null}
                <code>{secret.name}</code>
              </span>
            ))}
          </>
        ) : null}
        .{' '}
        <Link href={namespaceHref('access', namespaceId, { subject: servicePrincipalId })}>
          Grant access to this service principal
        </Link>
      </p>
    </div>
  );
}
