import type { Metadata, Viewport } from 'next';
import { Suspense, type ReactNode } from 'react';
import { AppHeader } from '../components/layout/AppHeader';
import { PageErrorBoundary } from '../components/layout/PageErrorBoundary';
import { RouteFocus } from '../components/layout/RouteFocus';
import { ServiceWorker } from '../components/layout/ServiceWorker';
import { Toaster } from '../components/feedback/Toaster';
import { QueryProvider } from '../components/providers/QueryProvider';
import '../styles/globals.css';

export const metadata: Metadata = {
  title: { default: 'OpenClaw control plane', template: '%s · OpenClaw control plane' },
  description: 'Admin console for OpenClaw agents on Kubernetes.',
  icons: { icon: '/favicon.svg' },
};

// Light and dark follow the system (prefers-color-scheme); form controls and scrollbars follow too.
export const viewport: Viewport = { width: 'device-width', initialScale: 1, colorScheme: 'light dark' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <QueryProvider>
          <Toaster>
            <a className="skip-link" href="#main">
              Skip to content
            </a>
            <AppHeader />
            {/* useSearchParams needs a Suspense boundary in a static export. */}
            <Suspense fallback={null}>
              <RouteFocus />
            </Suspense>
            <ServiceWorker />
            <main id="main">
              <PageErrorBoundary>{children}</PageErrorBoundary>
            </main>
          </Toaster>
        </QueryProvider>
      </body>
    </html>
  );
}
