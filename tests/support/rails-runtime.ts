// Tests that pay on the local rails (scripts/rails: anvil, the x402 facilitator, the Stripe stand-in): the
// service's runtime configured for every rail, with the rails the service itself builds from that configuration
// (railsFor), and the official Stripe SDK pointed at the stand-in, as a card payer's platform would use it.
import Stripe from 'stripe';
import { railsFor } from '@/lib/runtime';
import type { Store } from '@/lib/store';
import { startRails, type Rails } from '../../scripts/rails/start';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { serveWebHandler, type WebServer } from './web-server';
import { installTestRuntime, type TestRuntime } from './runtime';

/**
 * The test runtime with `rails.env` (then `env` on top) and the production rails built from it.
 * @example rt = installRailsRuntime(rails, { APP_URL: server.url, RATE_LIMIT_PER_IP: '100000' })
 */
export function installRailsRuntime(rails: Pick<Rails, 'env'>, env: Record<string, string> = {}, options: { store?: Store } = {}): TestRuntime {
  const rt = installTestRuntime({ ...rails.env, ...env }, options);
  rt.rails = railsFor(rt.config, rt.store, (event) => rt.log(event));
  return rt;
}

/**
 * The Stripe SDK on the rails' Stripe stand-in: how a test makes the shared payment token a card payer sends.
 * @example const sdk = stripeSdk(rails); const spt = await sptFromTestHelper(sdk, …)
 */
export function stripeSdk(rails: Pick<Rails, 'stripe'>): Stripe {
  return new Stripe(rails.stripe.secretKey, { host: rails.stripe.host, port: rails.stripe.port, protocol: 'http' });
}

/** Everything a test of a paid check against a fixture site needs: the rails, the site, the service and its runtime. */
export interface PaidSite {
  rails: Rails;
  site: FixtureSite;
  server: WebServer;
  rt: TestRuntime;
  sdk: Stripe;
  /** Stops all of it, in the reverse order, and forgets the host map. */
  close(): Promise<void>;
}

/**
 * Starts the local rails, a fixture site under `hosts` (CHECK_HOST_MAP), the service's `handle` on a loopback port,
 * and the rails runtime with APP_URL that port's origin (so realm and resource.url match what clients call).
 * @example const paid = await startPaidSite({ routes: { '/': page }, hosts: ['site.test'], handle: (r) => POST(r) }); afterAll(() => paid.close());
 */
export async function startPaidSite({
  routes,
  hosts,
  handle,
  env = {},
}: {
  routes: Parameters<typeof startFixtureSite>[0];
  hosts: string[];
  handle: (request: Request) => Response | Promise<Response>;
  env?: Record<string, string>;
}): Promise<PaidSite> {
  const rails = await startRails();
  const site = await startFixtureSite(routes);
  process.env.CHECK_HOST_MAP = site.hostMap(hosts);
  const server = await serveWebHandler(handle);
  const rt = installRailsRuntime(rails, { APP_URL: server.url, ...env });
  return {
    rails,
    site,
    server,
    rt,
    sdk: stripeSdk(rails),
    async close() {
      await server.close();
      await rt.dispose();
      delete process.env.CHECK_HOST_MAP;
      await site.close();
      await rails.stop();
    },
  };
}
