import Link from 'next/link';
import type { ReactNode } from 'react';
import type { Namespace } from '../../lib/namespaces';
import { StatusBadge } from './StatusBadge';

export type NamespaceSection = 'secrets' | 'configurations' | 'agents' | 'access';

const sections: { key: NamespaceSection; label: string; path: string }[] = [
  { key: 'secrets', label: 'Secrets', path: '/secrets' },
  { key: 'configurations', label: 'Configurations', path: '/configurations' },
  { key: 'agents', label: 'Agents', path: '/agents' },
  { key: 'access', label: 'Access', path: '/access' },
];

export function namespaceHref(section: NamespaceSection, namespaceId: string, extra?: Record<string, string>): string {
  const path = sections.find((s) => s.key === section)?.path ?? '/secrets';
  const params = new URLSearchParams({ namespace: namespaceId, ...extra });
  return `${path}?${params.toString()}`;
}

/** Breadcrumb, title and the tabs every page of one namespace shares, so its sections are one click apart. */
export function NamespaceHeader({
  namespace,
  section,
  title,
  children,
}: {
  namespace: Pick<Namespace, 'id' | 'name' | 'status'>;
  section: NamespaceSection;
  title: string;
  children?: ReactNode;
}) {
  return (
    <>
      <p className="breadcrumb">
        <Link href="/namespaces">Namespaces</Link> / {namespace.name}
      </p>
      <h1>
        {title} <StatusBadge status={namespace.status} />
      </h1>
      <nav aria-label={`Sections of ${namespace.name}`} className="tabs">
        {sections.map((s) => (
          <Link
            key={s.key}
            href={namespaceHref(s.key, namespace.id)}
            aria-current={s.key === section ? 'page' : undefined}
          >
            {s.label}
          </Link>
        ))}
      </nav>
      {children}
    </>
  );
}

export function MissingNamespace({ title }: { title: string }) {
  return (
    <>
      <h1>{title}</h1>
      <p role="alert" className="alert error">
        No namespace selected. Pick one on the <Link href="/namespaces">namespaces</Link> page.
      </p>
    </>
  );
}

export function UnknownNamespace({ title, namespaceId }: { title: string; namespaceId: string }) {
  return (
    <>
      <h1>{title}</h1>
      <p role="alert" className="alert error">
        Namespace <code>{namespaceId}</code> does not exist or you may not see it.{' '}
        <Link href="/namespaces">Back to namespaces</Link>
      </p>
    </>
  );
}
