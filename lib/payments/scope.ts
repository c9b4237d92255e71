// Validate now, settle later: how this service splits mppx's one-shot payment handler.
//
// mppx 0.11 runs a credential through its handler in one go: HMAC/binding/expiry checks, the method's
// `validate` (for evm: signature, terms, and the facilitator's /verify), then the method's `broadcast`
// (evm: facilitator /settle) or `verify` (stripe: create + confirm the PaymentIntent), and only then returns
// `withReceipt`. Our paid operations must run BETWEEN validation and the charge, so a failed run is never
// charged. We keep every mppx check and replace only the terminal step of each method:
//
//   - `deferSettlement(method)` wraps the method's terminal call (`broadcast` when the method has the
//     validate/broadcast split, as evm.charge does; `verify` otherwise, as stripe.charge has). Inside a
//     request's scope the wrapper does not pay: it claims the credential (single use, see claims.ts), stashes
//     a closure over the real call, and returns a placeholder receipt object to mppx. mppx then answers 200
//     with `withReceipt` bound to that object.
//   - `settle()` (verify.ts) later runs the stashed closure, copies the real receipt into the placeholder
//     object, and calls mppx's own `withReceipt`, so Payment-Receipt / PAYMENT-RESPONSE are exactly mppx's.
//
// The per-request state travels in AsyncLocalStorage, because mppx calls the methods with no request
// context of ours. The same scope records what the rails' clients observed (facilitator or Stripe
// unreachable, the facilitator's reason code, a Stripe error code) so failures can be classified without
// ever echoing a raw message (viem revert traces, Stripe internals) to the client.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Errors } from 'mppx';
import type { CredentialClaims } from './claims';

export interface PendingSettlement {
  rail: 'stripe' | 'evm';
  /** Performs the real charge; resolves to mppx's receipt. */
  run(): Promise<Record<string, unknown>>;
  /** The object mppx's withReceipt() closes over; filled in after the charge. */
  receipt: Record<string, unknown>;
  /** What identifies this payment with the processor, so a charge that ends ambiguously can be looked up later. */
  trace: SettlementTrace;
}

/**
 * How to ask the processor, after the fact, whether a settlement happened: the EIP-3009 authorization
 * (USDC `authorizationState(from, nonce)`), or the card rail's PaymentIntent (mppx creates it with the
 * idempotency key `mpp_<challengeId>_<spt>` and the metadata `mpp_challenge_id`).
 */
export type SettlementTrace =
  | { rail: 'evm'; chainId: number; currency: string; from: string; nonce: string; validBefore: number }
  | { rail: 'stripe'; challengeId: string; spt: string; expiresAt: number };

/** The parts of an x402 payment that describe what was bought, as the buyer echoed them from our 402. */
export interface PaymentEcho {
  resource: unknown;
  extensions: unknown;
}

export interface RequestScope {
  claims: CredentialClaims;
  /** The paid resource's URL (APP_URL and the route): what a facilitator's directory status is about. */
  resource?: string;
  /** What the buyer's x402 payment echoed of our 402 (`resource`, `extensions`): sent on to the facilitator (facilitator.ts). */
  echo?: PaymentEcho;
  pending?: PendingSettlement;
  /** The facilitator or card processor could not be reached / answered 5xx. */
  unavailable?: boolean;
  /**
   * The settle request may have been acted on though we never got its answer (a timeout, a connection lost
   * after sending, a 5xx): the money may still move, so the gate records it for the reconciler.
   */
  ambiguous?: boolean;
  /** The claims store failed. */
  storeFailed?: boolean;
  /** The credential was seen before (replay or concurrent duplicate). */
  alreadyUsed?: boolean;
  /** Machine-readable reason the facilitator gave (x402 invalidReason / errorReason), e.g. insufficient_funds. */
  facilitatorReason?: string;
  /** Stripe error code (card_declined, ...) when the processor refused. */
  stripeCode?: string;
  /** Errors mppx reported through its payment.failed event during this request. */
  errors: Error[];
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

export function currentScope(): RequestScope | undefined {
  return requestScope.getStore();
}

type Params = {
  credential: { challenge: { id: string; expires?: string; request: Record<string, unknown> }; payload: Record<string, unknown> };
};

interface ServerMethodLike {
  name: string;
  broadcast?: (p: never) => Promise<unknown>;
  verify: (p: never) => Promise<unknown>;
}

/** Wraps an mppx server method so that, inside a request scope, its terminal payment step is deferred. */
export function deferSettlement<M extends ServerMethodLike>(method: M): M {
  const rail = method.name === 'stripe' ? 'stripe' : 'evm';
  const key = method.broadcast ? 'broadcast' : 'verify';
  const terminal = (method[key] as (p: Params) => Promise<Record<string, unknown>>).bind(method);
  const deferred = async (params: Params) => {
    const scope = currentScope();
    // Outside verifyCredential() (nothing in this service does that) behave exactly like mppx.
    if (!scope) return terminal(params);

    const claim = claimFor(rail, params);
    let first: boolean;
    try {
      first = await scope.claims.claimOnce(claim.key, claim.ttlSeconds);
    } catch {
      scope.storeFailed = true;
      throw new Errors.VerificationFailedError({ reason: 'credential store unavailable' });
    }
    if (!first) {
      scope.alreadyUsed = true;
      throw new Errors.VerificationFailedError({ reason: 'credential already used' });
    }
    const receipt: Record<string, unknown> = {
      method: rail,
      reference: 'pending',
      status: 'success',
      timestamp: new Date().toISOString(),
    };
    scope.pending = { rail, receipt, run: () => terminal(params), trace: traceFor(rail, params) };
    return receipt;
  };
  return { ...method, [key]: deferred };
}

/** The single-use key of a credential: the EIP-3009 authorization (payer + nonce), or the SPT. */
function claimFor(rail: 'stripe' | 'evm', params: Params): { key: string; ttlSeconds: number } {
  const now = Math.floor(Date.now() / 1000);
  const clamp = (until: number) => Math.min(Math.max(until - now + 60, 60), 7 * 24 * 3600);
  const { credential } = params;
  if (rail === 'evm') {
    const p = credential.payload as { from: string; nonce: string; validBefore: string };
    const request = credential.challenge.request as { currency: string; methodDetails: { chainId: number } };
    return {
      key: `pay:evm:${request.methodDetails.chainId}:${request.currency}:${p.from}:${p.nonce}`.toLowerCase(),
      ttlSeconds: clamp(Number(p.validBefore)),
    };
  }
  const spt = String(credential.payload.spt);
  const expires = credential.challenge.expires ? Date.parse(credential.challenge.expires) / 1000 : now + 3600;
  return { key: `pay:stripe:${spt}`, ttlSeconds: clamp(Math.ceil(expires)) };
}

function traceFor(rail: 'stripe' | 'evm', params: Params): SettlementTrace {
  const { credential } = params;
  if (rail === 'evm') {
    const p = credential.payload as { from: string; nonce: string; validBefore: string };
    const request = credential.challenge.request as { currency: string; methodDetails: { chainId: number } };
    return {
      rail,
      chainId: request.methodDetails.chainId,
      currency: request.currency,
      from: p.from,
      nonce: p.nonce,
      validBefore: Number(p.validBefore),
    };
  }
  const expires = credential.challenge.expires ? Date.parse(credential.challenge.expires) : Date.now() + 3600_000;
  return { rail, challengeId: credential.challenge.id, spt: String(credential.payload.spt), expiresAt: expires };
}
