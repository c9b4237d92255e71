import { defineConfig } from 'vitest/config';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The suites whose guards must hold wherever the browser runs: each runs a second time with TEST_RENDERER=remote,
 * rendering through a renderer server over a real WebSocket (tests/support/chromium-suite.ts) instead of this
 * process's Chromium. Interception through the SSRF guard, the outbound gate, the request and size caps, the
 * WebSocket and worker walls and the hostile page's 0 connections to private addresses are proven both ways.
 */
const RENDERING_SUITES = [
  'tests/visibility/render.test.ts',
  'tests/visibility/render-guard.test.ts',
  'tests/visibility/request-log-render.test.ts',
  'tests/visibility/webmcp.test.ts',
  'tests/outbound/outbound.test.ts',
];

export default defineConfig({
  resolve: { alias: { '@': path.dirname(fileURLToPath(import.meta.url)) } },
  test: {
    // The system suite (load, faults, fuzzing) runs on its own: `npm run test:system`. The bench's x402
    // reference app installs its own node_modules under tests/, whose packages ship test files of their own.
    exclude: ['tests/system/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['tests/global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['tests/**/*.test.ts', 'lib/**/*.test.ts'] } },
      { extends: true, test: { name: 'remote-renderer', include: RENDERING_SUITES, env: { TEST_RENDERER: 'remote' } } },
    ],
  },
});
