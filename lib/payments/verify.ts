// verifyPayment(): validate a payment credential WITHOUT charging it, and hand the paid-call pipeline a
// settle() to call after the paid operation succeeded. See scope.ts for how mppx's one-shot handler is split.
// The credential arrives as data (PaymentCredential), whichever transport carried it (credentialFromHeaders
// reads it from an HTTP request). A refusal is data too: a problem, and a fresh challenge for a 402 or a retry
// delay for a 503; the transports render it.
//
//   const verdict = await verifyPayment(rails, credential, resourceUrl)
//   if (!verdict.ok) return refused(verdict)            // 402 (fresh challenge) or 503; nothing charged
//   const result = await runOperation()                 // a failure here: just return; nothing is charged
//   const settled = await verdict.settle()
//   if (!settled.ok) return refused(settled)            // 402 (fresh challenge) or 503; nothing charged
//   return 200 with settled.headers and paymentIntent = settled.reference
import { Credential, PaymentRequest } from 'mppx';
import { canonicalJson, sha256Hex } from '@/lib/canonical-json';
import { STORE_UNAVAILABLE_DETAIL, problem, type Problem } from '@/lib/problems';
import { challenge, offeredX402, operationOf, type ChallengeIssuer, type ChargeHandler, type PaymentChallenge } from './challenge';
import { decodedPaymentSignature } from './x402-extensions';
import { mppxRouteBinding } from './x402-route-binding';
import type { CredentialClaims } from './claims';
import { requestScope, type PaymentEcho, type PendingSettlement, type RequestScope, type SettlementTrace } from './scope';
import { receiptFromHeaders, type PaymentReceipt } from './wire';

export type PaidRail = 'stripe' | 'evm' | 'x402';

/**
 * What verifying a credential needs of the rails (the PaymentRails of rails.ts have all of it); declared here,
 * so this module needs nothing from rails.ts, which builds on it.
 */
export interface CredentialVerifier extends ChallengeIssuer {
  /** Single-use credential markers (claims.ts). */
  claims: CredentialClaims;
  /** @internal The handler that verifies credentials presented at `operation` (see operationOf in challenge.ts). */
  verifyHandler(operation: string): ChargeHandler;
  /** Who stands behind a shared payment token (see sharedPaymentTokenOwner); null without the card rail. */
  cardPayer(spt: string): Promise<string | null>;
}

/** Stable, client-safe reason codes carried as `reason` in the problem body. */
export type FailureReason =
  | 'missing-credential'
  | 'expired'
  | 'invalid-challenge'
  | 'malformed-credential'
  | 'operation-mismatch'
  | 'credential-used'
  | 'insufficient-funds'
  | 'invalid-signature'
  | 'terms-mismatch'
  | 'declined'
  | 'action-required'
  | 'verification-failed'
  | 'settlement-failed'
  | 'processor-unavailable'
  | 'settlement-unconfirmed'
  | 'store-unavailable';

export interface PaymentFailure {
  ok: false;
  /** 402: the credential is missing or was refused (the response carries a fresh challenge).
   *  503: the facilitator / card processor / credential store could not be used; nothing was charged. */
  status: 402 | 503;
  reason: FailureReason;
  problem: Problem;
  /** The fresh challenge of a 402 (its problem is `problem`); absent for a 503. */
  challenge?: PaymentChallenge;
  /** For a 503: when to try again. */
  retryAfterSeconds?: number;
  /** The raw cause, for server logs only: never send it to the client. */
  internalMessage?: string;
  /** Set when a settlement ended without an answer (`settlement-unconfirmed`): what to ask the processor later. */
  unconfirmed?: SettlementTrace;
}

interface Settlement {
  ok: true;
  /** PaymentIntent id (card) or transaction hash (USDC). */
  reference: string;
  /** MPP's receipt, and x402's settlement for an x402 payment, as mppx wrote them (read back from its headers). */
  receipt: PaymentReceipt;
}

export interface ValidCredential {
  ok: true;
  rail: PaidRail;
  /**
   * The verified payer: `evm:<chainId>:<address>` (the authorization's signer, checked by mppx), or
   * `stripe:customer:…` / `stripe:card:…` as Stripe shows the shared payment token. Null when Stripe shows
   * no owner. Throws when Stripe cannot be reached. Looked up on demand (one Stripe call for a card).
   */
  payer(): Promise<string | null>;
  /** What identifies this payment with its processor (see SettlementTrace). */
  trace: SettlementTrace;
  /** Charges the credential. Call once, only after the operation succeeded; later calls share the result. */
  settle(): Promise<Settlement | PaymentFailure>;
}

export type CredentialVerdict = ValidCredential | PaymentFailure;

/**
 * A machine-payment credential as data, whichever transport carried it: MPP's `Payment <base64url>`
 * authorization, or x402 v2's payment signature (PAYMENT-SIGNATURE, or the legacy X-PAYMENT).
 */
export type PaymentCredential = { scheme: 'mpp'; authorization: string } | { scheme: 'x402'; signature: string };

/**
 * The payment credential an HTTP request carries, or null (none, or a Bearer key).
 * @example credentialFromHeaders(new Headers({ authorization: 'Payment eyJ…' })) // { scheme: 'mpp', authorization: 'Payment eyJ…' }
 */
export function credentialFromHeaders(headers: Headers): PaymentCredential | null {
  const auth = headers.get('authorization');
  if (auth !== null && /^Payment\s/i.test(auth)) return { scheme: 'mpp', authorization: auth };
  const signature = headers.get('payment-signature') ?? headers.get('x-payment');
  return signature === null ? null : { scheme: 'x402', signature };
}

/** Who signed an x402 payment, and the digest of exactly what was signed. */
export interface SignedX402Payment {
  /** The authorization's `from` in the form a verified payer takes (`evm:<chainId>:<address>`, lower case). */
  payer: string;
  /** SHA-256 (hex) of the canonical JSON of the decoded payment: equal for the same payment however it was encoded. */
  digest: string;
}

/**
 * What an x402 payment says of its payer and what it is, read without verifying it; null for one that cannot be
 * read or is not an EIP-3009 authorization on an eip155 network. Its payer is proof of nothing by itself: only
 * a digest equal to one kept with a settled answer shows the sender holds the very payment that payer signed.
 * @example signedX402Payment(request.headers.get('payment-signature')!) // { payer: 'evm:8453:0xab…', digest: '3f0c…' }
 */
export function signedX402Payment(signature: string): SignedX402Payment | null {
  let payment: { accepted?: { network?: unknown }; payload?: { authorization?: { from?: unknown } } };
  try {
    payment = decodedPaymentSignature(signature) as typeof payment;
  } catch {
    return null;
  }
  const chain = /^eip155:(\d+)$/.exec(String(payment.accepted?.network ?? ''));
  const from = payment.payload?.authorization?.from;
  if (!chain || typeof from !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(from)) return null;
  return { payer: `evm:${Number(chain[1])}:${from.toLowerCase()}`, digest: sha256Hex(canonicalJson(payment)) };
}

/**
 * Validates `credential` for `resourceUrl` without charging it. A refusal carries a fresh challenge (402)
 * or says the processor or store cannot be used (503); nothing is charged either way.
 * @example
 *   const verdict = await verifyPayment(rails, { scheme: 'mpp', authorization }, rails.resourceUrl(check.path))
 *   if (verdict.ok) await verdict.settle()
 */
export async function verifyPayment(
  rails: CredentialVerifier,
  credential: PaymentCredential | null,
  resourceUrl: string,
  method = 'POST',
): Promise<CredentialVerdict> {
  const request = { method };
  const operation = operationOf(method, resourceUrl);
  // Only the credential travels into mppx, on a bodiless request addressed by APP_URL, so realm and x402
  // resource.url are the ones the 402 named whatever proxy the request came through.
  const headers = new Headers();
  let viaX402 = false;
  let echo: PaymentEcho | undefined;
  if (credential?.scheme === 'mpp') {
    // mppx refuses it too (the opaque differs from this operation's); said here in our own terms, before anything is claimed.
    const offeredFor = mppOperation(credential.authorization);
    if (offeredFor !== undefined && offeredFor !== operation) return failure(rails, request, resourceUrl, 'operation-mismatch', 402);
    headers.set('authorization', credential.authorization);
  } else if (credential?.scheme === 'x402') {
    // An undecodable x402 header makes mppx report an internal error; call it what it is.
    let payment: { resource?: { url?: unknown }; extensions?: unknown };
    try {
      payment = decodedPaymentSignature(credential.signature) as typeof payment;
    } catch (error) {
      return failure(rails, request, resourceUrl, 'malformed-credential', 402, describe(error));
    }
    // The x402 requirements are the same for every operation at one price, so the resource is what binds a payment to
    // its operation; mppx lets a payment that leaves it out through. Only its url counts: clients echo the whole
    // resource object our 402 sent, description and tags included.
    if (payment.resource?.url !== resourceUrl) return failure(rails, request, resourceUrl, 'operation-mismatch', 402);
    // A payment mppx's client bound to the resource our 402 offered is checked here, and handed on as mppx can
    // check it (x402-route-binding.ts says why).
    const forMppx = mppxRouteBinding(payment, credential.signature, await offeredX402(rails, resourceUrl, method));
    if (forMppx === 'mismatch') return failure(rails, request, resourceUrl, 'terms-mismatch', 402);
    // mppx reads PAYMENT-SIGNATURE only; the legacy X-PAYMENT carries the same payload.
    headers.set('payment-signature', forMppx.signature);
    viaX402 = true;
    echo = { resource: payment.resource, extensions: payment.extensions };
  } else {
    return failure(rails, request, resourceUrl, 'missing-credential', 402);
  }

  const scope: RequestScope = { claims: rails.claims, resource: resourceUrl, echo, errors: [] };
  let result: Awaited<ReturnType<ChargeHandler>>;
  try {
    result = await requestScope.run(scope, () =>
      rails.verifyHandler(operation)(new Request(resourceUrl, { method, headers })),
    );
  } catch (error) {
    // mppx throws only for configuration-level faults; never answer 500 and never charge.
    scope.unavailable = true;
    return failure(rails, request, resourceUrl, 'processor-unavailable', 503, describe(error));
  }

  if (result.status === 200 && scope.pending) {
    const pending = scope.pending;
    const withReceipt = result.withReceipt.bind(result);
    let settled: Promise<Settlement | PaymentFailure> | undefined;
    const trace = pending.trace;
    return {
      ok: true,
      rail: pending.rail === 'evm' && viaX402 ? 'x402' : pending.rail,
      trace,
      payer: async () =>
        trace.rail === 'evm' ? `evm:${trace.chainId}:${trace.from.toLowerCase()}` : prefixed('stripe:', await rails.cardPayer(trace.spt)),
      settle: () => (settled ??= settle(rails, request, resourceUrl, pending, withReceipt, echo)),
    };
  }
  const [reason, status] = classify(scope, 'verify');
  return failure(rails, request, resourceUrl, reason, status, describe(scope.errors.at(-1)));
}

/**
 * The operation an MPP credential's challenge was issued for (`meta.operation`, carried in its HMAC-bound opaque),
 * null when it names none, undefined when the credential cannot be read (mppx then refuses it as malformed).
 */
function mppOperation(authorization: string): string | null | undefined {
  let meta: Record<string, unknown> | undefined;
  try {
    const { challenge: issued } = Credential.deserialize(authorization);
    meta = issued.meta ?? (issued.opaque === undefined ? undefined : (PaymentRequest.deserialize(issued.opaque) as Record<string, unknown>));
  } catch {
    return undefined;
  }
  return typeof meta?.operation === 'string' ? meta.operation : null;
}

async function settle(
  rails: CredentialVerifier,
  request: { method: string },
  resourceUrl: string,
  pending: PendingSettlement,
  withReceipt: (response?: Response) => Response,
  echo: PaymentEcho | undefined,
): Promise<Settlement | PaymentFailure> {
  const scope: RequestScope = { claims: rails.claims, resource: resourceUrl, echo, errors: [] };
  let receipt: Record<string, unknown>;
  try {
    receipt = await requestScope.run(scope, pending.run);
  } catch (error) {
    scope.errors.push(error as Error);
    const [reason, status] = classify(scope, 'settle');
    const refused = await failure(rails, request, resourceUrl, reason, status, describe(error));
    if (reason === 'settlement-unconfirmed') refused.unconfirmed = pending.trace;
    return refused;
  }
  // mppx's withReceipt() closes over the placeholder receipt the deferred method returned: fill it in and let mppx
  // write its receipts, which are read back as objects (wire.ts), so what a payer gets is exactly what mppx says.
  Object.assign(pending.receipt, receipt);
  const written = withReceipt(new Response(null)).headers;
  return { ok: true, reference: String(receipt.reference), receipt: receiptFromHeaders(Object.fromEntries(written)) };
}

function classify(scope: RequestScope, stage: 'verify' | 'settle'): [FailureReason, 402 | 503] {
  if (scope.storeFailed) return ['store-unavailable', 503];
  if (stage === 'settle' && scope.ambiguous) return ['settlement-unconfirmed', 503];
  if (scope.unavailable) return ['processor-unavailable', 503];
  if (scope.alreadyUsed) return ['credential-used', 402];
  const fallback: FailureReason = stage === 'settle' ? 'settlement-failed' : 'verification-failed';

  if (scope.stripeCode) {
    const code = scope.stripeCode;
    if (code.includes('expired')) return ['expired', 402];
    if (code.includes('used')) return ['credential-used', 402];
    if (code === 'card_declined' || code.includes('declin') || code.includes('insufficient')) return ['declined', 402];
    return [fallback, 402];
  }
  if (scope.facilitatorReason) {
    const code = scope.facilitatorReason.toLowerCase();
    if (code.includes('insufficient')) return ['insufficient-funds', 402];
    if (code.includes('nonce') || code.includes('already_used') || code.includes('used')) return ['credential-used', 402];
    if (code.includes('expired') || code.includes('valid_before')) return ['expired', 402];
    if (code.includes('signature')) return ['invalid-signature', 402];
    if (code.includes('mismatch') || code.includes('recipient') || code.includes('value')) return ['terms-mismatch', 402];
    return [fallback, 402];
  }

  const error = scope.errors.at(-1);
  const message = (error?.message ?? '').toLowerCase();
  switch (error?.name) {
    case 'PaymentExpiredError':
      return ['expired', 402];
    case 'InvalidChallengeError':
      return [message.includes('expires') ? 'expired' : 'invalid-challenge', 402];
    case 'MalformedCredentialError':
    case 'InvalidPayloadError':
      return ['malformed-credential', 402];
    case 'PaymentActionRequiredError':
      return ['action-required', 402];
    case 'VerificationFailedError':
      if (message.includes('expired')) return ['expired', 402];
      if (message.includes('signature')) return ['invalid-signature', 402];
      if (message.includes('mismatch') || message.includes('does not match')) return ['terms-mismatch', 402];
      if (message.includes('already been processed')) return ['credential-used', 402];
      return [fallback, 402];
    default:
      return [fallback, 402];
  }
}

const DETAILS: Record<FailureReason, string> = {
  'missing-credential': 'Payment is required for this request.',
  expired: 'The payment challenge or authorization has expired.',
  'invalid-challenge': 'The credential does not answer a challenge this service issued for this resource.',
  'malformed-credential': 'The payment credential could not be read.',
  'operation-mismatch':
    'This payment was offered for another operation, or does not say which: a credential pays only for the route or tool whose 402 issued it (x402: its resource.url).',
  'credential-used': 'This payment credential has already been used; each credential pays for one request.',
  'insufficient-funds': 'The paying account does not hold enough USDC for this payment.',
  'invalid-signature': 'The payment authorization signature is not valid.',
  'terms-mismatch': 'The payment credential does not match the terms of the challenge.',
  declined: 'The card payment was declined.',
  'action-required': 'The card payment requires customer action and cannot complete here.',
  'verification-failed': 'The payment credential could not be verified.',
  'settlement-failed': 'The payment could not be settled.',
  'processor-unavailable': 'The payment processor cannot be reached right now. Nothing was charged; try again shortly.',
  // Honest about the one case where we cannot know: the processor may complete the charge after we gave up.
  'settlement-unconfirmed':
    'The payment processor did not confirm the charge in time, so it may still complete. Retry with the same Idempotency-Key (given in this response) and a new credential from the same payer: if the charge went through you receive this result without paying again; if it did not, the new credential pays.',
  'store-unavailable': STORE_UNAVAILABLE_DETAIL,
};

async function failure(
  rails: CredentialVerifier,
  request: { method: string },
  resourceUrl: string,
  reason: FailureReason,
  status: 402 | 503,
  internalMessage?: string,
): Promise<PaymentFailure> {
  const extra = internalMessage ? { internalMessage } : {};
  if (status === 503) {
    const body = problem(reason === 'store-unavailable' ? 'store-unavailable' : 'payments-unavailable', DETAILS[reason], {
      reason,
    });
    return { ok: false, status, reason, problem: body, retryAfterSeconds: 5, ...extra };
  }
  const detail =
    reason === 'missing-credential'
      ? undefined
      : `${DETAILS[reason]} Nothing was charged. Pay the new challenge in this response.`;
  const fresh = await challenge(rails, resourceUrl, detail === undefined ? undefined : problem('payment-failed', detail, { reason }), request.method);
  return { ok: false, status, reason, problem: fresh.problem, challenge: fresh, ...extra };
}

function describe(error: unknown): string | undefined {
  if (!error) return undefined;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function prefixed(prefix: string, value: string | null): string | null {
  return value === null ? null : `${prefix}${value}`;
}
