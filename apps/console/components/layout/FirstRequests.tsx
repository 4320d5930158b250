import { firstRequestsScript } from '../../lib/first-requests';
import { GRAPHQL_HEADERS } from '../../lib/graphql';
import { PAGE_REQUESTS } from '../../lib/page-requests';

/**
 * A server component: the page's HTML starts the page's first requests (lib/page-requests.ts) from
 * an inline script, allowed by its hash in the page's Content-Security-Policy
 * (apps/api/src/http/security-headers.ts), before the page's JavaScript has loaded. Rendered
 * outside the page's Suspense boundary, so that it is in the HTML.
 */
export function FirstRequests({ page }: { page: keyof typeof PAGE_REQUESTS }) {
  return <script dangerouslySetInnerHTML={{ __html: firstRequestsScript(PAGE_REQUESTS[page], GRAPHQL_HEADERS) }} />;
}
