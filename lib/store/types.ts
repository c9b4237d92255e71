// One atomic store interface. Every operation that must not race (spending a call, claiming an
// idempotency key, counting a rate-limit window, claiming a credential once) is a single atomic
// operation of the store, so the adapters — SQLite transactions, Redis/KV Lua scripts — are the
// only places that know how atomicity is achieved.

export type PlanId = 'bundle-25' | 'bundle-100' | 'subscription' | 'demo';

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

export interface RateLimitResult {
  allowed: boolean;
  remaining: number;
  retryAfterMs: number;
}

export interface Store {
  readonly kind: 'sqlite' | 'redis' | 'vercel-kv';

  putKey(record: KeyRecord): Promise<void>;
  getKey(keyHash: string): Promise<KeyRecord | null>;
  revokeKey(keyHash: string, now: number): Promise<boolean>;
  countKeys(): Promise<number>;

  addGrant(grant: Grant): Promise<void>;
  /** Sets a grant's calls/used/expiry, e.g. a subscription renewal resets `used` to 0. */
  updateGrant(grantId: string, patch: Partial<Pick<Grant, 'calls' | 'used' | 'expiresAt'>>): Promise<boolean>;
  listGrants(keyHash: string, now: number): Promise<GrantState[]>;

  /** Holds one call on the live grant that expires soonest, until `holdUntil`. */
  reserveCall(keyHash: string, reservationId: string, now: number, holdUntil: number): Promise<ReserveResult>;
  commitReservation(reservationId: string, now: number): Promise<CommitResult>;
  releaseReservation(reservationId: string): Promise<boolean>;
  getReservation(reservationId: string): Promise<Reservation | null>;

  /** Atomically claims `scope` as in flight unless a live record exists; returns that record instead. */
  beginIdempotent(scope: string, fingerprint: string, now: number, inFlightTtlMs: number): Promise<IdempotencyRecord | null>;
  completeIdempotent(scope: string, fingerprint: string, response: string, now: number, ttlMs: number): Promise<void>;
  abandonIdempotent(scope: string, fingerprint: string): Promise<void>;
  getIdempotent(scope: string, now: number): Promise<IdempotencyRecord | null>;

  /** Counts one hit in a fixed window; refuses past `limit`. */
  hitRateLimit(bucket: string, limit: number, windowMs: number, now: number): Promise<RateLimitResult>;

  /** True exactly once per key within `ttlMs` (a payment credential is spent once). */
  claimOnce(key: string, now: number, ttlMs: number): Promise<boolean>;

  /** Small named documents (checkout sessions, pending top-ups, subscriptions); `ttlMs` null keeps them. */
  setRecord(name: string, value: string, now: number, ttlMs: number | null): Promise<void>;
  getRecord(name: string, now: number): Promise<string | null>;
  /** Reads and deletes in one step: what it returns, no other caller ever sees (a key shown once). */
  takeRecord(name: string, now: number): Promise<string | null>;
  /** Live records whose name starts with `prefix`, at most `limit` of them, in no particular order. */
  listRecords(prefix: string, now: number, limit: number): Promise<Array<{ name: string; value: string }>>;

  close(): Promise<void>;
}

const STORE_UNAVAILABLE = Symbol.for('paid-agent-checks.StoreUnavailableError');

/** The store did not answer (connection lost, file locked): the caller answers 503 and charges nothing. */
export class StoreUnavailableError extends Error {
  readonly [STORE_UNAVAILABLE] = true;

  constructor(cause: unknown) {
    super('store unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }

  // `next build` gives each route (and instrumentation) its own copy of this module, while the store
  // is one process-wide object built by whichever copy ran first: a class-identity `instanceof` then
  // misses its errors and a store outage became a 500. Recognise the error by a global brand instead.
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[STORE_UNAVAILABLE] === true;
  }
}
