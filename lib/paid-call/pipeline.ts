import crypto from 'node:crypto';
import type { Config } from '@/lib/config';
import type { Store } from '@/lib/store';
import type { CommitResult } from '@/lib/store/types';
import { StoreUnavailableError } from '@/lib/store/types';
import type { PaidOperation } from '@/lib/operations';
import { sha256Hex } from '@/lib/canonical-json';
import { INTERNAL_ERROR, ProblemError, knownProblem, problem, type Problem } from '@/lib/problems';
import { parseBody } from '@/lib/http/validation';
import { enforceRateLimit } from '@/lib/http/rate-limit';
import { authenticateKey, balance, commitCall, releaseCall, reserveCall } from '@/lib/credits/ledger';
import { reportOperationOf, saveReport } from '@/lib/reports/store';
import { maskKey } from '@/lib/credits/keys';
import { PRICE_USD } from '@/lib/price';
import type { PaymentRails } from '@/lib/payments/rails';
import type { PaymentChallenge } from '@/lib/payments/challenge';
import type { PaymentCredential, PaymentFailure, ValidCredential } from '@/lib/payments/verify';
import { findUnconfirmed, paidBody, reconcileOne, recordUnconfirmed } from '@/lib/payments/settlements';

// The paid-call pipeline: one for every paid operation, over REST and MCP. It speaks neither HTTP nor
// JSON-RPC: it takes the call as data and returns an outcome; lib/paid-call/http.ts and mcp.ts render it.
//   1. validate the body            → problem 400, no challenge
//   2. validate the Idempotency-Key → problem 400, no challenge
//   3. rate limits (IP, then key)   → problem 429 with a retry delay
//   4. pay: reserve a prepaid call, or verify a payment credential without settling it,
//      or answer payment-required with the challenges (problem 503 when no rail is live)
//   5. idempotent replay / conflict → replayed, or problem 409. Records are scoped to whoever pays: the
//      credits key, or the verified payer of a credential (gap G3). A key holder's replay is looked up
//      before its reservation; a credential's only after it verified, and the credential is then claimed
//      but never settled.
//   6. run the operation (work that can fail runs here, before any charge)
//   7. commit the call / settle the payment, store the response for replays: fulfilled. A settlement
//      that ends without an answer is recorded for the reconciler (gap G1, lib/payments/settlements.ts).

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/;
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-flight marker outlives the longest run; a crashed request frees its key after this. */
const IN_FLIGHT_TTL_MS = 3 * 60 * 1000;

/** What a call paid with a credits key adds to its answer (headers on REST, `_meta` over MCP). */
export interface PrepaidFacts {
  /** Calls left on the key after this call (a replay: left now); null when the store could not say. */
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
      /** The payment's receipt as mppx writes it (Payment-Receipt, PAYMENT-RESPONSE); empty for a prepaid call. */
      receipt: Record<string, string>;
      /** Present when a credits key paid. */
      prepaid?: PrepaidFacts;
    }
  | { kind: 'replayed'; body: unknown; receipt: Record<string, string>; prepaid?: PrepaidFacts }
  | { kind: 'problem'; problem: Problem; retryAfterSeconds?: number }
  /** Pay first: the problem says why (unpaid, refused credential, no calls left), the challenge offers the terms. */
  | { kind: 'payment-required'; problem: Problem; challenge: PaymentChallenge };

export interface PaidCallDeps {
  config: Pick<
    Config,
    'APP_URL' | 'CREDITS_KEY_SECRET' | 'RATE_LIMIT_PER_IP' | 'RATE_LIMIT_PER_KEY' | 'RATE_LIMIT_WINDOW_SECONDS' | 'CREDITS_RESERVATION_HOLD_SECONDS' | 'REPORT_RETENTION_DAYS'
  >;
  store: Store;
  rails: PaymentRails | null;
  now?: () => Date;
  log?: (event: Record<string, unknown>) => void;
}

export interface PaidCall {
  operation: PaidOperation;
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
   * Builds the signal that cancels the work. Called only if the operation reads its signal: a pure
   * check never does, and materialising a request's AbortSignal costs measurable time on every call.
   */
  signal?: () => AbortSignal;
}

/** The headers stored with a result for replays (the stored record keeps the shape earlier releases wrote). */
const STORED_JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

function problemOutcome(p: Problem, retryAfterSeconds?: number): PaidCallOutcome {
  return retryAfterSeconds === undefined ? { kind: 'problem', problem: p } : { kind: 'problem', problem: p, retryAfterSeconds };
}

/** A refused credential: a 402 with its fresh challenge, or a 503 to retry later. */
function refusedPayment(failure: PaymentFailure): PaidCallOutcome {
  return failure.challenge
    ? { kind: 'payment-required', problem: failure.problem, challenge: failure.challenge }
    : problemOutcome(failure.problem, failure.retryAfterSeconds);
}

/**
 * Runs one paid call through the seven steps and says what became of it. Never throws: every failure is
 * a `problem` outcome (nothing charged unless the outcome is fulfilled).
 * @example
 *   const outcome = await runPaidCall(getRuntime(), {
 *     operation: readinessOperation, body, idempotencyKey: null, idempotencyKeySource: 'header:Idempotency-Key',
 *     clientIp: '203.0.113.7', bearerKey: null, credential: null,
 *   })
 *   if (outcome.kind === 'payment-required') outcome.challenge.challenges // the terms to pay
 */
export async function runPaidCall(deps: PaidCallDeps, call: PaidCall): Promise<PaidCallOutcome> {
  try {
    return await pipeline(deps, call);
  } catch (error) {
    if (error instanceof StoreUnavailableError) deps.log?.({ event: 'store-unavailable', operation: call.operation.id });
    const known = knownProblem(error);
    if (known) {
      const retryAfter = known.headers['Retry-After'];
      return problemOutcome(known.problem, retryAfter === undefined ? undefined : Number(retryAfter));
    }
    deps.log?.({ event: 'internal-error', operation: call.operation.id, error: error instanceof Error ? error.message : String(error) });
    return problemOutcome(INTERNAL_ERROR.problem);
  }
}

async function pipeline(deps: PaidCallDeps, call: PaidCall): Promise<PaidCallOutcome> {
  const { store, config } = deps;
  const now = () => deps.now?.() ?? new Date();
  const { operation } = call;

  // 1-2: nothing about payment is said to a malformed request.
  const input = parseBody(operation.input, call.body);
  operation.precheck?.(input);
  if (call.idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(call.idempotencyKey)) {
    throw new ProblemError('invalid-idempotency-key', 'Idempotency-Key must be 8-128 characters of A-Z a-z 0-9 . _ : - and start with a letter or digit.', {
      errors: [{ path: call.idempotencyKeySource, message: 'does not match ^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$' }],
    });
  }

  // 3: rate limits.
  const windowMs = config.RATE_LIMIT_WINDOW_SECONDS * 1000;
  await enforceRateLimit(store, `ip:${call.clientIp}`, config.RATE_LIMIT_PER_IP, windowMs, now().getTime());
  const keyHash = call.keyHash ?? (call.bearerKey === null ? null : await authenticateKey(store, config.CREDITS_KEY_SECRET, call.bearerKey));
  if (keyHash) await enforceRateLimit(store, `key:${keyHash}`, config.RATE_LIMIT_PER_KEY, windowMs, now().getTime());

  // 4-5: payment, and the replay lookup in the payer's own scope.
  const idempotencyKey = call.idempotencyKey ?? `auto_${crypto.randomBytes(12).toString('base64url')}`;
  // zod rebuilds the parsed body in schema order, so equal bodies serialise identically whatever order the client sent.
  const fingerprint = sha256Hex(`${operation.id}\n${JSON.stringify(input)}`);
  let scope: string;
  let payment: { kind: 'credits'; usageId: string } | { kind: 'rail'; verified: ValidCredential };
  if (keyHash) {
    scope = `${operation.id}:${keyHash}:${idempotencyKey}`;
    if (call.idempotencyKey !== null) {
      const existing = await store.getIdempotent(scope, now().getTime());
      if (existing) return withBalance(store, keyHash, idempotentAnswer(existing, fingerprint), now().getTime());
    }
    const usageId = await reserveCall(store, keyHash, now().getTime(), config.CREDITS_RESERVATION_HOLD_SECONDS * 1000);
    if (!usageId) return creditsExhausted(deps, call);
    payment = { kind: 'credits', usageId };
  } else if (deps.rails && call.credential) {
    const verified = await deps.rails.verify(call.credential, operation.path);
    if (!verified.ok) return refusedPayment(verified);
    payment = { kind: 'rail', verified };
    // The credential is now claimed: whatever follows, it is never settled unless this call settles it.
    const payer = await verified.payer().catch(() => undefined);
    if (payer === undefined) return processorUnavailable();
    // A payer Stripe shows no owner for cannot prove it is the same one later: its calls are never replayed.
    scope = `${operation.id}:payer:${sha256Hex(payer ?? `unbound:${crypto.randomUUID()}`)}:${idempotencyKey}`;
    if (call.idempotencyKey !== null) {
      const unconfirmed = await findUnconfirmed(store, scope, now().getTime());
      if (unconfirmed) {
        const outcome = await reconcileOne(store, deps.rails.settlements, unconfirmed, now().getTime(), deps.log).catch(() => ({ status: 'pending' as const }));
        if (outcome.status === 'pending') return settlementStillUnconfirmed(idempotencyKey);
      }
      const existing = await store.getIdempotent(scope, now().getTime());
      if (existing) return idempotentAnswer(existing, fingerprint);
    }
  } else if (deps.rails) {
    // No key and no credential: the same 402 whatever Idempotency-Key came with it (nothing about the key is told).
    return paymentRequired(deps.rails, operation, problem('payment-required', `${operation.service} costs ${PRICE_USD} USD. Pay with one of the offered challenges, or send a prepaid credits key as Authorization: Bearer.`, { plans: `${config.APP_URL}/api/agent/credits` }));
  } else {
    return problemOutcome(
      problem('payments-unavailable', 'Machine payments are not available right now. Use a prepaid credits key (Authorization: Bearer) or retry later.', {
        plans: `${config.APP_URL}/api/agent/credits`,
      }),
      60,
    );
  }

  const releasePayment = async () => {
    if (payment.kind === 'credits') await releaseCall(store, payment.usageId).catch(() => false);
  };

  // A key we generated ourselves is known to no other request yet, so it needs no in-flight claim.
  const claimed =
    call.idempotencyKey === null
      ? null
      : await store.beginIdempotent(scope, fingerprint, now().getTime(), IN_FLIGHT_TTL_MS).catch(async (e) => {
          await releasePayment();
          throw e;
        });
  if (claimed) {
    // Another request took the key between our look and our claim.
    await releasePayment();
    const answer = idempotentAnswer(claimed, fingerprint);
    return keyHash ? withBalance(store, keyHash, answer, now().getTime()) : answer;
  }
  const abandon = async () => {
    await releasePayment();
    await store.abandonIdempotent(scope, fingerprint).catch(() => {});
  };

  // 6: run.
  let result: Record<string, unknown>;
  let signal: AbortSignal | undefined;
  const context = {
    now: now(),
    get signal() {
      return (signal ??= call.signal?.() ?? AbortSignal.timeout(60_000));
    },
  };
  try {
    result = await operation.run(input, context);
  } catch (error) {
    await abandon();
    throw error;
  }

  // 7: charge, then answer.
  let receipt: Record<string, string> = {};
  let reference: Record<string, string>;
  let prepaid: PrepaidFacts | undefined;
  if (payment.kind === 'credits') {
    const outcome = await commitThroughOutage(store, payment.usageId, () => now().getTime());
    if (outcome === 'unconfirmed') {
      // The store never confirmed the commit: deliver the finished work. If the commit did land, the caller got what
      // it paid for; if not, the hold lapses and the call returns to the key. Never "charged, told nothing was".
      deps.log?.({ event: 'commit-unconfirmed', operation: operation.id, usage: payment.usageId, key: call.bearerKey ? maskKey(call.bearerKey) : null });
    } else if (outcome === 'lost') {
      // The hold timed out and the key has no call left: the work is done, so deliver it uncharged rather than fail it.
      deps.log?.({ event: 'reservation-lost', operation: operation.id, usage: payment.usageId, key: call.bearerKey ? maskKey(call.bearerKey) : null });
    }
    reference = { creditsUsage: payment.usageId };
    prepaid = { creditsRemaining: null, reportId: null };
  } else {
    let settled;
    try {
      settled = await payment.verified.settle();
    } catch (error) {
      await abandon();
      throw error;
    }
    if (!settled.ok) {
      if (settled.unconfirmed) {
        // The charge may still complete: keep the result for the payer's retry before freeing the key.
        await recordUnconfirmed(store, {
          operation: operation.id,
          scope,
          fingerprint,
          idempotencyKey,
          trace: settled.unconfirmed,
          response: { headers: { ...STORED_JSON_HEADERS }, service: operation.service, result },
          recordedAt: now().getTime(),
          status: 'pending',
        }).catch((e) => deps.log?.({ event: 'settlement-record-failed', operation: operation.id, error: String(e) }));
        deps.log?.({ event: 'settlement-unconfirmed', operation: operation.id, rail: settled.unconfirmed.rail });
        await abandon();
        return refusedPayment({ ...settled, problem: { ...settled.problem, idempotencyKey } });
      }
      await abandon();
      return refusedPayment(settled);
    }
    receipt = settled.headers;
    reference = { paymentIntent: settled.reference };
  }

  const body = paidBody(operation.service, idempotencyKey, reference, result);
  // Serialised once: the same text is stored for replays and sent now.
  const bodyText = JSON.stringify(body);
  if (prepaid && keyHash && payment.kind === 'credits') {
    // The work is delivered and paid for: a report or balance the store cannot give only goes unsaid.
    const at = now().getTime();
    const usageId = payment.usageId;
    prepaid.reportId = await Promise.resolve()
      .then(() => saveReport(store, { keyHash, operation: reportOperationOf(operation.path), creditsUsage: usageId, body, bodyText }, at, config.REPORT_RETENTION_DAYS))
      .catch((e: unknown) => {
        deps.log?.({ event: 'report-store-failed', operation: operation.id, error: String(e) });
        return null;
      });
    prepaid.creditsRemaining = await callsLeft(store, keyHash, at);
  }
  const stored = JSON.stringify({ ...STORED_JSON_HEADERS, ...receipt });
  // The report id rides with the replay record, so a replay links the same report and never stores a second.
  const report = prepaid?.reportId ? `,"report":${JSON.stringify(prepaid.reportId)}` : '';
  await store
    .completeIdempotent(scope, fingerprint, `{"headers":${stored},"body":${bodyText}${report}}`, now().getTime(), IDEMPOTENCY_TTL_MS)
    .catch((e) => deps.log?.({ event: 'idempotency-store-failed', operation: operation.id, error: String(e) }));
  deps.log?.({ event: 'fulfilled', operation: operation.id, ...reference });
  return prepaid ? { kind: 'fulfilled', body, bodyText, receipt, prepaid } : { kind: 'fulfilled', body, bodyText, receipt };
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

/** How long, in all, a finished call waits for the store to confirm its commit before it is delivered unconfirmed. */
const COMMIT_RETRY_DELAYS_MS = [250, 500, 1_000, 2_000, 3_000, 4_000];

/**
 * Commits a reserved call, retrying through a short store outage. The work is already done, and a store that
 * went away mid-command may have applied the commit without answering; answering 503 "nothing was charged" then
 * would be false. Committing is idempotent (`already` on a second try), so retrying is safe.
 */
async function commitThroughOutage(store: Store, usageId: string, now: () => number): Promise<CommitResult | 'unconfirmed'> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await commitCall(store, usageId, now());
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      if (attempt >= COMMIT_RETRY_DELAYS_MS.length) return 'unconfirmed';
      await new Promise((resolve) => setTimeout(resolve, COMMIT_RETRY_DELAYS_MS[attempt]));
    }
  }
}

function idempotentAnswer(record: { state: 'in-flight' | 'done'; fingerprint: string; response?: string }, fingerprint: string): PaidCallOutcome {
  if (record.fingerprint !== fingerprint) {
    return problemOutcome(problem('idempotency-conflict', 'This Idempotency-Key was already used with a different request body. Use a new key for a new request.'));
  }
  if (record.state === 'in-flight' || !record.response) {
    return problemOutcome(problem('idempotency-in-flight', 'A request with this Idempotency-Key is still running. Retry once it has finished.'), 2);
  }
  const stored = JSON.parse(record.response) as { headers: Record<string, string>; body: unknown; report?: string };
  // Stored records carry the JSON headers too; only the payment's receipt is part of the outcome.
  const { 'Content-Type': _type, 'Cache-Control': _cache, ...receipt } = stored.headers;
  return stored.report
    ? { kind: 'replayed', body: stored.body, receipt, prepaid: { creditsRemaining: null, reportId: stored.report } }
    : { kind: 'replayed', body: stored.body, receipt };
}

function processorUnavailable(): PaidCallOutcome {
  return problemOutcome(
    problem('payments-unavailable', 'The payment processor cannot be reached right now. Nothing was charged; try again shortly.', { reason: 'processor-unavailable' }),
    5,
  );
}

async function paymentRequired(rails: PaymentRails, operation: PaidOperation, body: Problem): Promise<PaidCallOutcome> {
  const challenge = await rails.challenge(operation.path, body);
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
      call.operation,
      problem('credits-exhausted', 'This credits key has no calls left. Buy more at /pricing, or pay for this call with one of the offered challenges.', links),
    );
  }
  return problemOutcome(
    problem('credits-exhausted-no-rails', 'This credits key has no calls left. Buy more at /pricing; machine payments are not available right now.', links),
    60,
  );
}
