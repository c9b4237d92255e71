// The 402: both MPP challenges (WWW-Authenticate: Payment, card + evm) and x402 v2's PAYMENT-REQUIRED, as
// mppx builds them, with a problem+json body of ours. The terms never depend on the request body, and every
// call issues a challenge no other request gets (see uniqueExpiry in rails.ts).
import { problem, type Problem } from '../http/problem';
import type { PaymentRails } from './rails';

export interface PaymentChallenge {
  status: 402;
  /** WWW-Authenticate (both challenges), PAYMENT-REQUIRED, Content-Type, Cache-Control. */
  headers: Headers;
  problem: Problem;
  toResponse(): Response;
}

export const DEFAULT_CHALLENGE_DETAIL =
  'Pay 1.00 USD per request: by card (MPP method stripe), in USDC on Base (MPP method evm, or x402 v2 with ' +
  'PAYMENT-SIGNATURE), or send a prepaid credits key as Authorization: Bearer.';

/**
 * Builds the 402 for `resourceUrl` (default: APP_URL + the request's path). Only the method of `request` is
 * used: headers and body are ignored, so the terms are identical for every request to the resource.
 */
export async function challenge(
  rails: PaymentRails,
  request: { method?: string; url?: string },
  resourceUrl?: string,
  body: Problem = problem('payment-required', DEFAULT_CHALLENGE_DETAIL),
): Promise<PaymentChallenge> {
  const url = resourceUrl ?? rails.resourceUrl(new URL(request.url ?? '/', rails.appUrl).pathname);
  const result = await rails.challengeHandler(new Request(url, { method: request.method ?? 'POST' }));
  if (result.status !== 402) throw new Error('payments: a request without credential was not challenged');
  // mppx's merged 402 carries exactly WWW-Authenticate, PAYMENT-REQUIRED, Cache-Control and Content-Type.
  const headers = result.challenge.headers;
  headers.set('Content-Type', 'application/problem+json');
  headers.set('Cache-Control', 'no-store');
  const status = 402 as const;
  const payload = { ...body, status };
  return {
    status,
    headers,
    problem: payload,
    toResponse: () => new Response(JSON.stringify(payload), { status, headers }),
  };
}
