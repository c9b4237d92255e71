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

// Importing the undici package (a check's guarded fetcher does) installs its own Agent as the
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
        // Stripe answers 409 idempotency_key_in_use while the first attempt under the key is still running.
        const inProgress = e.code === 'idempotency_key_in_use';
        if (unreachable || inProgress) {
          scope.unavailable = true;
          // Stripe may have confirmed a request whose answer we lost; a refusal it did answer is final.
          const refusedBeforeProcessing = e.type === 'StripeAuthenticationError' || e.type === 'StripePermissionError' || e.type === 'StripeRateLimitError';
          if (!refusedBeforeProcessing) scope.ambiguous = true;
        } else scope.stripeCode = typeof e.code === 'string' ? e.code : 'payment_failed';
      }
      throw error;
    }
  };
  return { paymentIntents: { create } } as unknown as Stripe;
}

/**
 * Who stands behind a shared payment token, as Stripe shows it to us (the seller): the Customer the token
 * belongs to when Stripe names one, else the card's fingerprint. Null when the token is unknown or
 * shows neither; that payer then cannot replay an Idempotency-Key (each call is paid anew). Throws when
 * Stripe cannot be reached.
 *
 * @example
 *   await sharedPaymentTokenOwner(stripe, 'spt_123')   // 'customer:cus_9f…' or 'card:Xt5EWLLDS7FJjR1c' or null
 */
export async function sharedPaymentTokenOwner(stripe: Stripe, spt: string): Promise<string | null> {
  if (!/^spt_[A-Za-z0-9]+$/.test(spt)) return null;
  try {
    const token = (await stripe.rawRequest('GET', `/v1/shared_payment/granted_tokens/${spt}`)) as unknown as {
      customer?: unknown;
      payment_method_details?: { card?: { fingerprint?: unknown } };
    };
    if (typeof token.customer === 'string' && token.customer) return `customer:${token.customer}`;
    const fingerprint = token.payment_method_details?.card?.fingerprint;
    return typeof fingerprint === 'string' && fingerprint ? `card:${fingerprint}` : null;
  } catch (error) {
    // Stripe said the token is not ours or does not exist: no payer. Stripe not answering: the caller answers 503.
    if ((error as { type?: string }).type === 'StripeInvalidRequestError') return null;
    throw error;
  }
}
