import type { Metadata } from 'next';
import { Suspense } from 'react';
import { FirstRequests } from '../../components/layout/FirstRequests';
import { PageSkeleton } from '../../components/ui/PageSkeleton';
import { UsersScreen } from '../../components/users/UsersScreen';

export const metadata: Metadata = { title: 'Users' };

// useSearchParams needs a Suspense boundary in a static export (see app/secrets/page.tsx).
export default function UsersPage() {
  return (
    <>
      <FirstRequests page="users" />
      <Suspense fallback={<PageSkeleton title="Users" />}>
        <UsersScreen />
      </Suspense>
    </>
  );
}
