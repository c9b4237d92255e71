import { defineConfig } from '@playwright/test';

// Browser tests: Debian's Chromium against `next start` on a test build, with the local Stripe fake
// (tests/browser/global-setup.ts starts both and tears them down).
export default defineConfig({
  testDir: 'tests/browser',
  testMatch: '**/*.spec.ts',
  globalSetup: './tests/browser/global-setup.ts',
  outputDir: 'test-results/playwright',
  // One worker: the tests share one server, and two cores build and serve it.
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
