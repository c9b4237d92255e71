import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Tests build into their own folder so a running `next dev` and a test build never collide.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // Native and server-only packages must not be bundled: better-sqlite3 is a native addon.
  serverExternalPackages: ['better-sqlite3', 'ioredis'],
  poweredByHeader: false,
  // `npm test` type-checks the whole tree (tests included) with tsc; the build need not do it twice.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
