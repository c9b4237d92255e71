import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync, type ChildProcess } from 'node:child_process';
import type { FullConfig } from '@playwright/test';
import { freePort, onFreePort, PORT_TAKEN } from '../support/ports';
import { spawnNextStart, TEST_SECRET, untilHealthy } from '../support/server';
import { startStripeFake } from '../../scripts/rails/stripe-fake';
import { startFixtureSite } from '../visibility/fixture-site';
import { exampleRoutes } from '../site/example-site';

// Builds the app into its own folder (other suites rebuild .next-test while they run, which would pull the
// pages from under a running browser test), starts the local Stripe fake (card rail + purchases) and
// `next start` wired to it, and hands their addresses to the tests through the environment. The site
// checks in the browser reach a local fixture shop: production refuses CHECK_HOST_MAP, so
// tests/support/fake-internet.mjs, preloaded into the server, stands in for DNS and the network (the
// fixture's names resolve to a public address, their sockets reach local ports). FIXTURE_DOWN_HOST goes
// to a port nobody listens on, so its check fails with 422 and charges nothing.

export const FIXTURE_HOST = 'shop.pac-fixture.net';
export const FIXTURE_DOWN_HOST = 'down.pac-fixture.net';
const PRELOAD = path.resolve(__dirname, '../support/fake-internet.mjs');

const ROOT = path.resolve(__dirname, '../..');
// Under test-results/ (ignored by ESLint) and a dot-folder (ignored by tsc's wildcards).
const DIST_DIR = 'test-results/.next-browser';
const NEXT_BIN = path.join(ROOT, 'node_modules/next/dist/bin/next');

export default async function globalSetup(_config: FullConfig) {
  const buildEnv = { ...process.env, NEXT_DIST_DIR: DIST_DIR, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' as const };
  if (process.env.PW_REUSE_BUILD !== '1' || !fs.existsSync(path.join(ROOT, DIST_DIR, 'BUILD_ID'))) {
    const build = spawnSync(process.execPath, [NEXT_BIN, 'build'], { cwd: ROOT, env: buildEnv, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
  }

  const webhookSecret = `whsec_pw_${crypto.randomBytes(16).toString('hex')}`;
  const stripe = await startStripeFake({ checkout: { webhookSecret } });
  const shop = await startFixtureSite(exampleRoutes());
  // A port that was free a moment ago and is closed again: connections to it are refused.
  const closedPort = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-browser-'));
  const envFor = (url: string): NodeJS.ProcessEnv => ({
    ...buildEnv,
    DATA_DIR: dataDir,
    CREDITS_KEY_SECRET: TEST_SECRET,
    APP_URL: url,
    LOG_LEVEL: 'silent',
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_API_URL: stripe.apiUrl,
    STRIPE_WEBHOOK_SECRET: webhookSecret,
    NODE_OPTIONS: `--import ${PRELOAD}`,
    PAC_FAKE_INTERNET: JSON.stringify({ [FIXTURE_HOST]: shop.port, [FIXTURE_DOWN_HOST]: closedPort }),
    // Every browser signs in and buys from one address, many times a minute; the limits themselves are proven by
    // the API tests (tests/api/session.test.ts, tests/billing/checkout.test.ts), not by the order these run in.
    RATE_LIMIT_SESSION_PER_IP: '1000',
    RATE_LIMIT_CHECKOUT_PER_IP: '1000',
  });
  let child: ChildProcess | undefined;
  const stop = async () => {
    const c = child;
    if (c && c.exitCode === null && c.signalCode === null) {
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGTERM');
      });
    }
    await stripe.stop();
    await shop.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  const url = await onFreePort(async (port) => {
    const candidate = `http://127.0.0.1:${port}`;
    const started = await spawnNextStart(port, envFor(candidate));
    if (started === PORT_TAKEN) return PORT_TAKEN;
    child = started.child;
    await untilHealthy(started.child, candidate, started.output);
    return candidate;
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });

  stripe.checkout.setWebhookUrl(`${url}/api/billing/webhook`);
  process.env.PW_BASE_URL = url;
  process.env.PW_STRIPE_URL = stripe.apiUrl;
  process.env.PW_STRIPE_KEY = stripe.secretKey;
  process.env.PW_FIXTURE_HOST = FIXTURE_HOST;
  process.env.PW_FIXTURE_DOWN_HOST = FIXTURE_DOWN_HOST;
  return stop;
}
