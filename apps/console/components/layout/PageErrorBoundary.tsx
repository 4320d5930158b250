'use client';

import { usePathname } from 'next/navigation';
import { Component, useState, type ReactNode } from 'react';

// A page that could not load (its code did not arrive: the server is down or restarting, the
// network dropped) fails here, inside the frame: the header and navigation stay. Without it Next
// showed its own frameless "This page couldn't load". A boundary of ours in the layout rather than
// app/error.tsx: Next loads that as one more script on every route (0.4 kB more each, measured).
// "Try again" asks the server first and loads the page again only once it answers (a code chunk
// that failed is not fetched again by the page), so a retry while it is still down keeps the
// frame. Another page (a new path) clears it. RouteFocus moves focus to the heading.

type Props = { children: ReactNode; path: string };
type State = { error: unknown; path: string };

class Boundary extends Component<Props, State> {
  override state: State = { error: null, path: this.props.path };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.path !== state.path ? { error: null, path: props.path } : null;
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    // Next's own signals (redirect, not found: they carry a digest) are not failures: they go on up.
    if ((error as { digest?: string }).digest) throw error;
    return <PageError />;
  }
}

function PageError() {
  const [still, setStill] = useState(false);
  return (
    <div role="alert" className="alert error" data-testid="page-error">
      <h1>This page could not load</h1>
      <p>{still ? 'Still no answer from the server.' : 'The server did not answer.'} Nothing you had done is lost.</p>
      <button
        type="button"
        className="button primary"
        onClick={() => fetch('/healthz', { cache: 'no-store' }).then((r) => (r.ok ? location.reload() : setStill(true)), () => setStill(true))}
      >
        Try again
      </button>
    </div>
  );
}

export function PageErrorBoundary({ children }: { children: ReactNode }) {
  return <Boundary path={usePathname()}>{children}</Boundary>;
}
