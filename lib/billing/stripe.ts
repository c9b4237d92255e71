import type Stripe from 'stripe';
import { createStripeClient } from '@/lib/payments/stripe';
import { ProblemError } from '@/lib/problems';
import type { Config } from '@/lib/config';

export type BillingConfig = Pick<Config, 'APP_URL' | 'STRIPE_SECRET_KEY' | 'STRIPE_API_URL' | 'STRIPE_WEBHOOK_SECRET' | 'CREDITS_KEY_SECRET'>;

const cache = new Map<string, Stripe>();

/** The Stripe client for purchases; 503 problem when billing is not configured, so no page ever 500s. */
export function billingStripe(config: BillingConfig): Stripe {
  if (!config.STRIPE_SECRET_KEY) {
    throw new ProblemError('billing-unavailable', 'Card purchases are not configured on this server (STRIPE_SECRET_KEY is not set).');
  }
  const cacheKey = `${config.STRIPE_SECRET_KEY}|${config.STRIPE_API_URL ?? ''}`;
  let client = cache.get(cacheKey);
  if (!client) {
    client = createStripeClient({ secretKey: config.STRIPE_SECRET_KEY, apiUrl: config.STRIPE_API_URL });
    cache.set(cacheKey, client);
  }
  return client;
}

/** A Stripe API failure seen by a buyer: 503, and no Stripe message (it can name our account's internals). */
export function stripeUnavailable(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  return new ProblemError('billing-unavailable', 'The card processor did not answer; nothing was charged. Try again in a minute.', {}, 30);
}
