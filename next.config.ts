import type { NextConfig } from 'next';

const development = process.env.NODE_ENV !== 'production';

// Pages load nothing from other origins (no fonts, CDNs or analytics), so the policy can be tight.
// Next's App Router inlines its bootstrap scripts, hence 'unsafe-inline' for scripts; `next dev`
// also evaluates code for fast refresh. form-action is left open on purpose: checkout forms post to
// us and we redirect the browser to Stripe Checkout, a redirect Chrome would check against it.
const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${development ? " 'unsafe-eval'" : ''}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders = [
  { key: 'Content-Security-Policy', value: contentSecurityPolicy },
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
    return [{ source: '/:path*', headers: securityHeaders }];
  },
};

export default nextConfig;
