import crypto from 'node:crypto';
import type { Config } from '@/lib/config';
import type { Store } from '@/lib/store';
import type { FinishedCall, IdempotentAnswer, KeptReport } from '@/lib/store/types';
import { StoreUnavailableError } from '@/lib/store/types';
import { paidBody, type CheckEntry } from '@/lib/checks/entry';
import { sha256Hex } from '@/lib/canonical-json';
import { jsonText } from '@/lib/json-text';
import { INTERNAL_ERROR, ProblemError, knownProblem, problem, type Problem } from '@/lib/problems';
import { parseBody } from '@/lib/validation';
import { enforceRateLimit, rateLimited } from '@/lib/rate-limit';
import { balance, invalidCreditsKey, newUsageId, releaseCall, reserveCall } from '@/lib/credits/ledger';
import { reportToKeep, saveReport, walletOwner } from '@/lib/reports/store';
import { hashKey, isWellFormedKey, maskKey } from '@/lib/credits/keys';
import { PRICE_USD } from '@/lib/price';
import type { PaymentRails } from '@/lib/payments/rails';
import type { PaymentChallenge } from '@/lib/payments/challenge';
import { signedX402Payment, type FailureReason, type PaidRail, type PaymentCredential, type PaymentFailure, type ValidCredential } from '@/lib/payments/verify';
import { findUnconfirmed, reconcileOne, recordUnconfirmed } from '@/lib/payments/settlements';
import { readReplayRecord, REPLAY_TTL_MS, writeReplayRecord, writeReportReplayRecord } from '@/lib/payments/replay-record';
import { NO_RECEIPT, type PaymentReceipt } from '@/lib/payments/wire';
import { paymentIdentifierOf } from '@/lib/payments/x402-extensions';
import { hostBudgetSpent, returnHostBudget, spendHostBudget, spendOutbound } from './host-budget';
import { costlyFailureBuckets, costlyFailuresSpent, countCostlyFailure } from './costly-failures';

// The paid-call pipeline: one for every check, over REST, MCP and the site. It speaks neither HTTP nor
// JSON-RPC: it takes the call as data and returns an outcome; lib/paid-call/http.ts and mcp.ts render it.
//   1. validate the body            → problem 400, no challenge
//   2. validate the Idempotency-Key → problem 400, no challenge
//   3. rate limits (IP, then key)   → problem 429 with a retry delay; for an operation that fetches a
//      site, that site's budget for this minute (host-budget.ts), and for an operation whose failures can be
//      costly, the caller's costly-failure budget (costly-failures.ts) → problem 429, before anything is paid
//   4. pay: hold a prepaid call (in step 3's store step when nothing is looked up in between), or verify a
//      payment credential without settling it, or answer payment-required with the challenges (problem 503
//      when no rail is live)
//   5. idempotent replay / conflict → replayed, or problem 409 (an x402 payment's payment-identifier is its
//      Idempotency-Key: withPaymentIdentifier). Records are scoped to whoever pays (the
//      credits key, or the verified payer of a credential), so nobody else's key replays them. A key holder's replay is looked up
//      before its reservation; a credential's only after it verified, and the credential is then claimed
//      but never settled. An x402 payment resent as is (resentPayment) is looked up before it is verified, and
//      answered only if the record was paid by that very payment.
//   6. count the check against its site's budget (over it: released, 429), then run the operation
//      (work that can fail runs here, before any charge; a costly failure counts against the caller's budget)
//   7. commit the call (with its report kept, its answer stored naming the report and the calls left counted: one
//      store step) /
//      settle the payment and store the response for replays: fulfilled. A settlement that ends without an
//      answer is recorded for the reconciler (lib/payments/settlements.ts), which finds out later whether it charged.

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/;
/** An in-flight marker outlives the longest run; a crashed request frees its key after this. */
const IN_FLIGHT_TTL_MS = 3 * 60 * 1000;

/**
 * What a call paid with a credits key adds to its answer (headers on REST, `_meta` over MCP); a call a wallet
 * paid (MPP evm, x402) says where its report is, with no calls left to count.
 */
export interface PrepaidFacts {
  /** Calls left on the key after this call (a replay: left now); null when the store could not say or a wallet paid. */
  creditsRemaining: number | null;
  /** The stored report of this call (`/api/reports/<id>`); null when it could not be stored. */
  reportId: string | null;
}

/** What became of a paid call, whatever transport carried it. */
export type PaidCallOutcome =
  | {
      kind: 'fulfilled';
      body: ReturnType<typeof paidBody>;
      /** `body` serialised once: the same text is stored for replays and sent now. */
      bodyText: string;
      /** The payment's receipts (MPP's, and x402's settlement); NO_RECEIPT for a prepaid call. */
      receipt: PaymentReceipt;
      /** Present when a credits key or a wallet paid. */
      prepaid?: PrepaidFacts;
    }
  | { kind: 'replayed'; body: unknown; receipt: PaymentReceipt; prepaid?: PrepaidFacts }
  | { kind: 'problem'; problem: Problem; retryAfterSeconds?: number }
  /**
   * Pay first: the problem says why (unpaid, no calls left, or `refused`: the credential sent was refused, and
   * why), the challenge offers the terms.
   */
  | { kind: 'payment-required'; problem: Problem; challenge: PaymentChallenge; refused?: FailureReason };

export interface PaidCallDeps {
  config: Pick<
    Config,
    | 'APP_URL'
    | 'CREDITS_KEY_SECRET'
    | 'RATE_LIMIT_PER_IP'
    | 'RATE_LIMIT_PER_KEY'
    | 'RATE_LIMIT_WINDOW_SECONDS'
    | 'RATE_LIMIT_COSTLY_FAILURES'
    | 'CREDITS_RESERVATION_HOLD_SECONDS'
    | 'CHECKS_PER_SITE_PER_MINUTE'
    | 'REPORT_RETENTION_DAYS'
  > &
    Partial<Pick<Config, 'OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE' | 'OUTBOUND_REQUESTS_PER_ADDRESS_PER_MINUTE'>>;
  store: Store;
  rails: PaymentRails | null;
  now?: () => Date;
  log?: (event: Record<string, unknown>) => void;
  /** Told what the call did, for metrics (lib/paid-call/observe.ts); a call runs the same without one. */
  observer?: PaidCallObserver;
}

/** What a paid call tells whoever counts calls, as it happens. */
export interface PaidCallObserver {
  /** A credential verified: the rail that pays. */
  verified(rail: PaidRail): void;
  /** The check's own work finished (or failed) after `seconds`, without payment or store time. */
  ran(check: CheckEntry, seconds: number): void;
  /** A settlement after the work failed (`reason`) or ended without an answer (`unconfirmed`). */
  settlementFailed(rail: PaidRail, reason: string): void;
}

export interface PaidCall {
  check: CheckEntry;
  /** The parsed JSON body (not yet validated). */
  body: unknown;
  idempotencyKey: string | null;
  /** Where the transport carried the Idempotency-Key, named in a 400 about it (`header:Idempotency-Key`). */
  idempotencyKeySource: string;
  clientIp: string;
  /** The presented prepaid key, if any. */
  bearerKey: string | null;
  /**
   * A credits key the transport already authenticated, by its hash (a signed-in site session holds no key):
   * it pays exactly as a presented `bearerKey` would. Takes the place of `bearerKey`.
   */
  keyHash?: string | null;
  /** The presented machine-payment credential, if any. */
  credential: PaymentCredential | null;
  /**
   * Builds the signal that stops the work whatever it has done (a shutdown past its grace). Called only if the
   * operation reads its signal: a pure check never does, and materialising a request's AbortSignal costs
   * measurable time on every call.
   */
  signal?: () => AbortSignal;
  /**
   * Builds the signal that says the caller went away (the connection closed, the MCP request was cancelled). It
   * stops the work only until the work first sends a request to anyone: from then on the check runs to its end and
   * is charged as if the caller had stayed, so leaving early is never a way to have requests sent for free.
   */
  departure?: () => AbortSignal;
  /** Told of a prepaid call held for this call, with how to give it back (a shutdown that cannot wait releases it). */
  onReserved?: (release: () => Promise<unknown>) => void;
}

function problemOutcome(p: Problem, retryAfterSeconds?: number): PaidCallOutcome {
  return retryAfterSeconds === undefined ? { kind: 'problem', problem: p } : { kind: 'problem', problem: p, retryAfterSeconds };
}

/** A refused credential: a 402 with its fresh challenge, or a 503 to retry later. */
function refusedPayment(failure: PaymentFailure): PaidCallOutcome {
  if (!failure.challenge) return problemOutcome(failure.problem, failure.retryAfterSeconds);
  const outcome: PaidCallOutcome = { kind: 'payment-required', problem: failure.problem, challenge: failure.challenge };
  return failure.reason === 'missing-credential' ? outcome : { ...outcome, refused: failure.reason };
}

/**
 * Runs one paid call through the seven steps and says what became of it. Never throws: every failure is
 * a `problem` outcome (nothing charged unless the outcome is fulfilled).
 * @example
 *   const outcome = await runPaidCall(getRuntime(), {
 *     check, body, idempotencyKey: null, idempotencyKeySource: 'header:Idempotency-Key',
 *     clientIp: '203.0.113.7', bearerKey: null, credential: null,
 *   })
 *   if (outcome.kind === 'payment-required') outcome.challenge.challenges // the terms to pay
 */
export async function runPaidCall(deps: PaidCallDeps, call: PaidCall): Promise<PaidCallOutcome> {
  try {
    return await pipeline(deps, call);
  } catch (error) {
    if (error instanceof StoreUnavailableError) deps.log?.({ event: 'store-unavailable', operation: call.check.operationId });
    const known = knownProblem(error);
    if (known) return problemOutcome(known.problem, known.retryAfterSeconds);
    deps.log?.({ event: 'internal-error', operation: call.check.operationId, error: error instanceof Error ? error.message : String(error) });
    return problemOutcome(INTERNAL_ERROR.problem);
  }
}

/** Who pays for an admitted call, and under which idempotency scope its answer is kept. */
interface Admitted {
  /** The credits key that pays, by its hash; null for a credential. */
  keyHash: string | null;
  scope: string;
  idempotencyKey: string;
  fingerprint: string;
  payment: { kind: 'credits'; usageId: string } | { kind: 'rail'; verified: ValidCredential };
  /** Who pays, for sharing the renderer fairly (CheckContext.owner). */
  owner: string;
  /** A paying wallet's report owner (walletOwner): its report is kept for it. Null for a card. */
  wallet?: string | null;
}

/** The clock of one call: the deps' clock in tests, the wall clock otherwise. */
type Clock = () => number;

async function pipeline(deps: PaidCallDeps, sent: PaidCall): Promise<PaidCallOutcome> {
  const now: Clock = () => (deps.now?.() ?? new Date()).getTime();
  const input = validateCall(sent);
  const call = withPaymentIdentifier(sent);
  const prepaid = call.bearerKey !== null || Boolean(call.keyHash);
  const admitted = prepaid ? await admitPrepaid(deps, call, input, now) : await admitUnkeyed(deps, call, input, now);
  if ('kind' in admitted) return admitted;

  const abandon = async () => {
    await releasePayment(deps.store, admitted);
    if (call.idempotencyKey !== null) await deps.store.abandonIdempotent(admitted.scope, admitted.fingerprint).catch(() => {});
  };
  const refused = await spendSiteBudget(deps, call, input, admitted.owner, now, abandon);
  if (refused) return refused;
  let result: Record<string, unknown>;
  const progress = { reached: false, siteAnswered: false };
  try {
    result = await runOperation(deps, call, input, now, admitted.owner, progress);
  } catch (error) {
    await abandon();
    // A check of a site that ended before the site answered cost the site nothing worth counting: it goes back
    // to the site's budget, and counts against its caller instead, so abandoned checks cannot spend a site's
    // minute for everyone else.
    const unanswered = !progress.siteAnswered && (await returnSiteBudget(deps, call, input, admitted.owner, now));
    if (unanswered || call.check.costlyFailure?.(error)) await countCostly(deps, call, admitted.keyHash, now);
    throw call.check.problemOf?.(error) ?? error;
  }
  return admitted.payment.kind === 'credits'
    ? chargeCredits(deps, call, input, admitted, admitted.payment.usageId, result, now)
    : settleCredential(deps, call, input, admitted, admitted.payment.verified, result, abandon, now);
}

/** Steps 1-2: the body against the operation's schema and precheck, and the Idempotency-Key's form. */
function validateCall(call: PaidCall): unknown {
  // Nothing about payment is said to a malformed request.
  const input = parseBody(call.check.input, call.body);
  try {
    call.check.precheck?.(input);
  } catch (error) {
    throw call.check.problemOf?.(error) ?? error;
  }
  if (call.idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(call.idempotencyKey)) {
    throw new ProblemError('invalid-idempotency-key', 'Idempotency-Key must be 8-128 characters of A-Z a-z 0-9 . _ : - and start with a letter or digit.', {
      errors: [{ path: call.idempotencyKeySource, message: 'does not match ^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$' }],
    });
  }
  return input;
}

/** Where a payment-identifier travels, named in a 400 about it. */
const PAYMENT_IDENTIFIER_SOURCE = 'payment:extensions.payment-identifier.info.id';

/**
 * An x402 payment's payment-identifier is the call's Idempotency-Key: a call carrying both must carry the same
 * (else 400), and one carrying only the id is keyed by it. Its scope stays the verified payer's (admitUnkeyed), so
 * a copied id without the payer's signature reaches no answer.
 */
function withPaymentIdentifier(call: PaidCall): PaidCall {
  if (call.credential?.scheme !== 'x402') return call;
  const identifier = paymentIdentifierOf(call.credential.signature);
  if ('invalid' in identifier) {
    throw new ProblemError('invalid-idempotency-key', `The payment's payment-identifier is not valid: ${identifier.invalid}`, {
      errors: [{ path: PAYMENT_IDENTIFIER_SOURCE, message: 'must be 16-128 characters of A-Z a-z 0-9 _ -' }],
    });
  }
  if (identifier.id === null) return call;
  if (call.idempotencyKey !== null && call.idempotencyKey !== identifier.id) {
    throw new ProblemError('invalid-idempotency-key', "The Idempotency-Key and the payment's payment-identifier differ. Send one, or the same in both.", {
      errors: [{ path: call.idempotencyKeySource, message: `differs from ${PAYMENT_IDENTIFIER_SOURCE}` }],
    });
  }
  return { ...call, idempotencyKey: identifier.id, idempotencyKeySource: PAYMENT_IDENTIFIER_SOURCE };
}

/** The call's Idempotency-Key and its body's fingerprint: worked out only for a call that gets past its 402. */
function identify(call: PaidCall, input: unknown): { idempotencyKey: string; fingerprint: string } {
  return {
    // The caller's key, or one of ours (known to no other request, so it needs no in-flight claim).
    idempotencyKey: call.idempotencyKey ?? `auto_${crypto.randomBytes(12).toString('base64url')}`,
    // zod rebuilds the parsed body in schema order, so equal bodies serialise identically whatever order the client sent.
    fingerprint: sha256Hex(`${call.check.operationId}\n${JSON.stringify(input)}`),
  };
}

/**
 * Steps 3-5 for a prepaid key: the rate limits and the key in one store step (`admitCall`); the replay looked
 * up in the key's scope (before the hold: a replay must not hold a call); one call held. A call with nothing to
 * look up between its admission and its hold (no Idempotency-Key to replay, no site budget to read) is held in
 * the admission's own store step.
 */
async function admitPrepaid(deps: PaidCallDeps, call: PaidCall, input: unknown, now: Clock): Promise<Admitted | PaidCallOutcome> {
  const { store, config } = deps;
  const windowMs = config.RATE_LIMIT_WINDOW_SECONDS * 1000;
  const holdMs = config.CREDITS_RESERVATION_HOLD_SECONDS * 1000;
  const bearerKey = call.bearerKey ?? '';
  if (!call.keyHash && !isWellFormedKey(bearerKey)) {
    // No store holds such a key: count the address, then refuse the key, as an unknown key is refused.
    await enforceRateLimit(store, `ip:${call.clientIp}`, config.RATE_LIMIT_PER_IP, windowMs, now());
    throw invalidCreditsKey();
  }
  const keyHash = call.keyHash || hashKey(bearerKey, config.CREDITS_KEY_SECRET);
  const holdAtOnce = call.idempotencyKey === null && (call.check.targetHost?.(input) ?? null) === null && !call.check.costlyFailure;
  const admittedAt = now();
  const hold = holdAtOnce ? { reservationId: newUsageId(), holdUntil: admittedAt + holdMs, operation: call.check.operationId } : undefined;
  const admission = await store.admitCall({
    now: admittedAt,
    windowMs,
    ip: { bucket: `ip:${call.clientIp}`, limit: config.RATE_LIMIT_PER_IP },
    key: { keyHash, bucket: `key:${keyHash}`, limit: config.RATE_LIMIT_PER_KEY },
    ...(hold && { hold }),
  });
  if (!admission.admitted) throw admission.refusal === 'invalid-key' ? invalidCreditsKey() : rateLimited(admission.retryAfterMs);

  const { idempotencyKey, fingerprint } = identify(call, input);
  const scope = `${call.check.operationId}:${keyHash}:${idempotencyKey}`;
  let usageId: string | null;
  if (hold) {
    usageId = admission.held ? hold.reservationId : null;
  } else {
    const spent = await budgetsSpent(deps, call, input, keyHash, now);
    if (spent) return spent;
    if (call.idempotencyKey !== null) {
      const existing = await store.getIdempotent(scope, now());
      if (existing) return withBalance(store, keyHash, await idempotentAnswer(store, existing, fingerprint, now()), now());
    }
    usageId = await reserveCall(store, keyHash, now(), holdMs, call.check.operationId);
  }
  if (!usageId) return creditsExhausted(deps, call);
  const heldId = usageId;
  call.onReserved?.(() => releaseCall(store, heldId));
  const admitted: Admitted = { keyHash, scope, idempotencyKey, fingerprint, payment: { kind: 'credits', usageId }, owner: `key:${keyHash}` };
  const claimed = await claimIdempotencyKey(deps, call, admitted, now);
  return claimed ? withBalance(store, keyHash, claimed, now()) : admitted;
}

/**
 * Steps 3-5 without a key: the address's rate limit, then verify the credential without settling it (its
 * replay looked up in the verified payer's scope), or answer payment-required with the challenges.
 */
async function admitUnkeyed(deps: PaidCallDeps, call: PaidCall, input: unknown, now: Clock): Promise<Admitted | PaidCallOutcome> {
  const { store, config, rails } = deps;
  const { check } = call;
  await enforceRateLimit(store, `ip:${call.clientIp}`, config.RATE_LIMIT_PER_IP, config.RATE_LIMIT_WINDOW_SECONDS * 1000, now());
  const spent = await budgetsSpent(deps, call, input, null, now);
  if (spent) return spent;
  if (!rails) {
    return problemOutcome(
      problem('payments-unavailable', 'Machine payments are not available right now. Use a prepaid credits key (Authorization: Bearer) or retry later.', {
        plans: `${config.APP_URL}/api/agent/credits`,
      }),
      60,
    );
  }
  if (!call.credential) {
    // The same 402 whatever Idempotency-Key came with it (nothing about the key is told).
    return paymentRequired(rails, check, problem('payment-required', `${check.service} costs ${PRICE_USD} USD. Pay with one of the offered challenges, or send a prepaid credits key as Authorization: Bearer.`, { plans: `${config.APP_URL}/api/agent/credits` }));
  }
  const { idempotencyKey, fingerprint } = identify(call, input);
  // Before the facilitator is asked: what it answers for an authorization already used is its own wording.
  const resent = await resentPayment(deps, call, fingerprint, now);
  if (resent) return resent;
  const verified = await rails.verify(call.credential, check.path);
  // Looked up again when refused as used: the first call may have finished while this one was being verified.
  if (!verified.ok) return (verified.reason === 'credential-used' && (await resentPayment(deps, call, fingerprint, now))) || refusedPayment(verified);
  deps.observer?.verified(verified.rail);
  // The credential is now claimed: whatever follows, it is never settled unless this call settles it.
  const payer = await verified.payer().catch(() => undefined);
  if (payer === undefined) return processorUnavailable();
  // A payer Stripe shows no owner for cannot prove it is the same one later: its calls are never replayed.
  const scope = payerScope(check, payer ?? `unbound:${crypto.randomUUID()}`, idempotencyKey);
  if (call.idempotencyKey !== null) {
    const unconfirmed = await findUnconfirmed(store, scope, now());
    if (unconfirmed) {
      const outcome = await reconcileOne(store, rails.settlements, unconfirmed, now(), deps.log).catch(() => ({ status: 'pending' as const }));
      if (outcome.status === 'pending') return settlementStillUnconfirmed(idempotencyKey);
    }
    const existing = await store.getIdempotent(scope, now());
    if (existing) return idempotentAnswer(store, existing, fingerprint, now());
  }
  const owner = payer ? `payer:${sha256Hex(payer)}` : `ip:${call.clientIp}`;
  const admitted: Admitted = { keyHash: null, scope, idempotencyKey, fingerprint, payment: { kind: 'rail', verified }, owner, wallet: walletOfPayer(payer) };
  return (await claimIdempotencyKey(deps, call, admitted, now)) ?? admitted;
}

/** The idempotency scope of a call a verified payer paid for with a credential. */
function payerScope(check: CheckEntry, payer: string, idempotencyKey: string): string {
  return `${check.operationId}:payer:${sha256Hex(payer)}:${idempotencyKey}`;
}

/**
 * Step 5 for an x402 payment carrying an Idempotency-Key (or a payment-identifier), before it is verified: the
 * client resending the payment whose answer it lost. The record under the scope of the payer the payment names
 * answers it (the stored answer, or 409 for another body) only when it was paid by this very payment (its digest
 * kept with the answer, written only once that payment verified and settled): the payer's address and the id are
 * no secret, the signed payment is what only the payer handed out. Anything else, an answer still in flight
 * included, is null: the payment is then verified as any other.
 */
async function resentPayment(deps: PaidCallDeps, call: PaidCall, fingerprint: string, now: Clock): Promise<PaidCallOutcome | null> {
  if (call.credential?.scheme !== 'x402' || call.idempotencyKey === null) return null;
  const signed = signedX402Payment(call.credential.signature);
  if (!signed) return null;
  const existing = await deps.store.getIdempotent(payerScope(call.check, signed.payer, call.idempotencyKey), now());
  if (existing?.state !== 'done' || !existing.response) return null;
  if (readReplayRecord(existing.response).credentialDigest !== signed.digest) return null;
  deps.log?.({ event: 'payment-resent', operation: call.check.operationId });
  return idempotentAnswer(deps.store, existing, fingerprint, now());
}

/**
 * Step 3 for a check that fetches a site: refused (429) when the site's budget for this minute is spent,
 * before anything is held or offered. Only a read: unpaid calls spend none of it.
 */
async function siteBudgetSpent(deps: PaidCallDeps, call: PaidCall, input: unknown, now: Clock): Promise<PaidCallOutcome | null> {
  const targetHost = call.check.targetHost?.(input) ?? null;
  if (targetHost === null) return null;
  const refused = await hostBudgetSpent(deps.store, targetHost, deps.config.CHECKS_PER_SITE_PER_MINUTE, now());
  return refused ? problemOutcome(refused.problem, refused.retryAfterSeconds) : null;
}

/**
 * Step 3's reads beyond the rate limits, side by side: the site's budget, and the caller's costly-failure budget
 * for an operation whose failures can be costly.
 */
async function budgetsSpent(deps: PaidCallDeps, call: PaidCall, input: unknown, keyHash: string | null, now: Clock): Promise<PaidCallOutcome | null> {
  const { config } = deps;
  const [site, costly] = await Promise.all([
    siteBudgetSpent(deps, call, input, now),
    call.check.costlyFailure
      ? costlyFailuresSpent(deps.store, costlyFailureBuckets(keyHash, call.clientIp), config.RATE_LIMIT_COSTLY_FAILURES, config.RATE_LIMIT_WINDOW_SECONDS * 1000, now())
      : null,
  ]);
  if (site) return site;
  return costly ? problemOutcome(costly.problem, costly.retryAfterSeconds) : null;
}

/** Step 6, on a costly failure: counted against the caller's budgets. The failure's own answer goes out whatever the store says. */
async function countCostly(deps: PaidCallDeps, call: PaidCall, keyHash: string | null, now: Clock): Promise<void> {
  const { config } = deps;
  deps.log?.({ event: 'costly-failure', operation: call.check.operationId });
  await countCostlyFailure(deps.store, costlyFailureBuckets(keyHash, call.clientIp), config.RATE_LIMIT_COSTLY_FAILURES, config.RATE_LIMIT_WINDOW_SECONDS * 1000, now()).catch(
    (e: unknown) => deps.log?.({ event: 'costly-failure-count-failed', operation: call.check.operationId, error: String(e) }),
  );
}

/**
 * Step 6's first half: an admitted, paid-for check counts against its site's budget and its caller's share of it;
 * over either, released and 429.
 */
async function spendSiteBudget(deps: PaidCallDeps, call: PaidCall, input: unknown, owner: string, now: Clock, abandon: () => Promise<void>): Promise<PaidCallOutcome | null> {
  const targetHost = call.check.targetHost?.(input) ?? null;
  if (targetHost === null) return null;
  const refused = await spendHostBudget(deps.store, targetHost, owner, deps.config.CHECKS_PER_SITE_PER_MINUTE, now()).catch(async (e) => {
    await abandon();
    throw e;
  });
  if (!refused) return null;
  await abandon();
  return problemOutcome(refused.problem, refused.retryAfterSeconds);
}

/** A failed check of a site that never answered: given back to the site's budget; true when the check has a site. */
async function returnSiteBudget(deps: PaidCallDeps, call: PaidCall, input: unknown, owner: string, now: Clock): Promise<boolean> {
  const targetHost = call.check.targetHost?.(input) ?? null;
  if (targetHost === null) return false;
  await returnHostBudget(deps.store, targetHost, owner, now()).catch((e: unknown) =>
    deps.log?.({ event: 'site-budget-return-failed', operation: call.check.operationId, error: String(e) }),
  );
  return true;
}

/** Step 5's claim: marks the caller's Idempotency-Key in flight, or answers with the record another request made first. */
async function claimIdempotencyKey(deps: PaidCallDeps, call: PaidCall, admitted: Admitted, now: Clock): Promise<PaidCallOutcome | null> {
  if (call.idempotencyKey === null) return null;
  const claimed = await deps.store.beginIdempotent(admitted.scope, admitted.fingerprint, now(), IN_FLIGHT_TTL_MS).catch(async (e) => {
    await releasePayment(deps.store, admitted);
    throw e;
  });
  if (!claimed) return null;
  // Another request took the key between our look and our claim.
  await releasePayment(deps.store, admitted);
  return idempotentAnswer(deps.store, claimed, admitted.fingerprint, now());
}

/** Gives a held prepaid call back (a credential is simply never settled). */
async function releasePayment(store: Store, admitted: Admitted): Promise<void> {
  if (admitted.payment.kind === 'credits') await releaseCall(store, admitted.payment.usageId).catch(() => false);
}

/** Requests a check sends any one domain, or any one address, a minute when the deps' config does not say (lib/config.ts's default). */
const DEFAULT_OUTBOUND_PER_MINUTE = 120;
/** The longest a check's work may run, whoever waits for it. */
const WORK_DEADLINE_MS = 60_000;

/** How far a check's work got: whether it sent anyone a request, and whether the checked site answered. */
interface WorkProgress {
  reached: boolean;
  siteAnswered: boolean;
}

/**
 * The signal a check's work runs under: the deadline and the call's hard stop (a shutdown) always; the caller
 * going away only while the work has sent nobody a request.
 */
function workSignal(call: PaidCall, progress: WorkProgress): AbortSignal {
  const stops = [AbortSignal.timeout(WORK_DEADLINE_MS), ...(call.signal ? [call.signal()] : [])];
  const departure = call.departure?.();
  if (!departure) return AbortSignal.any(stops);
  const left = new AbortController();
  const onLeave = () => {
    if (!progress.reached) left.abort(departure.reason);
  };
  if (departure.aborted) onLeave();
  else departure.addEventListener('abort', onLeave, { once: true });
  return AbortSignal.any([...stops, left.signal]);
}

/** Step 6: the operation's work; its signal is built only if the work reads it. */
function runOperation(deps: PaidCallDeps, call: PaidCall, input: unknown, now: Clock, owner: string, progress: WorkProgress): Promise<Record<string, unknown>> {
  let signal: AbortSignal | undefined;
  const limits = {
    domain: deps.config.OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE ?? DEFAULT_OUTBOUND_PER_MINUTE,
    address: deps.config.OUTBOUND_REQUESTS_PER_ADDRESS_PER_MINUTE ?? DEFAULT_OUTBOUND_PER_MINUTE,
  };
  const context = {
    now: new Date(now()),
    // Every request a check sends is counted at its domain and at its address in the store, across checks and
    // instances. The address is asked last, just before the request goes: once one is admitted, the work has
    // reached someone and no longer stops for a caller who leaves.
    spendOutbound: async (target: { kind: 'domain' | 'address'; key: string }) => {
      const hit = await spendOutbound(deps.store, target, limits, now());
      if (hit.allowed && target.kind === 'address') progress.reached = true;
      return hit;
    },
    siteAnswered: () => {
      progress.siteAnswered = true;
    },
    owner,
    records: deps.store,
    get signal() {
      return (signal ??= workSignal(call, progress));
    },
  };
  const started = performance.now();
  const ran = () => deps.observer?.ran(call.check, (performance.now() - started) / 1000);
  return call.check.run(input, context).finally(ran);
}

/** The answer of a fulfilled call: its body, serialised once, and the record kept for replays. */
function fulfilledBody(call: PaidCall, admitted: Admitted, reference: Record<string, string>, result: Record<string, unknown>) {
  const body = paidBody(call.check.service, admitted.idempotencyKey, reference, result);
  // Serialised once: the same text is stored for replays and sent now (a part the check reuses, once per process).
  return { body, bodyText: jsonText(body) };
}

/**
 * Step 7 for a prepaid call, in one store step: the held call committed, its report kept, its answer kept for
 * replays (naming the report, which holds the body, so the body is stored once) and the calls left counted.
 */
async function chargeCredits(deps: PaidCallDeps, call: PaidCall, input: unknown, admitted: Admitted, usageId: string, result: Record<string, unknown>, now: Clock): Promise<PaidCallOutcome> {
  const { check } = call;
  const reference = { creditsUsage: usageId };
  const { body, bodyText } = fulfilledBody(call, admitted, reference, result);
  const keyHash = admitted.keyHash!;
  const kept = reportOf(deps, check, keyHash, usageId, input, body, bodyText, now);
  // A replay names the same report and never stores a second. A record may take its body from the report only
  // when the report outlives it; otherwise it keeps its own copy.
  const record =
    kept && kept.ttlMs >= REPLAY_TTL_MS ? writeReportReplayRecord(NO_RECEIPT, kept.report.id) : writeReplayRecord(bodyText, NO_RECEIPT, kept?.report.id ?? null);
  const answer = { scope: admitted.scope, fingerprint: admitted.fingerprint, response: record, ttlMs: REPLAY_TTL_MS };
  const finished = await finishThroughOutage(deps.store, usageId, now, answer, kept ?? undefined);
  let reportId = kept?.report.id ?? null;
  if (finished === 'unconfirmed') {
    // The store never confirmed the commit: deliver the finished work. If the commit did land, the caller got what
    // it paid for; if not, the hold lapses and the call returns to the key. Never "charged, told nothing was".
    deps.log?.({ event: 'commit-unconfirmed', operation: check.operationId, usage: usageId, key: call.bearerKey ? maskKey(call.bearerKey) : null });
    // Whether the report and the answer were kept with it is as unknown: keep each on its own (the report under the
    // same id, so a step that did land is only written again), the answer with its own copy of the body, as for a credential.
    reportId = kept ? await putKeptReport(deps, check, kept, now) : null;
    await storeAnswer(deps, call, admitted, writeReplayRecord(bodyText, NO_RECEIPT, reportId), now);
  } else if (finished.commit === 'lost') {
    // The hold timed out and the key has no call left: the work is done, so deliver it uncharged rather than fail it.
    deps.log?.({ event: 'reservation-lost', operation: check.operationId, usage: usageId, key: call.bearerKey ? maskKey(call.bearerKey) : null });
  }
  deps.log?.({ event: 'fulfilled', operation: check.operationId, ...reference });
  const creditsRemaining = finished === 'unconfirmed' ? null : finished.callsLeft;
  return { kind: 'fulfilled', body, bodyText, receipt: NO_RECEIPT, prepaid: { creditsRemaining, reportId } };
}

/** Calls left on a key; null when the store cannot say (the answer is already paid for and goes out regardless). */
async function callsLeft(store: Store, keyHash: string, now: number): Promise<number | null> {
  return (await balance(store, keyHash, now).catch(() => null))?.callsLeft ?? null;
}

/** A replay to a key holder: the report it stored then, and the calls left now. */
async function withBalance(store: Store, keyHash: string, answer: PaidCallOutcome, now: number): Promise<PaidCallOutcome> {
  if (answer.kind !== 'replayed') return answer;
  return { ...answer, prepaid: { creditsRemaining: await callsLeft(store, keyHash, now), reportId: answer.prepaid?.reportId ?? null } };
}

/** Step 7 for a credential: settle it, then keep the answer for replays. */
async function settleCredential(
  deps: PaidCallDeps,
  call: PaidCall,
  input: unknown,
  admitted: Admitted,
  verified: ValidCredential,
  result: Record<string, unknown>,
  abandon: () => Promise<void>,
  now: Clock,
): Promise<PaidCallOutcome> {
  const { check } = call;
  let settled;
  try {
    settled = await verified.settle();
  } catch (error) {
    deps.observer?.settlementFailed(verified.rail, 'error');
    await abandon();
    throw error;
  }
  if (!settled.ok) {
    deps.observer?.settlementFailed(verified.rail, settled.unconfirmed ? 'unconfirmed' : settled.reason);
    if (settled.unconfirmed) {
      // The charge may still complete: keep the result for the payer's retry before freeing the key.
      await recordUnconfirmed(deps.store, {
        operation: check.operationId,
        scope: admitted.scope,
        fingerprint: admitted.fingerprint,
        idempotencyKey: admitted.idempotencyKey,
        trace: settled.unconfirmed,
        response: { headers: {}, service: check.service, result },
        recordedAt: now(),
        status: 'pending',
      }).catch((e) => deps.log?.({ event: 'settlement-record-failed', operation: check.operationId, error: String(e) }));
      deps.log?.({ event: 'settlement-unconfirmed', operation: check.operationId, rail: settled.unconfirmed.rail });
      await abandon();
      return refusedPayment({ ...settled, problem: { ...settled.problem, idempotencyKey: admitted.idempotencyKey } });
    }
    await abandon();
    return refusedPayment(settled);
  }
  const reference = { paymentIntent: settled.reference };
  const { body, bodyText } = fulfilledBody(call, admitted, reference, result);
  // A wallet keeps its report, readable later with a SIGN-IN-WITH-X from the same address; the id rides in the replay record.
  const reportId = admitted.wallet ? await keepReport(deps, check, admitted.wallet, settled.reference, input, body, bodyText, now) : null;
  // The digest of an x402 payment is kept with its answer, so a resend of those exact bytes finds it (resentPayment).
  const digest = call.credential?.scheme === 'x402' ? (signedX402Payment(call.credential.signature)?.digest ?? null) : null;
  await storeAnswer(deps, call, admitted, writeReplayRecord(bodyText, settled.receipt, reportId, digest), now);
  deps.log?.({ event: 'fulfilled', operation: check.operationId, ...reference });
  const fulfilled: PaidCallOutcome = { kind: 'fulfilled', body, bodyText, receipt: settled.receipt };
  return admitted.wallet ? { ...fulfilled, prepaid: { creditsRemaining: null, reportId } } : fulfilled;
}

/** The wallet behind a verified payer (`evm:<chainId>:<address>`) as its report owner; null for a card. */
function walletOfPayer(payer: string | null): string | null {
  const address = /^evm:\d+:(0x[0-9a-fA-F]{40})$/.exec(payer ?? '')?.[1];
  return address ? walletOwner(address) : null;
}

/** A prepaid call's report, to keep in its last store step; null when it cannot be made (the work is delivered and paid for regardless). */
function reportOf(deps: PaidCallDeps, check: CheckEntry, owner: string, paidWith: string, input: unknown, body: unknown, bodyText: string, now: Clock): KeptReport | null {
  try {
    return reportToKeep({ keyHash: owner, check, creditsUsage: paidWith, input, body, bodyText }, now(), deps.config.REPORT_RETENTION_DAYS);
  } catch (e) {
    deps.log?.({ event: 'report-store-failed', operation: check.operationId, error: String(e) });
    return null;
  }
}

/** Keeps a report made by `reportOf` on its own; its id, or null when the store cannot keep it. */
function putKeptReport(deps: PaidCallDeps, check: CheckEntry, kept: KeptReport, now: Clock): Promise<string | null> {
  return deps.store.putReport(kept.report, now(), kept.ttlMs).then(
    () => kept.report.id,
    (e: unknown) => {
      deps.log?.({ event: 'report-store-failed', operation: check.operationId, error: String(e) });
      return null;
    },
  );
}

/** Stores a paid call's report for its owner; the work is delivered and paid for, so a report the store cannot keep only goes unsaid. */
function keepReport(deps: PaidCallDeps, check: CheckEntry, owner: string, paidWith: string, input: unknown, body: unknown, bodyText: string, now: Clock): Promise<string | null> {
  return saveReport(deps.store, { keyHash: owner, check, creditsUsage: paidWith, input, body, bodyText }, now(), deps.config.REPORT_RETENTION_DAYS).catch((e: unknown) => {
    deps.log?.({ event: 'report-store-failed', operation: check.operationId, error: String(e) });
    return null;
  });
}

/** Keeps a fulfilled call's answer for replays; a store that fails here costs the replay, never the answer. */
async function storeAnswer(deps: PaidCallDeps, call: PaidCall, admitted: Admitted, record: string, now: Clock): Promise<void> {
  await deps.store
    .completeIdempotent(admitted.scope, admitted.fingerprint, record, now(), REPLAY_TTL_MS)
    .catch((e) => deps.log?.({ event: 'idempotency-store-failed', operation: call.check.operationId, error: String(e) }));
}

/** How long, in all, a finished call waits for the store to confirm its commit before it is delivered unconfirmed. */
const COMMIT_RETRY_DELAYS_MS = [250, 500, 1_000, 2_000, 3_000, 4_000];

/**
 * Finishes a reserved call (`Store.finishReservation`), retrying through a short store outage. The work is already
 * done, and a store that went away mid-command may have applied the commit without answering; answering 503
 * "nothing was charged" then would be false. Committing is idempotent (`already` on a second try), so retrying is safe.
 */
async function finishThroughOutage(store: Store, usageId: string, now: Clock, answer: IdempotentAnswer, report?: KeptReport): Promise<FinishedCall | 'unconfirmed'> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await store.finishReservation(usageId, now(), answer, report);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      if (attempt >= COMMIT_RETRY_DELAYS_MS.length) return 'unconfirmed';
      await new Promise((resolve) => setTimeout(resolve, COMMIT_RETRY_DELAYS_MS[attempt]));
    }
  }
}

async function idempotentAnswer(store: Store, record: { state: 'in-flight' | 'done'; fingerprint: string; response?: string }, fingerprint: string, now: number): Promise<PaidCallOutcome> {
  if (record.fingerprint !== fingerprint) {
    return problemOutcome(problem('idempotency-conflict', 'This Idempotency-Key was already used with a different request body. Use a new key for a new request.'));
  }
  if (record.state === 'in-flight' || !record.response) {
    return problemOutcome(problem('idempotency-in-flight', 'A request with this Idempotency-Key is still running. Retry once it has finished.'), 2);
  }
  const replay = readReplayRecord(record.response);
  const { receipt, reportId } = replay;
  const body = replay.bodyInReport ? await reportBody(store, reportId!, now) : replay.body;
  return reportId ? { kind: 'replayed', body, receipt, prepaid: { creditsRemaining: null, reportId } } : { kind: 'replayed', body, receipt };
}

/**
 * The body a replay record keeps in its report. The report was kept in the record's own store step and outlives it,
 * so a live record without its report means the store lost data: an error, never an answer made up.
 */
async function reportBody(store: Store, reportId: string, now: number): Promise<unknown> {
  const report = await store.getReport(reportId, now);
  if (!report) throw new Error(`a replay record names report ${reportId}, which the store does not hold`);
  return JSON.parse(report.body) as unknown;
}

function processorUnavailable(): PaidCallOutcome {
  return problemOutcome(
    problem('payments-unavailable', 'The payment processor cannot be reached right now. Nothing was charged; try again shortly.', { reason: 'processor-unavailable' }),
    5,
  );
}

async function paymentRequired(rails: PaymentRails, check: CheckEntry, body: Problem): Promise<PaidCallOutcome> {
  const challenge = await rails.challenge(check.path, body);
  return { kind: 'payment-required', problem: challenge.problem, challenge };
}

/** The retry of a call whose charge is still unconfirmed: neither a second charge nor the result yet. */
function settlementStillUnconfirmed(idempotencyKey: string): PaidCallOutcome {
  return problemOutcome(
    problem(
      'payments-unavailable',
      'The charge for the earlier request with this Idempotency-Key is not confirmed yet. This request was not charged. Retry shortly with the same Idempotency-Key and a new credential.',
      { reason: 'settlement-unconfirmed', idempotencyKey },
    ),
    10,
  );
}

async function creditsExhausted(deps: PaidCallDeps, call: PaidCall): Promise<PaidCallOutcome> {
  const links = { plans: `${deps.config.APP_URL}/api/agent/credits`, purchase: `${deps.config.APP_URL}/pricing` };
  if (deps.rails) {
    return paymentRequired(
      deps.rails,
      call.check,
      problem('credits-exhausted', 'This credits key has no calls left. Buy more at /pricing, or pay for this call with one of the offered challenges.', links),
    );
  }
  return problemOutcome(
    problem('credits-exhausted-no-rails', 'This credits key has no calls left. Buy more at /pricing; machine payments are not available right now.', links),
    60,
  );
}
