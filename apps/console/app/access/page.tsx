import type { Metadata } from 'next';
import { Suspense } from 'react';
import { AccessScreen } from '../../components/access/AccessScreen';

export const metadata: Metadata = { title: 'Access' };

// useSearchParams needs a Suspense boundary in a static export (see app/secrets/page.tsx).
export default function AccessPage() {
  return (
    <Suspense fallback={<p role="status">Loading…</p>}>
      <AccessScreen />
    </Suspense>
  );
}
