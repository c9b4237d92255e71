// Settlements that ended without an answer. When the facilitator or Stripe does not answer the
// settle call in time, the charge may still complete after we gave up. The gate then records the call here
// (its payer-bound idempotency scope, the result it computed, and how to find the payment: SettlementTrace),
// and answers 503 `settlement-unconfirmed`. A reconciler (a timer in the server, and `npm run ledger --
// reconcile`) asks the processor what happened:
//   - evm / x402: USDC `authorizationState(from, nonce)` on chain, and the AuthorizationUsed event for the hash;
//     an authorization still unused once `validBefore` has passed can never move money any more;
//   - card: the PaymentIntent mppx created (idempotency key `mpp_<challengeId>_<spt>`, metadata
//     `mpp_challenge_id`), found with Stripe's search.
// When the money moved, the stored result becomes the idempotency record of that scope, so the payer's retry
// (same Idempotency-Key, a new credential from the same payer) receives it without a second charge. The
// record stays, with its outcome, as the audit trail (`npm run ledger -- settlements`).
import type Stripe from 'stripe';
import { createPublicClient, http, parseAbi, parseAbiItem, type Hex } from 'viem';
import { sha256Hex } from '@/lib/canonical-json';
import { receiptOf, REPLAY_TTL_MS, writeReplayRecord } from './replay-record';
import { receiptFromHeaders } from './wire';
import type { Store } from '@/lib/store';
import type { SettlementTrace } from './scope';
import { paidBody } from '@/lib/checks/entry';

const SETTLEMENT_RECORD_PREFIX = 'settlement:';
/** Long enough for any processor to finish, and to serve as the audit trail afterwards. */
const SETTLEMENT_RECORD_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export type SettlementOutcome = { status: 'charged'; reference: string } | { status: 'not-charged' } | { status: 'pending' };

export interface UnconfirmedSettlement {
  operation: string;
  /** The payer-bound idempotency scope the result is delivered under. */
  scope: string;
  fingerprint: string;
  idempotencyKey: string;
  trace: SettlementTrace;
  /** The 200 the call would have answered, without its payment reference (added once known). */
  response: { headers: Record<string, string>; service: string; result: Record<string, unknown> };
  recordedAt: number;
  status: 'pending' | 'charged' | 'not-charged';
  resolvedAt?: number;
  reference?: string;
}

/** Asks the processors what became of a settlement; each answer is 'pending' until it is certain. */
export interface SettlementProbe {
  check(trace: SettlementTrace, recordedAt: number, now: number): Promise<SettlementOutcome>;
}

/** The store name of a scope's unconfirmed settlement (hashed: a scope holds the caller's Idempotency-Key). */
function settlementRecordName(scope: string): string {
  return `${SETTLEMENT_RECORD_PREFIX}${sha256Hex(scope)}`;
}

/**
 * Records a settlement that ended without an answer, before the in-flight idempotency marker is dropped,
 * so a retry under the same scope always finds it.
 *
 * @example
 *   await recordUnconfirmed(store, { operation: check.operationId, scope, fingerprint, idempotencyKey, trace, response, recordedAt: now, status: 'pending' })
 */
export async function recordUnconfirmed(store: Store, settlement: UnconfirmedSettlement): Promise<void> {
  await store.setRecord(settlementRecordName(settlement.scope), JSON.stringify(settlement), settlement.recordedAt, SETTLEMENT_RECORD_TTL_MS);
}

/** The unconfirmed settlement recorded under `scope`, if any. */
export async function findUnconfirmed(store: Store, scope: string, now: number): Promise<UnconfirmedSettlement | null> {
  const raw = await store.getRecord(settlementRecordName(scope), now);
  return raw === null ? null : (JSON.parse(raw) as UnconfirmedSettlement);
}

/**
 * Asks the probe about one pending settlement and records the answer: when the money moved, the result
 * becomes the scope's idempotency record (a retry replays it) and the settlement record keeps the outcome.
 *
 * @example
 *   const outcome = await reconcileOne(store, probe, settlement, Date.now(), log)   // { status: 'charged', reference: '0x…' }
 */
export async function reconcileOne(
  store: Store,
  probe: SettlementProbe,
  settlement: UnconfirmedSettlement,
  now: number,
  log?: (event: Record<string, unknown>) => void,
): Promise<SettlementOutcome> {
  if (settlement.status === 'charged') return { status: 'charged', reference: settlement.reference! };
  if (settlement.status === 'not-charged') return { status: 'not-charged' };
  const outcome = await probe.check(settlement.trace, settlement.recordedAt, now);
  if (outcome.status === 'pending') return outcome;
  if (outcome.status === 'charged') {
    const body = paidBody(settlement.response.service, settlement.idempotencyKey, { paymentIntent: outcome.reference }, settlement.response.result);
    // Replayable as long as any paid answer, from the moment the charge is known.
    const stored = writeReplayRecord(JSON.stringify(body), receiptFromHeaders(receiptOf(settlement.response.headers)), null);
    await store.completeIdempotent(settlement.scope, settlement.fingerprint, stored, now, REPLAY_TTL_MS);
  }
  const resolved: UnconfirmedSettlement = {
    ...settlement,
    status: outcome.status,
    resolvedAt: now,
    ...(outcome.status === 'charged' ? { reference: outcome.reference } : {}),
  };
  await store.setRecord(settlementRecordName(settlement.scope), JSON.stringify(resolved), now, SETTLEMENT_RECORD_TTL_MS);
  log?.({
    event: 'settlement-reconciled',
    operation: settlement.operation,
    rail: settlement.trace.rail,
    outcome: outcome.status,
    ...(outcome.status === 'charged' ? { reference: outcome.reference } : {}),
    recordedAt: new Date(settlement.recordedAt).toISOString(),
  });
  return outcome;
}

/**
 * One pass of the reconciler over every pending settlement in the store.
 *
 * @example
 *   const results = await reconcilePending(store, probe, Date.now(), console.log)
 *   // [{ name: 'settlement:…', rail: 'evm', outcome: { status: 'charged', reference: '0x…' } }]
 */
export async function reconcilePending(
  store: Store,
  probe: SettlementProbe,
  now: number,
  log?: (event: Record<string, unknown>) => void,
  limit = 200,
): Promise<Array<{ name: string; rail: string; outcome: SettlementOutcome | { status: 'error' } }>> {
  const rows = await store.listRecords(SETTLEMENT_RECORD_PREFIX, now, limit * 5);
  const pending = rows
    .map((row) => ({ name: row.name, settlement: JSON.parse(row.value) as UnconfirmedSettlement }))
    .filter((row) => row.settlement.status === 'pending')
    .slice(0, limit);
  const results = [];
  for (const { name, settlement } of pending) {
    try {
      results.push({ name, rail: settlement.trace.rail, outcome: await reconcileOne(store, probe, settlement, now, log) });
    } catch (error) {
      // A processor that does not answer now is asked again on the next pass.
      log?.({ event: 'settlement-reconcile-failed', rail: settlement.trace.rail, error: errorName(error) });
      results.push({ name, rail: settlement.trace.rail, outcome: { status: 'error' as const } });
    }
  }
  return results;
}

/** Every settlement record (pending and resolved): the audit trail. */
export async function listSettlements(store: Store, now: number, limit = 1000): Promise<UnconfirmedSettlement[]> {
  return (await store.listRecords(SETTLEMENT_RECORD_PREFIX, now, limit)).map((row) => JSON.parse(row.value) as UnconfirmedSettlement);
}

const AUTHORIZATION_STATE_ABI = parseAbi(['function authorizationState(address authorizer, bytes32 nonce) view returns (bool)']);
const AUTHORIZATION_USED = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');
/** How far back to look for the transfer's transaction hash (about 5.5 hours of Base blocks). */
const LOG_LOOKBACK_BLOCKS = 10_000n;

export interface ProbeOptions {
  /** JSON-RPC endpoint of the chain the USDC authorizations are on; null: evm settlements stay pending. */
  rpcUrl: string | null;
  /** The card rail's Stripe client; null: card settlements stay pending. */
  stripe: Stripe | null;
  /**
   * A card settlement with no PaymentIntent this long after it was recorded never reached Stripe (Stripe's
   * search index lags by up to a minute; our client's attempts are long over). Default 10 minutes.
   */
  stripeQuietMs?: number;
}

/**
 * The processors' own records, as the reconciler asks them.
 *
 * @example
 *   const probe = processorProbe({ rpcUrl: 'https://mainnet.base.org', stripe })
 *   await probe.check(trace, recordedAt, Date.now())   // { status: 'pending' } until certain
 */
export function processorProbe(options: ProbeOptions): SettlementProbe {
  const chain = options.rpcUrl ? createPublicClient({ transport: http(options.rpcUrl, { timeout: 10_000 }) }) : null;
  const quietMs = options.stripeQuietMs ?? 10 * 60 * 1000;
  return {
    async check(trace, recordedAt, now) {
      if (trace.rail === 'evm') {
        if (!chain) return { status: 'pending' };
        const token = trace.currency as Hex;
        const used = await chain.readContract({
          address: token,
          abi: AUTHORIZATION_STATE_ABI,
          functionName: 'authorizationState',
          args: [trace.from as Hex, trace.nonce as Hex],
        });
        if (!used) return now / 1000 >= trace.validBefore ? { status: 'not-charged' } : { status: 'pending' };
        const latest = await chain.getBlockNumber();
        const logs = await chain.getLogs({
          address: token,
          event: AUTHORIZATION_USED,
          args: { authorizer: trace.from as Hex, nonce: trace.nonce as Hex },
          fromBlock: latest > LOG_LOOKBACK_BLOCKS ? latest - LOG_LOOKBACK_BLOCKS : 0n,
          toBlock: latest,
        });
        // Used but no transfer in the window: the transfer is older than the window (or the payer cancelled
        // the authorization, which only they can do); name the authorization itself.
        return { status: 'charged', reference: logs[0]?.transactionHash ?? `eip3009:${trace.from.toLowerCase()}:${trace.nonce}` };
      }
      if (!options.stripe) return { status: 'pending' };
      const found = await options.stripe.paymentIntents.search({ query: `metadata['mpp_challenge_id']:'${trace.challengeId.replace(/'/g, '')}'` });
      const ours = found.data.filter((pi) => {
        const spt = (pi as unknown as { shared_payment_granted_token?: unknown }).shared_payment_granted_token;
        return typeof spt !== 'string' || spt === trace.spt;
      });
      const succeeded = ours.find((pi) => pi.status === 'succeeded');
      if (succeeded) return { status: 'charged', reference: succeeded.id };
      if (ours.length > 0 && ours.every((pi) => pi.status === 'requires_payment_method' || pi.status === 'canceled')) return { status: 'not-charged' };
      // Nothing succeeded long after our last attempt: a card payment that needs the payer's action never completes here.
      return now - recordedAt >= quietMs ? { status: 'not-charged' } : { status: 'pending' };
    },
  };
}

/**
 * Runs the reconciler every `intervalMs` until stopped; never keeps the process alive by itself, and never
 * runs two passes at once.
 *
 * @example
 *   const stop = startReconciler({ store, probe: rails.settlements, intervalMs: 60_000, log })
 */
export function startReconciler(options: {
  store: Store;
  probe: SettlementProbe;
  intervalMs: number;
  log?: (event: Record<string, unknown>) => void;
}): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    reconcilePending(options.store, options.probe, Date.now(), options.log)
      .catch((error) => options.log?.({ event: 'settlement-reconcile-failed', error: errorName(error) }))
      .finally(() => (running = false));
  }, options.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

// Only the error's class: RPC and Stripe messages can carry the endpoint's URL, and an RPC URL often holds an API key.
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'unknown';
}
