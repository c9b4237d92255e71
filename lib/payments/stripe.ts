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
  /** Deadline per attempt, whole response included. Default 20 s (one retry: ~41 s worst case). */
  timeoutMs?: number;
}

export function createStripeClient(options: StripeClientOptions): Stripe {
  // The SDK's default node:http client times out on socket inactivity only, so a processor that trickles
  // its answer a byte at a time holds the request open for as long as it likes; the fetch client's
  // timeout covers the whole attempt, body included (tests/system/rail-faults.test.ts, "drip").
  const config: Stripe.StripeConfig = {
    maxNetworkRetries: 1,
    timeout: options.timeoutMs ?? 20_000,
    httpClient: Stripe.createFetchHttpClient(fetchWithoutContentLength),
  };
  if (options.apiUrl) {
    const url = new URL(options.apiUrl);
    config.host = url.hostname;
    config.protocol = url.protocol === 'http:' ? 'http' : 'https';
    config.port = url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
  }
  return new Stripe(options.secretKey, config);
}

// Importing the undici package (lib/checks/visibility/safe-fetch.ts does) installs its own Agent as the
// process-wide dispatcher of Node 20's built-in fetch, and that Agent refuses the explicit Content-Length the
// SDK sets ("invalid content-length header"). fetch derives the length from the body by itself.
const fetchWithoutContentLength = ((url: string, init: RequestInit = {}) => {
  const headers = new Headers(init.headers);
  headers.delete('content-length');
  return fetch(url, { ...init, headers });
}) as typeof fetch;

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
