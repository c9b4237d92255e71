// Tests that pay on the local rails (scripts/rails: anvil, the x402 facilitator, the Stripe stand-in): the
// service's runtime configured for every rail, with the rails the service itself builds from that configuration
// (railsFor), and the official Stripe SDK pointed at the stand-in, as a card payer's platform would use it.
import Stripe from 'stripe';
import { railsFor } from '@/lib/runtime';
import type { Store } from '@/lib/store';
import type { Rails } from '../../scripts/rails/start';
import { installTestRuntime, type TestRuntime } from './runtime';

/**
 * The test runtime with `rails.env` (then `env` on top) and the production rails built from it.
 * @example rt = installRailsRuntime(rails, { APP_URL: server.url, RATE_LIMIT_PER_IP: '100000' })
 */
export function installRailsRuntime(rails: Pick<Rails, 'env'>, env: Record<string, string> = {}, options: { store?: Store } = {}): TestRuntime {
  const rt = installTestRuntime({ ...rails.env, ...env }, options);
  rt.rails = railsFor(rt.config, rt.store);
  return rt;
}

/**
 * The Stripe SDK on the rails' Stripe stand-in: how a test makes the shared payment token a card payer sends.
 * @example const sdk = stripeSdk(rails); const spt = await sptFromTestHelper(sdk, …)
 */
export function stripeSdk(rails: Pick<Rails, 'stripe'>): Stripe {
  return new Stripe(rails.stripe.secretKey, { host: rails.stripe.host, port: rails.stripe.port, protocol: 'http' });
}
