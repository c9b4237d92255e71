// Adapts lib/payments (createPaymentRails / challenge / verifyCredential) to the rails interface the
// paid-call gate (gate.ts) consumes, and the service store to CredentialClaims.
//
//   const claims = storeCredentialClaims(store);
//   const rails = createPaymentRails(paymentConfigFromEnv(), { claims });
//   const gateRails = rails ? toGateRails(rails, { rpcUrl }) : null;   // null -> the gate answers 503 for payments
import type { CredentialClaims } from './claims';
import { challenge } from './challenge';
import type { GateResponse, PaymentRails as GatePaymentRails } from './gate';
import type { PaymentRails } from './rails';
import { processorProbe, type ProbeOptions } from './settlements';
import { hasPaymentCredential, verifyCredential, type PaymentFailure } from './verify';

/** The store's atomic claim (`claimOnce(key, now, ttlMs)`) as the CredentialClaims lib/payments uses. */
export function storeCredentialClaims(store: {
  claimOnce(key: string, now: number, ttlMs: number): Promise<boolean>;
}): CredentialClaims {
  return { claimOnce: (key, ttlSeconds) => store.claimOnce(key, Date.now(), ttlSeconds * 1000) };
}

/**
 * The rails as the gate consumes them. `rpcUrl`: the chain the reconciler reads USDC authorizations from.
 *
 * @example
 *   const gateRails = toGateRails(rails, { rpcUrl: 'https://mainnet.base.org' })
 */
export function toGateRails(rails: PaymentRails, options: Omit<ProbeOptions, 'stripe'> = { rpcUrl: null }): GatePaymentRails {
  return {
    live: [...rails.live],
    settlements: processorProbe({ ...options, stripe: rails.stripe }),
    hasCredential: hasPaymentCredential,
    async challenge(request, body) {
      const c = await challenge(rails, request, undefined, body);
      return gateResponse(c.status, c.headers, c.problem);
    },
    async verify(request) {
      const verdict = await verifyCredential(rails, request);
      if (!verdict.ok) return { ok: false, response: failureResponse(verdict) };
      return {
        ok: true,
        payment: {
          payer: verdict.payer,
          async settle() {
            const settled = await verdict.settle();
            if (!settled.ok) return { ok: false, response: failureResponse(settled), ...(settled.unconfirmed ? { unconfirmed: settled.unconfirmed } : {}) };
            return { ok: true, reference: settled.reference, headers: settled.headers };
          },
        },
      };
    },
  };
}

function failureResponse(failure: PaymentFailure): GateResponse {
  return gateResponse(failure.status, failure.headers, failure.problem);
}

function gateResponse(status: number, headers: Headers, body: unknown): GateResponse {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => (record[name] = value));
  return { status, headers: record, body };
}
