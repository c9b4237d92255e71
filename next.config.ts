import type { NextConfig } from 'next';
import { contentSecurityPolicy } from './lib/http/csp';
import { CORS_ROUTES } from './lib/http/cors';

// Every path gets the nonce-less policy; proxy.ts replaces it on pages with one carrying that
// request's script nonce.
const contentSecurityPolicyHeader = contentSecurityPolicy({ development: process.env.NODE_ENV !== 'production' });

const securityHeaders = [
  { key: 'Content-Security-Policy', value: contentSecurityPolicyHeader },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'X-Frame-Options', value: 'DENY' },
  // The purchase success page carries a Checkout session id in its URL: never send it onwards.
  { key: 'Referrer-Policy', value: 'no-referrer' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=(), payment=()' },
  { key: 'Strict-Transport-Security', value: 'max-age=31536000; includeSubDomains' },
  { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
];

const nextConfig: NextConfig = {
  // Tests build into their own folder so a running `next dev` and a test build never collide.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // Native and server-only packages must not be bundled: better-sqlite3 is a native addon.
  serverExternalPackages: ['better-sqlite3', 'ioredis'],
  poweredByHeader: false,
  // `npm test` type-checks the whole tree (tests included) with tsc; the build need not do it twice.
  typescript: { ignoreBuildErrors: true },
  async headers() {
    return [
      { source: '/:path*', headers: securityHeaders },
      // A shared report's link is public but never meant for search results.
      { source: '/r/:token*', headers: [{ key: 'X-Robots-Tag', value: 'noindex, nofollow' }] },
      // The public API answers pages on any origin (lib/http/cors.ts); nothing else does.
      ...CORS_ROUTES.map(({ source, headers }) => ({ source, headers: [...headers] })),
    ];
  },
};

export default nextConfig;
