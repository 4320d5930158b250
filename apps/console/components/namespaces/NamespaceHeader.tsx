'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useId, type FormEvent, type ReactNode } from 'react';
import { NAMESPACE_SECTIONS, namespaceHref, type NamespaceSection } from '../../lib/namespace-links';
import { namespacesQueryOptions, type Namespace } from '../../lib/namespaces';
import { Breadcrumbs, type Crumb } from '../layout/Breadcrumbs';
import { StatusBadge } from './StatusBadge';

/**
 * Breadcrumbs down to the object shown, the title, a namespace switcher and the tabs every page of
 * one namespace shares, so its sections are one click apart. `title` renders at once, before the
 * namespace has loaded, so the frame stays put while the content loads.
 */
export function NamespaceHeader({
  namespace,
  namespaceId,
  section,
  title,
  trail = [],
  children,
}: {
  namespace: Pick<Namespace, 'id' | 'name' | 'status'> | null;
  namespaceId: string;
  section: NamespaceSection;
  title: string;
  /** Crumbs below the section, e.g. the configuration shown. */
  trail?: Crumb[];
  children?: ReactNode;
}) {
  const sectionLabel = NAMESPACE_SECTIONS.find((s) => s.key === section)?.label ?? section;
  const crumbs: Crumb[] = [
    { label: 'Namespaces', href: '/namespaces' },
    { label: namespace?.name ?? namespaceId, href: namespaceHref('secrets', namespaceId) },
    { label: sectionLabel, href: trail.length > 0 ? namespaceHref(section, namespaceId) : undefined },
    ...trail,
  ];
  return (
    <>
      <div className="page-top">
        <Breadcrumbs crumbs={crumbs} />
        <NamespaceSwitcher namespaceId={namespaceId} section={section} />
      </div>
      <h1>
        {title} {namespace ? <StatusBadge status={namespace.status} /> : null}
      </h1>
      <nav aria-label={`Sections of ${namespace?.name ?? 'this namespace'}`} className="tabs">
        {NAMESPACE_SECTIONS.map((s) => (
          <Link key={s.key} href={namespaceHref(s.key, namespaceId)} aria-current={s.key === section && trail.length === 0 ? 'page' : undefined}>
            {s.label}
          </Link>
        ))}
      </nav>
      {namespace?.status === 'LOST' ? (
        <p className="alert error" data-testid="namespace-lost">
          <strong>Kubernetes namespace lost.</strong> It was deleted outside the product, with the secret values stored in it: secrets
          cannot be delivered and gateways do not run. An administrator can re-provision it on the{' '}
          <Link href="/namespaces">namespaces</Link> page.
        </p>
      ) : null}
      {children}
    </>
  );
}

/** Jump to the same section of another namespace. A select plus a button: arrowing through the
 * options must not navigate away on every key. */
function NamespaceSwitcher({ namespaceId, section }: { namespaceId: string; section: NamespaceSection }) {
  const id = useId();
  const router = useRouter();
  const namespaces = useQuery(namespacesQueryOptions());
  const items = namespaces.data?.items ?? [];
  if (items.length < 2) return null;
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const target = String(new FormData(event.currentTarget).get('namespace') ?? '');
    if (target && target !== namespaceId) router.push(namespaceHref(section, target));
  }
  return (
    <form method="post" className="switcher" onSubmit={onSubmit}>
      <label htmlFor={id}>Namespace</label>
      <select id={id} name="namespace" defaultValue={namespaceId} key={namespaceId}>
        {items.map((ns) => (
          <option key={ns.id} value={ns.id}>
            {ns.name}
          </option>
        ))}
      </select>
      <button type="submit" className="button secondary">
        Switch
      </button>
    </form>
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

export function UnknownNamespace({ namespaceId }: { namespaceId: string }) {
  return (
    <p role="alert" className="alert error">
      Namespace <code>{namespaceId}</code> does not exist or you may not see it.{' '}
      <Link href="/namespaces">Back to namespaces</Link>
    </p>
  );
}
