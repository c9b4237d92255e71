import { defineConfig } from 'vitest/config';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  resolve: { alias: { '@': path.dirname(fileURLToPath(import.meta.url)) } },
  test: {
    include: ['tests/**/*.test.ts', 'lib/**/*.test.ts'],
    // The system suite (load, faults, fuzzing) runs on its own: `npm run test:system`. The bench's x402
    // reference app installs its own node_modules under tests/, whose packages ship test files of their own.
    exclude: ['tests/system/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['tests/global-setup.ts'],
  },
});
