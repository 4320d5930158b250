import type { NextConfig } from 'next';

// The console is a static export served by the API process itself (apps/api serves out/ next to
// /graphql and /auth/session). One origin and one process: the HttpOnly SameSite=Strict session
// cookie needs no cross-site settings, CSRF stays the simple same-origin case, and there is no
// Next server to deploy, secure or keep in step with the API.
const nextConfig: NextConfig = {
  output: 'export',
  images: { unoptimized: true },
  reactStrictMode: true,
  poweredByHeader: false,
};

export default nextConfig;
