// One atomic store interface. Every operation that must not race (spending a call, claiming an
// idempotency key, counting a rate-limit window, claiming a credential once) is a single atomic
// operation of the store, so the adapters — SQLite transactions, Redis/KV Lua scripts — are the
// only places that know how atomicity is achieved.
import { STORE_UNAVAILABLE_DETAIL, problem, type ProblemAnswer } from '@/lib/problems';

import type { PlanId } from '@/lib/price';

export interface KeyRecord {
  keyHash: string;
  createdAt: number;
  revokedAt: number | null;
  label: string | null;
}

export interface Grant {
  id: string;
  keyHash: string;
  plan: PlanId;
  /** Calls granted for the current period (a bundle has one period). */
  calls: number;
  used: number;
  expiresAt: number;
  createdAt: number;
  /** Where the grant came from (checkout session, subscription, cli, demo). */
  sourceRef: string | null;
}

export interface GrantState extends Grant {
  /** Calls held by open reservations that have not timed out. */
  reserved: number;
  remaining: number;
  expired: boolean;
}

export type ReserveResult = { ok: true; grantId: string } | { ok: false };

/** committed: spent now; already: was spent before; lost: unknown, released, or timed out with no call left. */
export type CommitResult = 'committed' | 'already' | 'lost';

export interface Reservation {
  id: string;
  keyHash: string;
  grantId: string;
  state: 'held' | 'committed' | 'released';
  holdUntil: number;
}

export type IdempotencyRecord =
  | { state: 'in-flight'; fingerprint: string }
  | { state: 'done'; fingerprint: string; response: string };

/**
 * Who may make a paid call, asked of the store in one atomic step (see `Store.admitCall`): count the client
 * address's window, find the key, count the key's window.
 */
export interface CallAdmission {
  /** The caller's clock; each window starts at `now - now % windowMs`, as `hitRateLimit` counts it. */
  now: number;
  windowMs: number;
  /** The client address's rate-limit bucket (the same bucket `hitRateLimit` counts) and its limit. */
  ip: { bucket: string; limit: number };
  /** The presented key's hash, and its own bucket and limit. */
  key: { keyHash: string; bucket: string; limit: number };
  /**
   * Once admitted, hold one call for it in the same step, exactly as `reserveCall(keyHash, reservationId, now,
   * holdUntil, operation)` would. For a call with nothing to look up between its admission and its hold.
   */
  hold?: { reservationId: string; holdUntil: number; operation?: string };
}

/**
 * How an admission ended, at its first refusal: the address's window full, the key unknown or revoked, the key's
 * window full. An admission that asked for a hold says whether it got one (`held: false`: the key has no call left).
 */
export type AdmissionResult =
  | { admitted: true; held?: boolean }
  | { admitted: false; refusal: 'ip-rate-limited' | 'key-rate-limited'; retryAfterMs: number }
  | { admitted: false; refusal: 'invalid-key' };

/** A call's answer kept for replays under its Idempotency-Key scope (see `Store.finishReservation`). */
export interface IdempotentAnswer {
  scope: string;
  fingerprint: string;
  response: string;
  ttlMs: number;
}

/**
 * The report a paid call keeps, kept in its last store step (see `Store.finishReservation`): `report` exactly as
 * `putReport` takes it, living `ttlMs`.
 */
export interface KeptReport {
  report: StoredReport;
  ttlMs: number;
}

/** What `Store.finishReservation` did: the commit's outcome, and the calls its key has left after it (null: no such reservation). */
export interface FinishedCall {
  commit: CommitResult;
  callsLeft: number | null;
}

export interface RateLimitResult {
  allowed: boolean;
  remaining: number;
  retryAfterMs: number;
}

/** A subscription period to apply to its grant (see `Store.renewGrant`). */
export interface GrantRenewal {
  /** Record holding the period end already applied to the grant (a number); `appliedFallback` when it is absent. */
  appliedRecord: string;
  appliedFallback: number;
  /** End of the period now known to be paid. */
  periodEnd: number;
  /** A period ending no more than this after the applied one is the same period reported twice. */
  samePeriodSlackMs: number;
  /** What a new period gets: its allowance (`used` goes back to 0) and the grant's new expiry. */
  calls: number;
  expiresAt: number;
}

/** A share of a grant's calls to remove once (see `Store.removeGrantCalls`). */
export interface GrantRemoval {
  /** Record counting the calls already removed for this reason (a number), e.g. one payment's refunds. */
  appliedRecord: string;
  /** Calls that must be removed in all for this reason; only the part not removed yet is removed now. */
  target: number;
}

/**
 * One prepaid call as the ledger keeps it (a reservation and what became of it): `keys usage` lists a
 * key's, `ledger audit` reads them all. Its id is the `creditsUsage` a fulfilled answer names.
 */
export interface UsageRecord {
  id: string;
  keyHash: string;
  grantId: string;
  state: Reservation['state'];
  holdUntil: number;
  /** When the call was spent; null while held or once released. */
  committedAt: number | null;
  /** When an operator gave the spent call back (`keys refund`); a call is given back at most once. */
  refundedAt: number | null;
  /** The paid operation that held it; null for calls held before operations were recorded. */
  operation: string | null;
}

/** A grant with what the audit needs beyond its balance: the calls removed by payment refunds this period, and when the period began. */
export interface LedgerGrant extends Grant {
  /** Calls removed by payment refunds (`removeGrantCalls`) since `periodStart`. */
  removed: number;
  /** When `used` last started from 0: the grant's creation, or its last subscription renewal. */
  periodStart: number;
}

/** What `Store.refundCall` did: `refunded` gave the call back; every other outcome changed nothing. */
export type RefundResult =
  | { outcome: 'refunded'; keyHash: string; grantId: string }
  | { outcome: 'already'; refundedAt: number }
  | { outcome: 'not-committed'; state: 'held' | 'released' }
  | { outcome: 'grant-expired'; expiresAt: number }
  | { outcome: 'unknown' };

/** One page of a walk over the whole ledger; `next` null when the walk is over. Pages may repeat an item (Redis SCAN). */
interface LedgerPage<T> {
  items: T[];
  next: string | null;
}

/** Rows deleted by one purge, per kind (always zeros on Redis and KV, whose keys expire natively). */
export interface PurgeCounts {
  rateWindows: number;
  idempotency: number;
  claims: number;
  reservations: number;
  records: number;
  reports: number;
}

/** What a report's list row shows: everything but the stored body. */
export interface ReportSummary {
  /** Unguessable id (`rep_` + 192 random bits): the only handle on a report, checked against its owner anyway. */
  id: string;
  /** The key that paid for the call; the only key that may read the report. */
  keyHash: string;
  operation: string;
  createdAt: number;
  creditsUsage: string;
  /** What was checked, as the check's `facts` name it (an address, a workflow's name). */
  target: string;
  score: number | null;
  /** The check's verdict in its own words (`not-ready`, `fair`), or null when it gives none. */
  verdict: string | null;
}

/** A fulfilled prepaid call's 200 body, kept for its owner until `createdAt + ttl`. */
export interface StoredReport extends ReportSummary {
  /** The 200 body exactly as it was sent (JSON text). */
  body: string;
  /** The validated request body that made it (JSON text), so the check can run again; null for reports kept before it was. */
  input: string | null;
}

/** Where a page of reports starts: strictly older than this report (newest first, ties by id). */
export interface ReportCursor {
  createdAt: number;
  id: string;
}

/**
 * The one atomic store every adapter implements (SQLite, Redis, Vercel KV): keys, grants and reservations
 * for prepaid calls, idempotency records, rate windows, single-use claims and small named records. Every
 * method is atomic on its own; every expiry is decided on the `now` the caller passes (see NATIVE_TTL_SLACK_MS).
 * A store that cannot answer throws `StoreUnavailableError` (the edge answers 503, nothing charged).
 * @example
 * const store = openStore(config);
 * const r = await store.reserveCall(keyHash, 'cu_1', Date.now(), Date.now() + 120_000);
 * if (r.ok) await store.commitReservation('cu_1', Date.now()); // 'committed', then 'already' on a retry
 */
export interface Store {
  readonly kind: 'sqlite' | 'redis' | 'vercel-kv';

  putKey(record: KeyRecord): Promise<void>;
  getKey(keyHash: string): Promise<KeyRecord | null>;
  revokeKey(keyHash: string, now: number): Promise<boolean>;
  countKeys(): Promise<number>;

  /**
   * Adds a grant once: a grant with this id already there is left as it is (its `used` too), so a caller
   * that derives the id from what paid for it (a checkout session) can retry without granting twice.
   * @example if (!(await store.addGrant(grant))) console.log('granted earlier');
   */
  addGrant(grant: Grant): Promise<boolean>;
  /** Sets a grant's calls/used/expiry, e.g. a subscription renewal resets `used` to 0. */
  updateGrant(grantId: string, patch: Partial<Pick<Grant, 'calls' | 'used' | 'expiresAt'>>): Promise<boolean>;
  listGrants(keyHash: string, now: number): Promise<GrantState[]>;
  /**
   * Applies a paid subscription period in one atomic step with every spend: a period later than the
   * applied one resets the allowance (`calls`, `used` = 0) and records it as applied; the same period
   * again only moves the expiry. Two reconciliations cannot both reset and wipe a spend between them.
   * @example await store.renewGrant(grantId, { appliedRecord: 'sub-applied:sub_1', appliedFallback: end0, periodEnd, samePeriodSlackMs: DAY, calls: 50, expiresAt }, now, FACT_TTL_MS)
   */
  renewGrant(grantId: string, renewal: GrantRenewal, now: number, recordTtlMs: number | null): Promise<'renewed' | 'extended' | 'missing'>;
  /**
   * Removes calls from a grant in one atomic step with every spend (`used` grows, never past `calls`):
   * only `target` minus what `appliedRecord` says was already removed, then records `target`. Returns the
   * calls removed now, or null when the grant does not exist.
   * @example await store.removeGrantCalls(grantId, { appliedRecord: 'refund-applied:pi_1', target: 3 }, now, FACT_TTL_MS) // 3, then 0
   */
  removeGrantCalls(grantId: string, removal: GrantRemoval, now: number, recordTtlMs: number | null): Promise<number | null>;

  /**
   * A paid call's checks before its work, as one atomic step (one round trip): `hitRateLimit` on the
   * address's bucket, the key looked up (unknown or revoked refuses), `hitRateLimit` on the key's bucket.
   * It stops at the first refusal, having done exactly what those calls made one after another would have;
   * admitted with `hold`, it then holds one call as `reserveCall` does.
   * @example
   * const r = await store.admitCall({ now, windowMs: 60_000, ip: { bucket: 'ip:203.0.113.7', limit: 60 },
   *   key: { keyHash, bucket: `key:${keyHash}`, limit: 120 } });
   * if (!r.admitted && r.refusal === 'invalid-key') refuse401();
   */
  admitCall(admission: CallAdmission): Promise<AdmissionResult>;
  /** Holds one call on the live grant that expires soonest, until `holdUntil`; `operation` is kept for the key's usage list. */
  reserveCall(keyHash: string, reservationId: string, now: number, holdUntil: number, operation?: string): Promise<ReserveResult>;
  /**
   * Spends a held call. Idempotent: a second commit answers `already`, so a caller whose first reply was
   * lost can retry. A hold that lapsed is spent only if its call is still there, else `lost`.
   * @example if ((await store.commitReservation(id, Date.now())) === 'lost') deliverUncharged();
   */
  commitReservation(reservationId: string, now: number): Promise<CommitResult>;
  /**
   * A paid call's last step, in one atomic round trip: spends its held call (exactly as `commitReservation`),
   * keeps its answer for replays (as `completeIdempotent`, whatever the commit's outcome), and counts the calls
   * its key has left after it (as the sum of `listGrants`' `remaining`). With `report`, keeps the call's report in
   * the same step (exactly as `putReport`: the reservation's holder owns it), so a replay record may name the report
   * for its body and the two are written together or not at all. Safe to retry, as a commit is.
   * @example
   * const { commit, callsLeft } = await store.finishReservation(usageId, Date.now(), { scope, fingerprint, response, ttlMs: DAY });
   */
  finishReservation(reservationId: string, now: number, answer: IdempotentAnswer, report?: KeptReport): Promise<FinishedCall>;
  releaseReservation(reservationId: string): Promise<boolean>;
  getReservation(reservationId: string): Promise<Reservation | null>;

  /**
   * Gives one spent call back to its key, once, in one atomic step: the reservation is marked refunded and its
   * grant's `used` goes down by one. A second refund of the same call, a call never spent, or one whose grant
   * expired changes nothing and says why.
   * @example if ((await store.refundCall('cu_1', Date.now())).outcome === 'already') console.error('given back before');
   */
  refundCall(reservationId: string, now: number): Promise<RefundResult>;
  /**
   * A key's spent calls (refunded or not), newest first, at most `limit`.
   * @example for (const u of await store.listUsage(keyHash, 1000)) console.log(u.id, u.operation, u.refundedAt);
   */
  listUsage(keyHash: string, limit: number): Promise<UsageRecord[]>;
  /**
   * Walks every grant of every key, a page at a time (cursor '' to start), for the audit.
   * @example let c: string | null = ''; while (c !== null) { const p = await store.scanGrants(c, 500); c = p.next; }
   */
  scanGrants(cursor: string, limit: number): Promise<LedgerPage<LedgerGrant>>;
  /** Walks every reservation still stored (committed ones are kept for good), a page at a time, for the audit. */
  scanUsage(cursor: string, limit: number): Promise<LedgerPage<UsageRecord>>;

  /** Atomically claims `scope` as in flight unless a live record exists; returns that record instead. */
  beginIdempotent(scope: string, fingerprint: string, now: number, inFlightTtlMs: number): Promise<IdempotencyRecord | null>;
  completeIdempotent(scope: string, fingerprint: string, response: string, now: number, ttlMs: number): Promise<void>;
  abandonIdempotent(scope: string, fingerprint: string): Promise<void>;
  getIdempotent(scope: string, now: number): Promise<IdempotencyRecord | null>;

  /** Counts one hit in a fixed window; refuses past `limit`. */
  hitRateLimit(bucket: string, limit: number, windowMs: number, now: number): Promise<RateLimitResult>;
  /**
   * Takes back one hit of the window `now` falls in (a hit whose work never happened), never below zero; a
   * window already over is left as it is.
   */
  returnRateLimit(bucket: string, windowMs: number, now: number): Promise<void>;

  /** True exactly once per key within `ttlMs` (a payment credential is spent once). */
  claimOnce(key: string, now: number, ttlMs: number): Promise<boolean>;
  /**
   * Gives up a claim before its ttl, so the work it guarded can be claimed and redone at once (after that
   * work failed). Only for claims that guard work that is safe to redo, never for a spent credential.
   * @example await store.releaseClaim('fulfil:cs_1');
   */
  releaseClaim(key: string): Promise<void>;

  /** Small named documents (checkout sessions, pending top-ups, subscriptions); `ttlMs` null keeps them. */
  setRecord(name: string, value: string, now: number, ttlMs: number | null): Promise<void>;
  getRecord(name: string, now: number): Promise<string | null>;
  /** Reads and deletes in one step: what it returns, no other caller ever sees (a key shown once). */
  takeRecord(name: string, now: number): Promise<string | null>;
  /** Live records whose name starts with `prefix`, at most `limit` of them, in no particular order. */
  listRecords(prefix: string, now: number, limit: number): Promise<Array<{ name: string; value: string }>>;
  /**
   * Adds `amount` to the number record `name` holds (absent or expired: 0) in one atomic step, unless the sum would
   * pass `cap`: then nothing changes. Either way it answers the total the record holds after the step. The record
   * expires `ttlMs` after it was first written. A spending cap shared by every instance: two callers can never
   * both fit under it with more than it allows.
   * @example const r = await store.addCapped(`probe-spend-day:${day}`, 10_000, 5_000_000, now, 2 * DAY); if (!r.added) refuse(r.total);
   */
  addCapped(name: string, amount: number, cap: number, now: number, ttlMs: number): Promise<{ added: boolean; total: number }>;

  /**
   * Keeps a report until `now + ttlMs` (caller's clock) and indexes it under its owner. A second put with the
   * same id replaces it. The owner is the key holding the reservation `creditsUsage` names, read in the same
   * atomic step, else `keyHash`: a key rotated while its call ran moved that held call, and its report follows,
   * whichever of the two steps comes first (`rotateKey` moves the reports already stored).
   * @example await store.putReport({ id, keyHash, operation: check.id, createdAt: now, creditsUsage, target, score, verdict, body, input }, now, 30 * DAY);
   */
  putReport(report: StoredReport, now: number, ttlMs: number): Promise<void>;
  /** The live report with this id, whoever owns it (the caller compares `keyHash`), or null. */
  getReport(id: string, now: number): Promise<StoredReport | null>;
  /**
   * A key's live reports, newest first (ties: larger id first), at most `limit`, strictly after `before`.
   * @example const page = await store.listReports(keyHash, now, { limit: 20 }); // next: { before: page.at(-1) }
   */
  listReports(keyHash: string, now: number, options: { limit: number; before?: ReportCursor }): Promise<ReportSummary[]>;
  /**
   * Rotates a key in one atomic step: adds `newKey`, moves every grant (with its held calls) and every
   * report of `oldKeyHash` to it, and revokes the old key at `now`. False, changing nothing, when the old
   * key is unknown or already revoked (two rotations of one key: one wins).
   * @example if (!(await store.rotateKey(oldHash, { keyHash: newHash, createdAt: now, revokedAt: null, label: null }, now))) refuse();
   */
  rotateKey(oldKeyHash: string, newKey: KeyRecord, now: number): Promise<boolean>;

  /**
   * Deletes what expired by `now`: rate windows, idempotency records, claims, reservations whose hold
   * lapsed (or that were released) more than `RESERVATION_RETENTION_MS` ago, records and reports. Committed
   * reservations and grants stay. SQLite does the work here; Redis and KV give every such key a native
   * TTL when they write it, so there this returns zeros. The server runs it on a timer (purge.ts).
   * @example const counts = await store.purgeExpired(Date.now());
   */
  purgeExpired(now: number): Promise<PurgeCounts>;

  close(): Promise<void>;
}

/**
 * Every expiry is decided on the caller's clock: each operation takes `now`, and a record expires when
 * `now` reaches the `now + ttl` it was written with, on every adapter (Redis and KV compare stored expiry
 * times in Lua, not Redis's own clock). Their native TTLs only delete keys, and run this much later so a
 * modest skew between the two clocks never deletes a key the caller still considers live (rate windows,
 * whose window is in the key's name, need no slack).
 */
export const NATIVE_TTL_SLACK_MS = 5 * 60 * 1000;

/** A reservation that can no longer be committed is kept this long after its hold lapsed, for audit, then purged. */
export const RESERVATION_RETENTION_MS = 24 * 60 * 60 * 1000;

const STORE_UNAVAILABLE = Symbol.for('paid-agent-checks.StoreUnavailableError');

/** The store did not answer (connection lost, file locked): the caller answers 503 and charges nothing. */
export class StoreUnavailableError extends Error {
  readonly [STORE_UNAVAILABLE] = true;

  constructor(cause: unknown) {
    super('store unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }

  /** 503: nothing was charged, and retrying shortly helps. */
  toProblem(): ProblemAnswer {
    return { problem: problem('store-unavailable', STORE_UNAVAILABLE_DETAIL), retryAfterSeconds: 5 };
  }

  // `next build` gives each route (and instrumentation) its own copy of this module, while the store
  // is one process-wide object built by whichever copy ran first: a class-identity `instanceof` then
  // misses its errors and a store outage became a 500. Recognise the error by a global brand instead.
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[STORE_UNAVAILABLE] === true;
  }
}
