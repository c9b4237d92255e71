import crypto from 'node:crypto';
import type { Config } from '@/lib/config';
import type { Store } from '@/lib/store';
import type { CommitResult } from '@/lib/store/types';
import { StoreUnavailableError } from '@/lib/store';
import type { PaidOperation } from '@/lib/operations';
import { sha256Hex } from '@/lib/canonical-json';
import { ProblemError, problem, type Problem } from '@/lib/problems';
import { parseBody } from '@/lib/http/validation';
import { authenticateKey, commitCall, releaseCall, reserveCall } from '@/lib/credits/ledger';
import { maskKey } from '@/lib/credits/keys';
import type { SettlementTrace } from './scope';
import { findUnconfirmed, paidBody, reconcileOne, recordUnconfirmed, type SettlementProbe } from './settlements';

// The paid-call gate: one pipeline for every paid operation, over REST and MCP.
//   1. validate the body            → 400, no challenge
//   2. validate the Idempotency-Key → 400, no challenge
//   3. rate limits (IP, then key)   → 429 with Retry-After
//   4. pay: reserve a prepaid call, or verify a payment credential without settling it,
//      or answer 402 with the challenges (503 when no rail is live)
//   5. idempotent replay / conflict → stored 200 with Idempotent-Replayed, or 409. Records are scoped
//      to whoever pays: the credits key, or the verified payer of a credential (gap G3). A key holder's
//      replay is looked up before its reservation; a credential's only after it verified, and the
//      credential is then claimed but never settled.
//   6. run the operation (work that can fail runs here, before any charge)
//   7. commit the call / settle the payment, store the response for replays, reply 200. A settlement
//      that ends without an answer is recorded for the reconciler (gap G1, settlements.ts).

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/;
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-flight marker outlives the longest run; a crashed request frees its key after this. */
const IN_FLIGHT_TTL_MS = 3 * 60 * 1000;

/** What a verified, not yet settled, payment credential offers the gate. */
export interface VerifiedPayment {
  /** The verified payer (see ValidCredential.payer in verify.ts); throws when the processor cannot be asked. */
  payer(): Promise<string | null>;
  settle(): Promise<
    | { ok: true; reference: string; headers: Record<string, string> }
    | { ok: false; response: GateResponse; unconfirmed?: SettlementTrace }
  >;
}

/** The machine-payment rails (MPP card, MPP evm, x402), as the gate sees them. */
export interface PaymentRails {
  live: string[];
  /** The 402 carrying every live rail's terms, with `problem` as its body. */
  challenge(request: Request, body: Problem): Promise<GateResponse>;
  hasCredential(request: Request): boolean;
  verify(request: Request): Promise<{ ok: true; payment: VerifiedPayment } | { ok: false; response: GateResponse }>;
  /** Asks the processors what became of a settlement that ended without an answer. */
  settlements: SettlementProbe;
}

export interface GateResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** `body` already serialised, when the gate has it (saves a second JSON.stringify on the hot path). */
  bodyText?: string;
}

export interface GateDeps {
  config: Pick<Config, 'APP_URL' | 'CREDITS_KEY_SECRET' | 'RATE_LIMIT_PER_IP' | 'RATE_LIMIT_PER_KEY' | 'RATE_LIMIT_WINDOW_SECONDS' | 'CREDITS_RESERVATION_HOLD_SECONDS'>;
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
  clientIp: string;
  /** The presented prepaid key (from `Authorization: Bearer`), if any. */
  bearerKey: string | null;
  /** The original HTTP request, read by the payment rails for credentials and realm. */
  request: Request;
  /**
   * Builds the signal that cancels the work. Called only if the operation reads its signal: a pure
   * check never does, and materialising a request's AbortSignal costs measurable time on every call.
   */
  signal?: () => AbortSignal;
}

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

function problemReply(p: Problem, headers: Record<string, string> = {}): GateResponse {
  return { status: p.status, headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store', ...headers }, body: p };
}

export async function runPaidCall(deps: GateDeps, call: PaidCall): Promise<GateResponse> {
  try {
    return await gate(deps, call);
  } catch (error) {
    if (error instanceof ProblemError) return problemReply(error.problem, error.headers);
    if (error instanceof StoreUnavailableError) {
      deps.log?.({ event: 'store-unavailable', operation: call.operation.id });
      return problemReply(problem('store-unavailable', 'Our data store is not answering. Nothing was charged; retry shortly.'), { 'Retry-After': '5' });
    }
    deps.log?.({ event: 'internal-error', operation: call.operation.id, error: error instanceof Error ? error.message : String(error) });
    return problemReply(problem('internal-error', 'Something went wrong on our side. Nothing was charged.'));
  }
}

async function gate(deps: GateDeps, call: PaidCall): Promise<GateResponse> {
  const { store, config } = deps;
  const now = () => deps.now?.() ?? new Date();
  const { operation } = call;

  // 1-2: nothing about payment is said to a malformed request.
  const input = parseBody(operation.input, call.body);
  operation.precheck?.(input);
  if (call.idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(call.idempotencyKey)) {
    throw new ProblemError('invalid-idempotency-key', 'Idempotency-Key must be 8-128 characters of A-Z a-z 0-9 . _ : - and start with a letter or digit.', {
      errors: [{ path: 'header:Idempotency-Key', message: 'does not match ^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$' }],
    });
  }

  // 3: rate limits.
  const windowMs = config.RATE_LIMIT_WINDOW_SECONDS * 1000;
  await enforceRateLimit(store, `ip:${call.clientIp}`, config.RATE_LIMIT_PER_IP, windowMs, now().getTime());
  const keyHash = call.bearerKey === null ? null : await authenticateKey(store, config.CREDITS_KEY_SECRET, call.bearerKey);
  if (keyHash) await enforceRateLimit(store, `key:${keyHash}`, config.RATE_LIMIT_PER_KEY, windowMs, now().getTime());

  // 4-5: payment, and the replay lookup in the payer's own scope.
  const idempotencyKey = call.idempotencyKey ?? `auto_${crypto.randomBytes(12).toString('base64url')}`;
  // zod rebuilds the parsed body in schema order, so equal bodies serialise identically whatever order the client sent.
  const fingerprint = sha256Hex(`${operation.id}\n${JSON.stringify(input)}`);
  let scope: string;
  let payment: { kind: 'credits'; usageId: string } | { kind: 'rail'; verified: VerifiedPayment };
  if (keyHash) {
    scope = `${operation.id}:${keyHash}:${idempotencyKey}`;
    if (call.idempotencyKey !== null) {
      const existing = await store.getIdempotent(scope, now().getTime());
      if (existing) return idempotentAnswer(existing, fingerprint);
    }
    const usageId = await reserveCall(store, keyHash, now().getTime(), config.CREDITS_RESERVATION_HOLD_SECONDS * 1000);
    if (!usageId) return creditsExhausted(deps, call);
    payment = { kind: 'credits', usageId };
  } else if (deps.rails && deps.rails.hasCredential(call.request)) {
    const verified = await deps.rails.verify(call.request);
    if (!verified.ok) return verified.response;
    payment = { kind: 'rail', verified: verified.payment };
    // The credential is now claimed: whatever follows, it is never settled unless this call settles it.
    const payer = await verified.payment.payer().catch(() => undefined);
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
    return deps.rails.challenge(call.request, problem('payment-required', `${operation.service} costs 1.00 USD. Pay with one of the offered challenges, or send a prepaid credits key as Authorization: Bearer.`, { plans: `${config.APP_URL}/api/agent/credits` }));
  } else {
    return problemReply(
      problem('payments-unavailable', 'Machine payments are not available right now. Use a prepaid credits key (Authorization: Bearer) or retry later.', {
        plans: `${config.APP_URL}/api/agent/credits`,
      }),
      { 'Retry-After': '60' },
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
    return idempotentAnswer(claimed, fingerprint);
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
  const headers: Record<string, string> = { ...JSON_HEADERS };
  let reference: Record<string, string>;
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
          response: { headers, service: operation.service, result },
          recordedAt: now().getTime(),
          status: 'pending',
        }).catch((e) => deps.log?.({ event: 'settlement-record-failed', operation: operation.id, error: String(e) }));
        deps.log?.({ event: 'settlement-unconfirmed', operation: operation.id, rail: settled.unconfirmed.rail });
        await abandon();
        return withIdempotencyKey(settled.response, idempotencyKey);
      }
      await abandon();
      return settled.response;
    }
    Object.assign(headers, settled.headers);
    reference = { paymentIntent: settled.reference };
  }

  const body = paidBody(operation.service, idempotencyKey, reference, result);
  // Serialised once: the same text is stored for replays and sent now.
  const bodyText = JSON.stringify(body);
  const response: GateResponse = { status: 200, headers, body, bodyText };
  await store
    .completeIdempotent(scope, fingerprint, `{"headers":${JSON.stringify(headers)},"body":${bodyText}}`, now().getTime(), IDEMPOTENCY_TTL_MS)
    .catch((e) => deps.log?.({ event: 'idempotency-store-failed', operation: operation.id, error: String(e) }));
  deps.log?.({ event: 'fulfilled', operation: operation.id, ...reference });
  return response;
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

async function enforceRateLimit(store: Store, bucket: string, limit: number, windowMs: number, now: number) {
  const hit = await store.hitRateLimit(bucket, limit, windowMs, now);
  if (!hit.allowed) {
    const seconds = Math.max(1, Math.ceil(hit.retryAfterMs / 1000));
    throw new ProblemError('rate-limited', `Too many requests; retry in ${seconds} s.`, { retryAfterSeconds: seconds }, { 'Retry-After': String(seconds) });
  }
}

function idempotentAnswer(record: { state: 'in-flight' | 'done'; fingerprint: string; response?: string }, fingerprint: string): GateResponse {
  if (record.fingerprint !== fingerprint) {
    return problemReply(problem('idempotency-conflict', 'This Idempotency-Key was already used with a different request body. Use a new key for a new request.'));
  }
  if (record.state === 'in-flight' || !record.response) {
    return problemReply(problem('idempotency-in-flight', 'A request with this Idempotency-Key is still running. Retry once it has finished.'), { 'Retry-After': '2' });
  }
  const stored = JSON.parse(record.response) as { headers: Record<string, string>; body: unknown };
  return { status: 200, headers: { ...stored.headers, 'Idempotent-Replayed': 'true' }, body: stored.body };
}

function processorUnavailable(): GateResponse {
  return problemReply(
    problem('payments-unavailable', 'The payment processor cannot be reached right now. Nothing was charged; try again shortly.', { reason: 'processor-unavailable' }),
    { 'Retry-After': '5' },
  );
}

/** The retry of a call whose charge is still unconfirmed: neither a second charge nor the result yet. */
function settlementStillUnconfirmed(idempotencyKey: string): GateResponse {
  return problemReply(
    problem(
      'payments-unavailable',
      'The charge for the earlier request with this Idempotency-Key is not confirmed yet. This request was not charged. Retry shortly with the same Idempotency-Key and a new credential.',
      { reason: 'settlement-unconfirmed', idempotencyKey },
    ),
    { 'Retry-After': '10' },
  );
}

/** The Idempotency-Key to retry with, added to a settlement-unconfirmed problem (the caller may not have sent one). */
function withIdempotencyKey(response: GateResponse, idempotencyKey: string): GateResponse {
  return { ...response, body: { ...(response.body as Record<string, unknown>), idempotencyKey } };
}

async function creditsExhausted(deps: GateDeps, call: PaidCall): Promise<GateResponse> {
  const links = { plans: `${deps.config.APP_URL}/api/agent/credits`, purchase: `${deps.config.APP_URL}/pricing` };
  if (deps.rails) {
    return deps.rails.challenge(
      call.request,
      problem('credits-exhausted', 'This credits key has no calls left. Buy more at /pricing, or pay for this call with one of the offered challenges.', links),
    );
  }
  return problemReply(
    problem('credits-exhausted-no-rails', 'This credits key has no calls left. Buy more at /pricing; machine payments are not available right now.', links),
    { 'Retry-After': '60' },
  );
}
