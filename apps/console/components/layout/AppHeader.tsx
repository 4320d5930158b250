'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { signOut } from '../../lib/session';
import { viewerQueryOptions } from '../../lib/viewer';

export function AppHeader() {
  const pathname = usePathname();
  const router = useRouter();
  const queryClient = useQueryClient();
  const onSignInPage = pathname === '/sign-in';
  const viewer = useQuery({ ...viewerQueryOptions(), enabled: !onSignInPage });

  const signOutMutation = useMutation({
    mutationFn: signOut,
    onSuccess: () => {
      queryClient.clear();
      router.replace('/sign-in');
    },
  });

  const principal = onSignInPage ? null : viewer.data;

  return (
    <header className="app-header">
      <Link href="/namespaces" className="brand">
        OpenClaw control plane
      </Link>
      {principal ? (
        <>
          <nav aria-label="Main">
            <Link href="/namespaces" aria-current={pathname === '/namespaces' ? 'page' : undefined}>
              Namespaces
            </Link>
            <Link href="/users" aria-current={pathname === '/users' ? 'page' : undefined}>
              Users
            </Link>
            <Link href="/selfconfig/approvals" aria-current={pathname === '/selfconfig/approvals' ? 'page' : undefined}>
              Approvals
            </Link>
            <Link href="/audit" aria-current={pathname === '/audit' ? 'page' : undefined}>
              Audit log
            </Link>
          </nav>
          <div className="session">
            <span className="principal" title={principal.id}>
              {principal.name}
            </span>
            <button
              type="button"
              className="button secondary"
              onClick={() => signOutMutation.mutate()}
              disabled={signOutMutation.isPending}
            >
              Sign out
            </button>
          </div>
        </>
      ) : null}
      {signOutMutation.error ? (
        <p role="alert" className="alert error inline">
          {signOutMutation.error.message}
        </p>
      ) : null}
    </header>
  );
}
