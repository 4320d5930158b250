'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { signOut } from '../../lib/session';
import { viewerQueryOptions, type Principal } from '../../lib/viewer';
import { BusyButton } from '../ui/Busy';

// The command palette is a chunk of its own, loaded when first opened (the first-load budgets).
const CommandPalette = lazy(() => import('./CommandPalette'));

const MAIN_LINKS = [
  { href: '/namespaces', label: 'Namespaces' },
  { href: '/users', label: 'Users' },
  { href: '/selfconfig/approvals', label: 'Approvals' },
  { href: '/audit', label: 'Audit log' },
] as const;

export function AppHeader() {
  const pathname = usePathname();
  const onSignInPage = pathname === '/sign-in';
  const viewer = useQuery({ ...viewerQueryOptions(), enabled: !onSignInPage });
  const principal = onSignInPage ? null : viewer.data;
  // The navigation's links are the same for everyone: they are there from the first paint (the
  // static page, before anyone is asked), and while who is signed in cannot be asked (the server
  // unreachable, a page from the service worker's cache, when the header also says so). Only an
  // answer that nobody is signed in, and the sign-in page, take them away.
  const showNavigation = !onSignInPage && viewer.data !== null;
  const unreachable = !onSignInPage && !principal && viewer.isError;

  return (
    <header className="app-header">
      <Link href="/namespaces" className="brand">
        OpenClaw control plane
      </Link>
      {showNavigation ? (
        <nav aria-label="Main">
          {MAIN_LINKS.map((link) => (
            <Link key={link.href} href={link.href} aria-current={pathname === link.href ? 'page' : undefined}>
              {link.label}
            </Link>
          ))}
        </nav>
      ) : null}
      {unreachable ? (
        <p className="session principal" data-testid="viewer-unreachable">
          Not connected
        </p>
      ) : null}
      {principal ? (
        <>
          <PaletteLauncher />
          <Session principal={principal} />
        </>
      ) : null}
    </header>
  );
}

/**
 * Ctrl+K (⌘K) or the Search button opens the palette; closing it without going anywhere returns
 * focus to what had it.
 */
function PaletteLauncher() {
  const [paletteOpen, setPaletteOpen] = useState(false);
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        opener.current ??= document.activeElement instanceof HTMLElement ? document.activeElement : null;
        setPaletteOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  function closePalette(navigated: boolean) {
    setPaletteOpen(false);
    const back = opener.current;
    opener.current = null;
    if (!navigated && back?.isConnected) setTimeout(() => back.focus(), 0);
  }
  return (
    <>
      <button
        type="button"
        className="button secondary palette-open"
        aria-keyshortcuts="Control+K Meta+K"
        aria-haspopup="dialog"
        onClick={(event) => {
          opener.current = event.currentTarget;
          setPaletteOpen(true);
        }}
      >
        Search<kbd aria-hidden="true">Ctrl K</kbd>
      </button>
      {paletteOpen ? (
        <Suspense fallback={null}>
          <CommandPalette onClose={closePalette} />
        </Suspense>
      ) : null}
    </>
  );
}

/** Who is signed in, and Sign out (the cache cleared, then the sign-in page). */
function Session({ principal }: { principal: Principal }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const signOutMutation = useMutation({
    mutationFn: signOut,
    onSuccess: () => {
      queryClient.clear();
      router.replace('/sign-in');
    },
  });
  return (
    <>
      <div className="session">
        <span className="principal" title={principal.id}>
          {principal.name}
        </span>
        <BusyButton type="button" className="button secondary" onClick={() => signOutMutation.mutate()} busy={signOutMutation.isPending}>
          Sign out
        </BusyButton>
      </div>
      {signOutMutation.error ? (
        <p role="alert" className="alert error inline">
          {signOutMutation.error.message}
        </p>
      ) : null}
    </>
  );
}
