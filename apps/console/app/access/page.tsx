import type { Metadata } from 'next';
import { Suspense } from 'react';
import { PageSkeleton } from '../../components/ui/PageSkeleton';
import { AccessScreen } from '../../components/access/AccessScreen';

export const metadata: Metadata = { title: 'Access' };

// useSearchParams needs a Suspense boundary in a static export (see app/secrets/page.tsx).
export default function AccessPage() {
  return (
    <Suspense fallback={<PageSkeleton title="Access" />}>
      <AccessScreen />
    </Suspense>
  );
}
