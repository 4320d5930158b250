import type { Metadata } from 'next';
import { NamespacesScreen } from '../../components/namespaces/NamespacesScreen';

export const metadata: Metadata = { title: 'Namespaces' };

export default function NamespacesPage() {
  return <NamespacesScreen />;
}
