import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { AppHeader } from '../components/layout/AppHeader';
import { QueryProvider } from '../components/providers/QueryProvider';
import '../styles/globals.css';

export const metadata: Metadata = {
  title: { default: 'OpenClaw control plane', template: '%s · OpenClaw control plane' },
  description: 'Admin console for OpenClaw agents on Kubernetes.',
  icons: { icon: '/favicon.svg' },
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <QueryProvider>
          <a className="skip-link" href="#main">
            Skip to content
          </a>
          <AppHeader />
          <main id="main">{children}</main>
        </QueryProvider>
      </body>
    </html>
  );
}
