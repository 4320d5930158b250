import type { Metadata } from 'next';
import { FirstRequests } from '../../components/layout/FirstRequests';
import { NamespacesScreen } from '../../components/namespaces/NamespacesScreen';

export const metadata: Metadata = { title: 'Namespaces' };

export default function NamespacesPage() {
  return (
    <>
      <FirstRequests page="namespaces" />
      <NamespacesScreen />
    </>
  );
}
