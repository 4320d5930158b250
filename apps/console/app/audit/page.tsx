import type { Metadata } from 'next';
import { Suspense } from 'react';
import { AuditScreen } from '../../components/audit/AuditScreen';

export const metadata: Metadata = { title: 'Audit log' };

// useSearchParams needs a Suspense boundary in a static export (see app/secrets/page.tsx).
export default function AuditPage() {
  return (
    <Suspense fallback={<h1>Audit log</h1>}>
      <AuditScreen />
    </Suspense>
  );
}
