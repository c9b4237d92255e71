import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import type {
  AdmissionResult, CallAdmission, CommitResult, FinishedCall, Grant, GrantRemoval, GrantRenewal, GrantState, IdempotencyRecord, IdempotentAnswer, KeptReport, KeyRecord,
  LedgerGrant, PurgeCounts, RateLimitResult, RefundResult, ReportCursor, ReportSummary, Reservation, ReserveResult, Store, StoredReport, UsageRecord,
} from './types';
import { RESERVATION_RETENTION_MS, StoreUnavailableError } from './types';

// The embedded default store. WAL lets readers run beside one writer; every read-modify-write
// runs in a BEGIN IMMEDIATE transaction, which takes the write lock up front, so several
// processes on one file serialise their spends instead of racing them.

const SCHEMA = `
CREATE TABLE IF NOT EXISTS credit_keys (
  key_hash TEXT PRIMARY KEY, created_at INTEGER NOT NULL, revoked_at INTEGER, label TEXT
);
CREATE TABLE IF NOT EXISTS grants (
  id TEXT PRIMARY KEY, key_hash TEXT NOT NULL, plan TEXT NOT NULL, calls INTEGER NOT NULL,
  used INTEGER NOT NULL DEFAULT 0, expires_at INTEGER NOT NULL, created_at INTEGER NOT NULL, source_ref TEXT
);
CREATE INDEX IF NOT EXISTS grants_by_key ON grants(key_hash, expires_at);
CREATE TABLE IF NOT EXISTS reservations (
  id TEXT PRIMARY KEY, key_hash TEXT NOT NULL, grant_id TEXT NOT NULL, state TEXT NOT NULL,
  hold_until INTEGER NOT NULL, committed_at INTEGER
);
CREATE INDEX IF NOT EXISTS reservations_held ON reservations(grant_id, state, hold_until);
CREATE TABLE IF NOT EXISTS idempotency (
  scope TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, state TEXT NOT NULL, response TEXT, expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rate_windows (
  bucket TEXT PRIMARY KEY, window_start INTEGER NOT NULL, hits INTEGER NOT NULL, expires_at INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS claims (
  claim TEXT PRIMARY KEY, expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
  name TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER
);
CREATE TABLE IF NOT EXISTS reports (
  id TEXT PRIMARY KEY, key_hash TEXT NOT NULL, operation TEXT NOT NULL, created_at INTEGER NOT NULL,
  credits_usage TEXT NOT NULL, target TEXT NOT NULL, score REAL, body TEXT NOT NULL, expires_at INTEGER NOT NULL,
  verdict TEXT, input TEXT
);
CREATE INDEX IF NOT EXISTS reports_by_key ON reports(key_hash, created_at DESC, id DESC);
`;

// Indexes for purgeExpired: without them each purge scans whole tables while holding the write lock.
const PURGE_INDEXES = `
CREATE INDEX IF NOT EXISTS rate_windows_expiry ON rate_windows(expires_at);
CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency(expires_at);
CREATE INDEX IF NOT EXISTS claims_expiry ON claims(expires_at);
CREATE INDEX IF NOT EXISTS records_expiry ON records(expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS reservations_lapsed ON reservations(hold_until) WHERE state <> 'committed';
CREATE INDEX IF NOT EXISTS reports_expiry ON reports(expires_at);
`;

/** Rows one purge statement deletes at most, so a large backlog never holds the write lock for long. */
const PURGE_BATCH = 500;

interface ReportRow {
  id: string; key_hash: string; operation: string; created_at: number; credits_usage: string; target: string; score: number | null;
  verdict: string | null; body?: string; input?: string | null;
}

const toSummary = (r: ReportRow): ReportSummary => ({
  id: r.id, keyHash: r.key_hash, operation: r.operation, createdAt: r.created_at, creditsUsage: r.credits_usage, target: r.target, score: r.score, verdict: r.verdict,
});

interface GrantRow {
  id: string; key_hash: string; plan: Grant['plan']; calls: number; used: number;
  expires_at: number; created_at: number; source_ref: string | null; reserved: number;
}

/** How long one statement may wait for another process's write lock, blocking (see busy_timeout below). */
const BUSY_WAIT_MS = 100;
/** How long a call keeps retrying a locked database before the caller answers 503. */
const BUSY_BUDGET_MS = 5_000;

interface ReservationRow {
  id: string; key_hash: string; grant_id: string; state: Reservation['state']; hold_until: number;
  committed_at: number | null; refunded_at: number | null; operation: string | null;
}

const toUsage = (r: ReservationRow): UsageRecord => ({
  id: r.id, keyHash: r.key_hash, grantId: r.grant_id, state: r.state, holdUntil: r.hold_until,
  committedAt: r.committed_at, refundedAt: r.refunded_at, operation: r.operation,
});

function addMissingColumns(db: Database.Database, table: string, columns: Record<string, string>): void {
  const present = new Set((db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name));
  for (const [name, type] of Object.entries(columns)) {
    if (present.has(name)) continue;
    try {
      db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
    } catch (error) {
      // Another process on the same file (the server and a CLI starting together) added it first.
      if (!/duplicate column name/i.test((error as Error).message)) throw error;
    }
  }
}

/** Opens (creating when missing) the store file, with its pragmas, schema and the columns later code reads. */
function openDatabase(dataDir: string): Database.Database {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, 'store.sqlite'));
  db.pragma('journal_mode = WAL');
  // Short: SQLite's busy handler sleeps synchronously, freezing every request of this process (a
  // 5 s wait let Node's keep-alive timers reset connections). Longer waits are retried in `busyGuard`.
  db.pragma(`busy_timeout = ${BUSY_WAIT_MS}`);
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);
  // A file whose rate windows carry no expiry gets the column; its windows without one (expiry 0) go at the
  // first purge, which at worst restarts one window's count once.
  const windowColumns = db.pragma('table_info(rate_windows)') as Array<{ name: string }>;
  if (!windowColumns.some((c) => c.name === 'expires_at')) db.exec('ALTER TABLE rate_windows ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0');
  db.exec(PURGE_INDEXES);
  // The ledger tools' columns (keys usage, keys refund, ledger audit), added to a file that lacks them.
  addMissingColumns(db, 'reservations', { operation: 'TEXT', refunded_at: 'INTEGER' });
  addMissingColumns(db, 'grants', { removed: 'INTEGER NOT NULL DEFAULT 0', period_start: 'INTEGER' });
  // A report's verdict (the history row) and its input (running it again), added to a file that lacks them.
  addMissingColumns(db, 'reports', { verdict: 'TEXT', input: 'TEXT' });
  db.exec('CREATE INDEX IF NOT EXISTS reservations_by_key ON reservations(key_hash, committed_at) WHERE committed_at IS NOT NULL');
  return db;
}

/** Every statement the store runs, prepared once per connection. */
function prepareStatements(db: Database.Database) {
  return {
      putKey: db.prepare('INSERT INTO credit_keys (key_hash, created_at, revoked_at, label) VALUES (?, ?, ?, ?)'),
      getKey: db.prepare('SELECT key_hash, created_at, revoked_at, label FROM credit_keys WHERE key_hash = ?'),
      revokeKey: db.prepare('UPDATE credit_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL'),
      countKeys: db.prepare('SELECT COUNT(*) AS n FROM credit_keys'),
      addGrant: db.prepare(
        'INSERT INTO grants (id, key_hash, plan, calls, used, expires_at, created_at, source_ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING',
      ),
      grantsWithHolds: db.prepare(`
        SELECT g.*, (SELECT COUNT(*) FROM reservations r
                     WHERE r.grant_id = g.id AND r.state = 'held' AND r.hold_until > @now) AS reserved
        FROM grants g WHERE g.key_hash = @keyHash ORDER BY g.expires_at, g.created_at, g.id`),
      grantWithHolds: db.prepare(`
        SELECT g.*, (SELECT COUNT(*) FROM reservations r
                     WHERE r.grant_id = g.id AND r.state = 'held' AND r.hold_until > @now) AS reserved
        FROM grants g WHERE g.id = @id`),
      insertReservation: db.prepare(
        "INSERT INTO reservations (id, key_hash, grant_id, state, hold_until, operation) VALUES (?, ?, ?, 'held', ?, ?)",
      ),
      usageRow: db.prepare('SELECT * FROM reservations WHERE id = ?'),
      grantOf: db.prepare('SELECT expires_at FROM grants WHERE id = ?'),
      refund: db.prepare('UPDATE reservations SET refunded_at = ? WHERE id = ?'),
      giveBack: db.prepare('UPDATE grants SET used = used - 1 WHERE id = ?'),
      listUsage: db.prepare('SELECT * FROM reservations WHERE key_hash = ? AND committed_at IS NOT NULL ORDER BY committed_at DESC, id DESC LIMIT ?'),
      scanGrants: db.prepare('SELECT * FROM grants WHERE id > ? ORDER BY id LIMIT ?'),
      scanUsage: db.prepare('SELECT * FROM reservations WHERE id > ? ORDER BY id LIMIT ?'),
      removedNow: db.prepare('UPDATE grants SET removed = removed + ? WHERE id = ?'),
      periodStarts: db.prepare('UPDATE grants SET removed = 0, period_start = ? WHERE id = ?'),
      getReservation: db.prepare('SELECT id, key_hash, grant_id, state, hold_until FROM reservations WHERE id = ?'),
      markCommitted: db.prepare("UPDATE reservations SET state = 'committed', committed_at = ? WHERE id = ?"),
      spendOne: db.prepare('UPDATE grants SET used = used + 1 WHERE id = ?'),
      release: db.prepare("UPDATE reservations SET state = 'released' WHERE id = ? AND state = 'held'"),
      getIdem: db.prepare('SELECT fingerprint, state, response, expires_at FROM idempotency WHERE scope = ?'),
      putIdem: db.prepare(
        'INSERT INTO idempotency (scope, fingerprint, state, response, expires_at) VALUES (@scope, @fingerprint, @state, @response, @expiresAt) ' +
          'ON CONFLICT(scope) DO UPDATE SET fingerprint = excluded.fingerprint, state = excluded.state, response = excluded.response, expires_at = excluded.expires_at',
      ),
      deleteIdem: db.prepare("DELETE FROM idempotency WHERE scope = ? AND fingerprint = ? AND state = 'in-flight'"),
      hitWindow: db.prepare(
        'INSERT INTO rate_windows (bucket, window_start, hits, expires_at) VALUES (@bucket, @windowStart, 1, @expiresAt) ON CONFLICT(bucket) DO UPDATE SET ' +
          'hits = CASE WHEN window_start = excluded.window_start THEN hits + 1 ELSE 1 END, window_start = excluded.window_start, ' +
          'expires_at = excluded.expires_at RETURNING hits',
      ),
      returnWindow: db.prepare('UPDATE rate_windows SET hits = hits - 1 WHERE bucket = @bucket AND window_start = @windowStart AND hits > 0'),
      getClaim: db.prepare('SELECT expires_at FROM claims WHERE claim = ?'),
      putRecord: db.prepare(
        'INSERT INTO records (name, value, expires_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
      ),
      getRecord: db.prepare('SELECT value FROM records WHERE name = ? AND (expires_at IS NULL OR expires_at > ?)'),
      getRecordExpiry: db.prepare('SELECT value, expires_at AS expiresAt FROM records WHERE name = ? AND (expires_at IS NULL OR expires_at > ?)'),
      deleteRecord: db.prepare('DELETE FROM records WHERE name = ?'),
      // A range on the primary key rather than LIKE, so a prefix needs no escaping and uses the index.
      listRecords: db.prepare(
        "SELECT name, value FROM records WHERE name >= ? AND name < ? || char(1114111) AND (expires_at IS NULL OR expires_at > ?) LIMIT ?",
      ),
      deleteClaim: db.prepare('DELETE FROM claims WHERE claim = ?'),
      putClaim: db.prepare(
        'INSERT INTO claims (claim, expires_at) VALUES (?, ?) ON CONFLICT(claim) DO UPDATE SET expires_at = excluded.expires_at',
      ),
      putReport: db.prepare(
        // The owner is whoever holds the call that paid for the report now (a rotation moves held calls), else the key given.
        'INSERT INTO reports (id, key_hash, operation, created_at, credits_usage, target, score, verdict, body, input, expires_at) ' +
          'VALUES (@id, COALESCE((SELECT key_hash FROM reservations WHERE id = @creditsUsage), @keyHash), @operation, @createdAt, @creditsUsage, @target, @score, @verdict, @body, @input, @expiresAt) ' +
          'ON CONFLICT(id) DO UPDATE SET key_hash = excluded.key_hash, operation = excluded.operation, created_at = excluded.created_at, ' +
          'credits_usage = excluded.credits_usage, target = excluded.target, score = excluded.score, verdict = excluded.verdict, body = excluded.body, ' +
          'input = excluded.input, expires_at = excluded.expires_at',
      ),
      getReport: db.prepare('SELECT * FROM reports WHERE id = ? AND expires_at > ?'),
      listReports: db.prepare(
        'SELECT id, key_hash, operation, created_at, credits_usage, target, score, verdict FROM reports WHERE key_hash = @keyHash AND expires_at > @now ' +
          'AND (created_at < @createdAt OR (created_at = @createdAt AND id < @id)) ORDER BY created_at DESC, id DESC LIMIT @limit',
      ),
      moveGrants: db.prepare('UPDATE grants SET key_hash = ? WHERE key_hash = ?'),
      moveReservations: db.prepare("UPDATE reservations SET key_hash = ? WHERE key_hash = ? AND state = 'held'"),
      moveReports: db.prepare('UPDATE reports SET key_hash = ? WHERE key_hash = ?'),
      grantRow: db.prepare('SELECT calls, used FROM grants WHERE id = ?'),
      setUsed: db.prepare('UPDATE grants SET used = ? WHERE id = ?'),
      renew: db.prepare('UPDATE grants SET calls = ?, used = 0, expires_at = ? WHERE id = ?'),
      setExpiry: db.prepare('UPDATE grants SET expires_at = ? WHERE id = ?'),
      purge: {
        rateWindows: db.prepare(`DELETE FROM rate_windows WHERE rowid IN (SELECT rowid FROM rate_windows WHERE expires_at <= ? LIMIT ${PURGE_BATCH})`),
        idempotency: db.prepare(`DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency WHERE expires_at <= ? LIMIT ${PURGE_BATCH})`),
        claims: db.prepare(`DELETE FROM claims WHERE rowid IN (SELECT rowid FROM claims WHERE expires_at <= ? LIMIT ${PURGE_BATCH})`),
        reservations: db.prepare(
          `DELETE FROM reservations WHERE rowid IN (SELECT rowid FROM reservations WHERE state <> 'committed' AND hold_until <= ? LIMIT ${PURGE_BATCH})`,
        ),
        records: db.prepare(`DELETE FROM records WHERE rowid IN (SELECT rowid FROM records WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT ${PURGE_BATCH})`),
        reports: db.prepare(`DELETE FROM reports WHERE rowid IN (SELECT rowid FROM reports WHERE expires_at <= ? LIMIT ${PURGE_BATCH})`),
      },
  };
}

type Statements = ReturnType<typeof prepareStatements>;

/** Runs one statement or transaction, retrying a locked database; see `busyGuard`. */
type Guard = <T>(fn: () => T) => Promise<T>;

/** What every operation group works over: one connection, its statements and its retry guard. */
interface SqliteContext {
  db: Database.Database;
  q: Statements;
  guard: Guard;
}

// better-sqlite3 is synchronous; a lock held past busy_timeout surfaces as SQLITE_BUSY. A busy
// statement or transaction has changed nothing (better-sqlite3 rolls a failed transaction back), so
// it is retried without blocking the event loop until BUSY_BUDGET_MS, then answered as unavailable.
function busyGuard(db: Database.Database): Guard {
  return async <T>(fn: () => T): Promise<T> => {
    const deadline = Date.now() + BUSY_BUDGET_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return fn();
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        const busy = code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
        if (busy && db.open && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, Math.min(10 * 2 ** attempt, 200)));
          continue;
        }
        if (busy || code.startsWith('SQLITE_IOERR') || !db.open) throw new StoreUnavailableError(error);
        throw error;
      }
    }
  };
}

function toGrantState(row: GrantRow, now: number): GrantState {
  const expired = row.expires_at <= now;
  return {
    id: row.id, keyHash: row.key_hash, plan: row.plan, calls: row.calls, used: row.used,
    expiresAt: row.expires_at, createdAt: row.created_at, sourceRef: row.source_ref,
    reserved: row.reserved, expired,
    remaining: expired ? 0 : Math.max(0, row.calls - row.used - row.reserved),
  };
}

/** Holds one call on the key's first grant with a call left; runs inside the caller's transaction. */
function holdOne(q: Statements, keyHash: string, reservationId: string, now: number, holdUntil: number, operation: string | null): ReserveResult {
  const rows = q.grantsWithHolds.all({ keyHash, now }) as GrantRow[];
  const grant = rows.map((r) => toGrantState(r, now)).find((g) => g.remaining > 0);
  if (!grant) return { ok: false };
  q.insertReservation.run(reservationId, keyHash, grant.id, holdUntil, operation);
  return { ok: true, grantId: grant.id };
}

/** Spends a held call; runs inside the caller's transaction. */
function spend(q: Statements, reservationId: string, now: number): CommitResult {
  const r = q.getReservation.get(reservationId) as { grant_id: string; state: string; hold_until: number } | undefined;
  if (!r) return 'lost';
  if (r.state === 'committed') return 'already';
  if (r.state === 'released') return 'lost';
  if (r.hold_until <= now) {
    // The hold timed out, so the call went back to the balance: spend it only if it is still there.
    const g = q.grantWithHolds.get({ id: r.grant_id, now }) as GrantRow | undefined;
    if (!g || toGrantState(g, now).remaining <= 0) {
      q.release.run(reservationId);
      return 'lost';
    }
  }
  q.spendOne.run(r.grant_id);
  q.markCommitted.run(now, reservationId);
  return 'committed';
}

function putAnswer(q: Statements, a: IdempotentAnswer, now: number): void {
  q.putIdem.run({ scope: a.scope, fingerprint: a.fingerprint, state: 'done', response: a.response, expiresAt: now + a.ttlMs });
}

function readIdem(q: Statements, scope: string, now: number): IdempotencyRecord | null {
  const row = q.getIdem.get(scope) as { fingerprint: string; state: string; response: string | null; expires_at: number } | undefined;
  if (!row || row.expires_at <= now) return null;
  return row.state === 'done'
    ? { state: 'done', fingerprint: row.fingerprint, response: row.response ?? '' }
    : { state: 'in-flight', fingerprint: row.fingerprint };
}

// One statement is atomic on its own: no JS-level transaction needed on this hot path.
function hit(q: Statements, bucket: string, limit: number, windowMs: number, now: number): RateLimitResult {
  const windowStart = now - (now % windowMs);
  const { hits } = q.hitWindow.get({ bucket, windowStart, expiresAt: windowStart + windowMs }) as { hits: number };
  return { allowed: hits <= limit, remaining: Math.max(0, limit - hits), retryAfterMs: hits <= limit ? 0 : windowStart + windowMs - now };
}

/** A number kept in a record (what was already applied), or `fallback` when there is none. */
function readAppliedNumber(q: Statements, name: string, now: number, fallback: number): number {
  const row = q.getRecord.get(name, now) as { value: string } | undefined;
  const value = row ? Number(row.value) : NaN;
  return Number.isFinite(value) ? value : fallback;
}

function expiryOf(now: number, ttlMs: number | null): number | null {
  return ttlMs === null ? null : now + ttlMs;
}

function keyOperations({ db, q, guard }: SqliteContext): Pick<Store, 'putKey' | 'getKey' | 'revokeKey' | 'countKeys' | 'rotateKey'> {
  const rotateKey = db.transaction((oldKeyHash: string, k: KeyRecord, now: number): boolean => {
    const old = q.getKey.get(oldKeyHash) as { revoked_at: number | null } | undefined;
    if (!old || old.revoked_at !== null) return false;
    // Committed and released reservations stay under the old key: they are its history, not its balance.
    q.putKey.run(k.keyHash, k.createdAt, k.revokedAt, k.label);
    q.moveGrants.run(k.keyHash, oldKeyHash);
    q.moveReservations.run(k.keyHash, oldKeyHash);
    q.moveReports.run(k.keyHash, oldKeyHash);
    q.revokeKey.run(now, oldKeyHash);
    return true;
  });
  return {
    putKey: (k: KeyRecord) => guard(() => void q.putKey.run(k.keyHash, k.createdAt, k.revokedAt, k.label)),
    getKey: (keyHash) =>
      guard(() => {
        const row = q.getKey.get(keyHash) as { key_hash: string; created_at: number; revoked_at: number | null; label: string | null } | undefined;
        return row ? { keyHash: row.key_hash, createdAt: row.created_at, revokedAt: row.revoked_at, label: row.label } : null;
      }),
    revokeKey: (keyHash, now) => guard(() => q.revokeKey.run(now, keyHash).changes === 1),
    countKeys: () => guard(() => (q.countKeys.get() as { n: number }).n),
    rotateKey: (oldKeyHash, k, now) => guard(() => rotateKey.immediate(oldKeyHash, k, now)),
  };
}

function grantOperations({ db, q, guard }: SqliteContext): Pick<Store, 'addGrant' | 'updateGrant' | 'renewGrant' | 'removeGrantCalls' | 'listGrants'> {
  const updateGrant = db.transaction((grantId: string, patch: Partial<Pick<Grant, 'calls' | 'used' | 'expiresAt'>>): boolean => {
    const sets: string[] = [];
    const values: number[] = [];
    if (patch.calls !== undefined) { sets.push('calls = ?'); values.push(patch.calls); }
    if (patch.used !== undefined) { sets.push('used = ?'); values.push(patch.used); }
    if (patch.expiresAt !== undefined) { sets.push('expires_at = ?'); values.push(patch.expiresAt); }
    if (!sets.length) return true;
    return db.prepare(`UPDATE grants SET ${sets.join(', ')} WHERE id = ?`).run(...values, grantId).changes === 1;
  });

  const renewGrant = db.transaction((grantId: string, r: GrantRenewal, now: number, ttlMs: number | null) => {
    if (!q.grantRow.get(grantId)) return 'missing' as const;
    const applied = readAppliedNumber(q, r.appliedRecord, now, r.appliedFallback);
    if (r.periodEnd - applied > r.samePeriodSlackMs) {
      q.renew.run(r.calls, r.expiresAt, grantId);
      q.periodStarts.run(now, grantId);
      q.putRecord.run(r.appliedRecord, JSON.stringify(r.periodEnd), expiryOf(now, ttlMs));
      return 'renewed' as const;
    }
    q.setExpiry.run(r.expiresAt, grantId);
    return 'extended' as const;
  });

  const removeGrantCalls = db.transaction((grantId: string, r: GrantRemoval, now: number, ttlMs: number | null): number | null => {
    const grant = q.grantRow.get(grantId) as { calls: number; used: number } | undefined;
    if (!grant) return null;
    const remove = r.target - readAppliedNumber(q, r.appliedRecord, now, 0);
    if (remove <= 0) return 0;
    const used = Math.min(grant.calls, grant.used + remove);
    q.setUsed.run(used, grantId);
    q.removedNow.run(Math.max(0, used - grant.used), grantId);
    q.putRecord.run(r.appliedRecord, JSON.stringify(r.target), expiryOf(now, ttlMs));
    return remove;
  });

  return {
    addGrant: (g) => guard(() => q.addGrant.run(g.id, g.keyHash, g.plan, g.calls, g.used, g.expiresAt, g.createdAt, g.sourceRef).changes === 1),
    updateGrant: (grantId, patch) => guard(() => updateGrant.immediate(grantId, patch)),
    renewGrant: (grantId, renewal, now, ttlMs) => guard(() => renewGrant.immediate(grantId, renewal, now, ttlMs)),
    removeGrantCalls: (grantId, removal, now, ttlMs) => guard(() => removeGrantCalls.immediate(grantId, removal, now, ttlMs)),
    listGrants: (keyHash, now) => guard(() => (q.grantsWithHolds.all({ keyHash, now }) as GrantRow[]).map((r) => toGrantState(r, now))),
  };
}

function callOperations({ db, q, guard }: SqliteContext): Pick<
  Store,
  'admitCall' | 'reserveCall' | 'commitReservation' | 'finishReservation' | 'releaseReservation' | 'getReservation'
> {
  const reserve = db.transaction((keyHash: string, reservationId: string, now: number, holdUntil: number, operation: string | null) =>
    holdOne(q, keyHash, reservationId, now, holdUntil, operation),
  );
  const commit = db.transaction((reservationId: string, now: number) => spend(q, reservationId, now));

  // A paid call's last step: the commit, its answer and the key's calls left, in one transaction (one round trip
  // to the store's thread, one WAL commit).
  const finish = db.transaction((reservationId: string, now: number, answer: IdempotentAnswer, kept: KeptReport | undefined): FinishedCall => {
    const outcome = spend(q, reservationId, now);
    if (kept) putReportRow(q, kept.report, now, kept.ttlMs);
    putAnswer(q, answer, now);
    const held = q.getReservation.get(reservationId) as { key_hash: string } | undefined;
    if (!held) return { commit: outcome, callsLeft: null };
    const grants = q.grantsWithHolds.all({ keyHash: held.key_hash, now }) as GrantRow[];
    return { commit: outcome, callsLeft: grants.reduce((n, row) => n + toGrantState(row, now).remaining, 0) };
  });

  // The statements of hitRateLimit, getKey and hitRateLimit in one transaction: one round trip to the store's
  // thread and one commit to the WAL instead of three.
  const admit = db.transaction((a: CallAdmission): AdmissionResult => {
    const ip = hit(q, a.ip.bucket, a.ip.limit, a.windowMs, a.now);
    if (!ip.allowed) return { admitted: false, refusal: 'ip-rate-limited', retryAfterMs: ip.retryAfterMs };
    const record = q.getKey.get(a.key.keyHash) as { revoked_at: number | null } | undefined;
    if (!record || record.revoked_at !== null) return { admitted: false, refusal: 'invalid-key' };
    const key = hit(q, a.key.bucket, a.key.limit, a.windowMs, a.now);
    if (!key.allowed) return { admitted: false, refusal: 'key-rate-limited', retryAfterMs: key.retryAfterMs };
    if (!a.hold) return { admitted: true };
    return { admitted: true, held: holdOne(q, a.key.keyHash, a.hold.reservationId, a.now, a.hold.holdUntil, a.hold.operation ?? null).ok };
  });

  return {
    admitCall: (admission) => guard(() => admit.immediate(admission)),
    reserveCall: (keyHash, id, now, holdUntil, operation) => guard(() => reserve.immediate(keyHash, id, now, holdUntil, operation ?? null)),
    commitReservation: (id, now) => guard(() => commit.immediate(id, now)),
    finishReservation: (id, now, answer, report) => guard(() => finish.immediate(id, now, answer, report)),
    releaseReservation: (id) => guard(() => q.release.run(id).changes === 1),
    getReservation: (id) =>
      guard((): Reservation | null => {
        const r = q.getReservation.get(id) as { id: string; key_hash: string; grant_id: string; state: Reservation['state']; hold_until: number } | undefined;
        return r ? { id: r.id, keyHash: r.key_hash, grantId: r.grant_id, state: r.state, holdUntil: r.hold_until } : null;
      }),
  };
}

function ledgerOperations({ db, q, guard }: SqliteContext): Pick<Store, 'refundCall' | 'listUsage' | 'scanGrants' | 'scanUsage'> {
  const refundCall = db.transaction((reservationId: string, now: number): RefundResult => {
    const r = q.usageRow.get(reservationId) as ReservationRow | undefined;
    if (!r) return { outcome: 'unknown' };
    if (r.state !== 'committed') return { outcome: 'not-committed', state: r.state };
    if (r.refunded_at !== null) return { outcome: 'already', refundedAt: r.refunded_at };
    const g = q.grantOf.get(r.grant_id) as { expires_at: number } | undefined;
    if (!g) return { outcome: 'unknown' };
    if (g.expires_at <= now) return { outcome: 'grant-expired', expiresAt: g.expires_at };
    q.refund.run(now, reservationId);
    q.giveBack.run(r.grant_id);
    return { outcome: 'refunded', keyHash: r.key_hash, grantId: r.grant_id };
  });

  return {
    refundCall: (id, now) => guard(() => refundCall.immediate(id, now)),
    listUsage: (keyHash, limit) => guard(() => (q.listUsage.all(keyHash, limit) as ReservationRow[]).map(toUsage)),
    scanGrants: (cursor, limit) =>
      guard(() => {
        const rows = q.scanGrants.all(cursor, limit) as Array<Omit<GrantRow, 'reserved'> & { removed: number; period_start: number | null }>;
        const items = rows.map((g): LedgerGrant => ({
          id: g.id, keyHash: g.key_hash, plan: g.plan, calls: g.calls, used: g.used, expiresAt: g.expires_at, createdAt: g.created_at,
          sourceRef: g.source_ref, removed: g.removed, periodStart: g.period_start ?? g.created_at,
        }));
        return { items, next: rows.length < limit ? null : rows[rows.length - 1].id };
      }),
    scanUsage: (cursor, limit) =>
      guard(() => {
        const rows = q.scanUsage.all(cursor, limit) as ReservationRow[];
        return { items: rows.map(toUsage), next: rows.length < limit ? null : rows[rows.length - 1].id };
      }),
  };
}

function idempotencyOperations({ db, q, guard }: SqliteContext): Pick<
  Store,
  'beginIdempotent' | 'completeIdempotent' | 'abandonIdempotent' | 'getIdempotent'
> {
  const beginIdem = db.transaction((scope: string, fingerprint: string, now: number, ttl: number): IdempotencyRecord | null => {
    const existing = readIdem(q, scope, now);
    if (existing) return existing;
    q.putIdem.run({ scope, fingerprint, state: 'in-flight', response: null, expiresAt: now + ttl });
    return null;
  });

  return {
    beginIdempotent: (scope, fp, now, ttl) => guard(() => beginIdem.immediate(scope, fp, now, ttl)),
    completeIdempotent: (scope, fingerprint, response, now, ttlMs) => guard(() => putAnswer(q, { scope, fingerprint, response, ttlMs }, now)),
    abandonIdempotent: (scope, fp) => guard(() => void q.deleteIdem.run(scope, fp)),
    getIdempotent: (scope, now) => guard(() => readIdem(q, scope, now)),
  };
}

function limitOperations({ db, q, guard }: SqliteContext): Pick<Store, 'hitRateLimit' | 'returnRateLimit' | 'claimOnce' | 'releaseClaim'> {
  const claim = db.transaction((key: string, now: number, ttlMs: number): boolean => {
    const row = q.getClaim.get(key) as { expires_at: number } | undefined;
    if (row && row.expires_at > now) return false;
    q.putClaim.run(key, now + ttlMs);
    return true;
  });

  return {
    hitRateLimit: (bucket, limit, windowMs, now) => guard(() => hit(q, bucket, limit, windowMs, now)),
    returnRateLimit: (bucket, windowMs, now) => guard(() => void q.returnWindow.run({ bucket, windowStart: now - (now % windowMs) })),
    claimOnce: (key, now, ttlMs) => guard(() => claim.immediate(key, now, ttlMs)),
    releaseClaim: (key) => guard(() => void q.deleteClaim.run(key)),
  };
}

function recordOperations({ db, q, guard }: SqliteContext): Pick<Store, 'setRecord' | 'getRecord' | 'takeRecord' | 'listRecords' | 'addCapped'> {
  const takeRecord = db.transaction((name: string, now: number): string | null => {
    const row = q.getRecord.get(name, now) as { value: string } | undefined;
    q.deleteRecord.run(name);
    return row?.value ?? null;
  });
  const addCapped = db.transaction((name: string, amount: number, cap: number, now: number, ttlMs: number) => {
    const row = q.getRecordExpiry.get(name, now) as { value: string; expiresAt: number | null } | undefined;
    const total = Number(row?.value ?? 0);
    if (total + amount > cap) return { added: false, total };
    q.putRecord.run(name, String(total + amount), row ? row.expiresAt : now + ttlMs);
    return { added: true, total: total + amount };
  });

  return {
    setRecord: (name, value, now, ttlMs) => guard(() => void q.putRecord.run(name, value, expiryOf(now, ttlMs))),
    getRecord: (name, now) => guard(() => (q.getRecord.get(name, now) as { value: string } | undefined)?.value ?? null),
    takeRecord: (name, now) => guard(() => takeRecord.immediate(name, now)),
    listRecords: (prefix, now, limit) => guard(() => q.listRecords.all(prefix, prefix, now, limit) as Array<{ name: string; value: string }>),
    addCapped: (name, amount, cap, now, ttlMs) => guard(() => addCapped.immediate(name, amount, cap, now, ttlMs)),
  };
}

/** Keeps one report; shared by putReport and finishReservation. */
function putReportRow(q: Statements, r: StoredReport, now: number, ttlMs: number): void {
  q.putReport.run({ id: r.id, keyHash: r.keyHash, operation: r.operation, createdAt: r.createdAt, creditsUsage: r.creditsUsage, target: r.target, score: r.score, verdict: r.verdict, body: r.body, input: r.input, expiresAt: now + ttlMs });
}

function reportOperations({ q, guard }: SqliteContext): Pick<Store, 'putReport' | 'getReport' | 'listReports'> {
  return {
    putReport: (r: StoredReport, now, ttlMs) => guard(() => putReportRow(q, r, now, ttlMs)),
    getReport: (id, now) =>
      guard((): StoredReport | null => {
        const row = q.getReport.get(id, now) as (ReportRow & { body: string }) | undefined;
        return row ? { ...toSummary(row), body: row.body, input: row.input ?? null } : null;
      }),
    listReports: (keyHash, now, options: { limit: number; before?: ReportCursor }) =>
      guard(() => {
        // No cursor: a creation time no report can reach, so the id never matters.
        const { createdAt, id } = options.before ?? { createdAt: Number.MAX_SAFE_INTEGER, id: '' };
        const rows = q.listReports.all({ keyHash, now, createdAt, id, limit: options.limit }) as ReportRow[];
        return rows.map(toSummary);
      }),
  };
}

// One short transaction per batch: a backlog of expired rows never holds the write lock for long.
function purgeOperation({ q, guard }: SqliteContext): Pick<Store, 'purgeExpired'> {
  return {
    purgeExpired: async (now: number): Promise<PurgeCounts> => {
      const counts: PurgeCounts = { rateWindows: 0, idempotency: 0, claims: 0, reservations: 0, records: 0, reports: 0 };
      for (const kind of Object.keys(counts) as Array<keyof PurgeCounts>) {
        const cutoff = kind === 'reservations' ? now - RESERVATION_RETENTION_MS : now;
        for (;;) {
          const deleted = await guard(() => q.purge[kind].run(cutoff).changes);
          counts[kind] += deleted;
          if (deleted < PURGE_BATCH) break;
        }
      }
      return counts;
    },
  };
}

/**
 * The SQLite store over `<dataDir>/store.sqlite`, on the calling thread (`openSqliteStoreOffThread` runs it on
 * a thread of its own).
 *
 * @example
 *   const store = openSqliteStore('.data')
 *   await store.putKey({ keyHash, createdAt: Date.now(), revokedAt: null, label: null })
 */
export function openSqliteStore(dataDir: string): Store {
  const db = openDatabase(dataDir);
  const context: SqliteContext = { db, q: prepareStatements(db), guard: busyGuard(db) };
  return {
    kind: 'sqlite',
    ...keyOperations(context),
    ...grantOperations(context),
    ...callOperations(context),
    ...ledgerOperations(context),
    ...idempotencyOperations(context),
    ...limitOperations(context),
    ...recordOperations(context),
    ...reportOperations(context),
    ...purgeOperation(context),
    close: async () => void db.close(),
  };
}
