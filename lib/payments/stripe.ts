// The Stripe client the card rail uses. mppx's stripe.charge makes one call, paymentIntents.create with
// `shared_payment_granted_token` and `confirm: true`; this wrapper classifies its failures into the request
// scope: a processor we cannot reach (connection error, 5xx, rate limit, our own bad key) marks the scope
// `unavailable` (503, no charge); a refusal (card_declined, a spent SPT, ...) keeps its Stripe code.
import Stripe from 'stripe';
import { currentScope } from './scope';

export interface StripeClientOptions {
  secretKey: string;
  /** Origin override, e.g. http://127.0.0.1:12111 for the local fake. */
  apiUrl?: string;
}

export function createStripeClient(options: StripeClientOptions): Stripe {
  const config: Stripe.StripeConfig = { maxNetworkRetries: 1, timeout: 20_000 };
  if (options.apiUrl) {
    const url = new URL(options.apiUrl);
    config.host = url.hostname;
    config.protocol = url.protocol === 'http:' ? 'http' : 'https';
    config.port = url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
  }
  return new Stripe(options.secretKey, config);
}

/** The subset of the Stripe client mppx's stripe.charge calls, with failure classification. */
export function classifyingStripeClient(stripe: Stripe): Stripe {
  const create: Stripe['paymentIntents']['create'] = async (...args: Parameters<Stripe['paymentIntents']['create']>) => {
    try {
      return await stripe.paymentIntents.create(...args);
    } catch (error) {
      const scope = currentScope();
      if (scope) {
        const e = error as { type?: string; statusCode?: number; code?: string };
        const unreachable =
          e.type === 'StripeConnectionError' ||
          e.type === 'StripeAPIError' ||
          e.type === 'StripeRateLimitError' ||
          e.type === 'StripeAuthenticationError' ||
          e.type === 'StripePermissionError' ||
          (typeof e.statusCode === 'number' && e.statusCode >= 500);
        if (unreachable) scope.unavailable = true;
        else scope.stripeCode = typeof e.code === 'string' ? e.code : 'payment_failed';
      }
      throw error;
    }
  };
  return { paymentIntents: { create } } as unknown as Stripe;
}
