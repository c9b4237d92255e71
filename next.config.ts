import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Native and server-only packages must not be bundled: better-sqlite3 is a native addon.
  serverExternalPackages: ['better-sqlite3', 'ioredis'],
  poweredByHeader: false,
};

export default nextConfig;
