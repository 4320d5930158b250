import type { Metadata } from 'next';
import { Suspense } from 'react';
import { FirstRequests } from '../../components/layout/FirstRequests';
import { PageSkeleton } from '../../components/ui/PageSkeleton';
import { AuditScreen } from '../../components/audit/AuditScreen';

export const metadata: Metadata = { title: 'Audit log' };

// useSearchParams needs a Suspense boundary in a static export (see app/secrets/page.tsx).
export default function AuditPage() {
  return (
    <>
      <FirstRequests page="audit" />
      <Suspense fallback={<PageSkeleton title="Audit log" />}>
        <AuditScreen />
      </Suspense>
    </>
  );
}
