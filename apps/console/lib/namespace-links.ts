// The sections every page of one namespace shares, and the address of one of them (the namespace
// id, and an object's, travel as query parameters: a static export has no dynamic segments).

export type NamespaceSection = 'secrets' | 'configurations' | 'agents' | 'references' | 'access' | 'selfconfig';

export const NAMESPACE_SECTIONS: { key: NamespaceSection; label: string; path: string }[] = [
  { key: 'secrets', label: 'Secrets', path: '/secrets' },
  { key: 'configurations', label: 'Configurations', path: '/configurations' },
  { key: 'agents', label: 'Agents', path: '/agents' },
  { key: 'references', label: 'References', path: '/references' },
  { key: 'access', label: 'Access', path: '/access' },
  { key: 'selfconfig', label: 'SelfConfig', path: '/selfconfig' },
];

export function namespaceHref(section: NamespaceSection, namespaceId: string, extra?: Record<string, string>): string {
  const path = NAMESPACE_SECTIONS.find((s) => s.key === section)?.path ?? '/secrets';
  const params = new URLSearchParams({ namespace: namespaceId, ...extra });
  return `${path}?${params.toString()}`;
}
