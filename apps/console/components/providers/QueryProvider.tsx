'use client';

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { UnauthenticatedError } from '../../lib/graphql';
import { unauthenticatedRedirect } from '../../lib/session';

// One place decides what an expired or missing session means: any query or mutation that fails with
// UnauthenticatedError sends the user to /sign-in, carrying the page they asked for, so screens never
// handle it themselves and a deep link survives signing in.
export function QueryProvider({ children }: { children: ReactNode }) {
  const router = useRouter();
  const routerRef = useRef(router);
  useEffect(() => {
    routerRef.current = router;
  }, [router]);

  const [client] = useState(() => {
    const onError = (error: unknown) => {
      if (!(error instanceof UnauthenticatedError)) return;
      const target = unauthenticatedRedirect(window.location);
      if (target) routerRef.current.replace(target);
    };
    const client: QueryClient = new QueryClient({
      queryCache: new QueryCache({ onError }),
      mutationCache: new MutationCache({ onError }),
      defaultOptions: {
        queries: {
          staleTime: 5_000,
          retry: (failureCount, error) => !(error instanceof UnauthenticatedError) && failureCount < 2,
        },
        // A mutation may have been applied even if its answer was lost: never repeat it silently.
        mutations: { retry: false },
      },
    });
    return client;
  });

  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
