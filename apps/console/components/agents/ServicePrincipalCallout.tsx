import Link from 'next/link';
import { namespaceHref } from '../../lib/namespace-links';
import { CopyId } from '../ui/CopyId';

/** The agent's own identity: what an administrator must grant `operate` on the secrets it consumes.
 * Each link opens the grant form filled with the least privilege: secret-operator on that one secret. */
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
      <CopyId value={servicePrincipalId} label="service principal id" codeClassName="principal-id" />
      <p>
        Grant it <strong>operate</strong> on the secrets it consumes
        {consumedSecrets.length > 0 ? (
          <>
            :{' '}
            {consumedSecrets.map((secret, i) => (
              <span key={secret.id}>
                {i > 0 ? ', ' : null}
                <Link
                  href={namespaceHref('access', namespaceId, {
                    subject: servicePrincipalId,
                    role: 'rol_secret-operator',
                    secret: secret.id,
                  })}
                  aria-label={`Grant operate on ${secret.name} to this service principal`}
                >
                  <code>{secret.name}</code>
                </Link>
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
