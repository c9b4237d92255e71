import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import Database from 'better-sqlite3';
import Redis from 'ioredis';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStore } from '@/lib/store/sqlite';
import { openSqliteStoreOffThread } from '@/lib/store/sqlite-thread';
import { PURGE_INTERVAL_MS, startPurgeSchedule } from '@/lib/store/purge';
import { NATIVE_TTL_SLACK_MS, RESERVATION_RETENTION_MS, type Store } from '@/lib/store/types';
import { parseConfig } from '@/lib/config';
import { setRuntimeForTests } from '@/lib/runtime';
import { startup } from '@/lib/startup';
import { redisHarness, vercelKvHarness } from './adapters';

// Every unpaid request writes a rate-limit row; if nothing deleted them, 3,000 requests from made-up
// addresses would grow the SQLite file by 48.7 MiB. SQLite purges on a timer in the server; Redis and KV
// must give every expiring key a native TTL so they delete it themselves.

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const dirs: string[] = [];
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-purge-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function rowCounts(dir: string) {
  const db = new Database(path.join(dir, 'store.sqlite'), { readonly: true });
  try {
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { rateWindows: count('rate_windows'), pages: db.pragma('page_count', { simple: true }) as number };
  } finally {
    db.close();
  }
}

/** What an unpaid flood leaves: one rate window per made-up client address. */
async function flood(store: Store, round: number, now: number) {
  for (let i = 0; i < 3_000; i++) await store.hitRateLimit(`ip:198.51.${round}.${i}-${crypto.randomBytes(6).toString('hex')}`, 600, MINUTE, now);
}

describe('sqlite purge', () => {
  it('deletes a flood of expired rate windows, and the file stops growing', async () => {
    const dir = tempDir();
    const store = openSqliteStore(dir);
    const t0 = Date.UTC(2026, 10, 1);
    await flood(store, 1, t0);
    expect(rowCounts(dir).rateWindows).toBe(3_000);
    // Still inside the window: nothing is expired, nothing goes.
    expect((await store.purgeExpired(t0 + 1)).rateWindows).toBe(0);
    expect((await store.purgeExpired(t0 + 2 * MINUTE)).rateWindows).toBe(3_000);
    const afterFirst = rowCounts(dir);
    expect(afterFirst.rateWindows).toBe(0);
    // A second flood of as many new addresses reuses the freed pages instead of growing the file.
    await flood(store, 2, t0 + 3 * MINUTE);
    await store.purgeExpired(t0 + 5 * MINUTE);
    const afterSecond = rowCounts(dir);
    expect(afterSecond.rateWindows).toBe(0);
    expect(afterSecond.pages).toBeLessThanOrEqual(afterFirst.pages);
    await store.close();
  });

  it('keeps a reservation RESERVATION_RETENTION_MS past its hold before purging it', async () => {
    const store = openSqliteStore(tempDir());
    const t0 = Date.UTC(2026, 10, 1);
    await store.addGrant({ id: 'g', keyHash: 'k', plan: 'bundle-25', calls: 2, used: 0, expiresAt: t0 + 365 * DAY, createdAt: t0, sourceRef: null });
    await store.reserveCall('k', 'released', t0, t0 + 1_000);
    await store.releaseReservation('released');
    await store.reserveCall('k', 'lapsed', t0, t0 + 1_000);
    expect((await store.purgeExpired(t0 + 1_000 + RESERVATION_RETENTION_MS - 1)).reservations).toBe(0);
    expect((await store.purgeExpired(t0 + 1_000 + RESERVATION_RETENTION_MS)).reservations).toBe(2);
    expect(await store.getReservation('lapsed')).toBeNull();
    await store.close();
  });

  it('migrates a file whose rate windows have no expiry column, and purges its old windows', async () => {
    const dir = tempDir();
    const old = new Database(path.join(dir, 'store.sqlite'));
    old.exec('CREATE TABLE rate_windows (bucket TEXT PRIMARY KEY, window_start INTEGER NOT NULL, hits INTEGER NOT NULL)');
    old.prepare('INSERT INTO rate_windows VALUES (?, ?, ?)').run('ip:old', 0, 3);
    old.close();
    const store = openSqliteStore(dir);
    const now = Date.UTC(2026, 10, 1);
    expect((await store.hitRateLimit('ip:new', 10, MINUTE, now)).allowed).toBe(true);
    expect((await store.purgeExpired(now)).rateWindows).toBe(1);
    expect(rowCounts(dir).rateWindows).toBe(1);
    await store.close();
  });
});

describe('the purge schedule', () => {
  afterEach(() => {
    vi.useRealTimers();
    setRuntimeForTests(undefined);
    delete (globalThis as { __pacPurge?: unknown }).__pacPurge;
  });

  it('purges on its timer and logs what it deleted', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const store = openSqliteStore(tempDir());
    const now = Date.UTC(2026, 10, 1);
    await store.setRecord('short', 'v', now - 2_000, 1_000);
    const events: Array<Record<string, unknown>> = [];
    const schedule = startPurgeSchedule(store, { intervalMs: 10_000, now: () => now, log: (e) => events.push(e) });
    await vi.advanceTimersByTimeAsync(9_999);
    expect(events).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await vi.waitFor(() => expect(events).toEqual([{ event: 'store-purged', rateWindows: 0, idempotency: 0, claims: 0, reservations: 0, records: 1, reports: 0 }]));
    schedule.stop();
    await store.close();
  });

  it('logs a failed purge and keeps the timer running', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const events: Array<Record<string, unknown>> = [];
    let calls = 0;
    const failing = { purgeExpired: async () => { calls += 1; throw new Error('store unavailable'); } };
    const schedule = startPurgeSchedule(failing, { intervalMs: 1_000, log: (e) => events.push(e) });
    await vi.advanceTimersByTimeAsync(2_000);
    await vi.waitFor(() => expect(calls).toBe(2));
    expect(events).toEqual([
      { event: 'store-purge-failed', error: 'store unavailable' },
      { event: 'store-purge-failed', error: 'store unavailable' },
    ]);
    schedule.stop();
  });

  it('is started by the server at startup, on the store the server runs (a worker thread)', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const dir = tempDir();
    const store = openSqliteStoreOffThread(dir);
    await store.setRecord('expired', 'v', Date.now() - 2_000, 1_000);
    const events: Array<Record<string, unknown>> = [];
    setRuntimeForTests({ config: parseConfig({ DATA_DIR: dir }), store, rails: null, log: (e) => events.push(e) });
    vi.spyOn(console, 'log').mockImplementation(() => {});
    startup();
    await vi.advanceTimersByTimeAsync(PURGE_INTERVAL_MS);
    await vi.waitFor(() => expect(events).toContainEqual(expect.objectContaining({ event: 'store-purged', records: 1 })));
    expect(await store.getRecord('expired', 0)).toBeNull();
    (globalThis as { __pacPurge?: { stop(): void } }).__pacPurge?.stop();
    await store.close();
  });
});

for (const harness of [redisHarness(), vercelKvHarness()]) {
  describe.skipIf(!harness.available)(`${harness.name}: every expiring key has a native TTL`, () => {
    let redis: Redis;
    beforeAll(async () => {
      await harness.setup();
      redis = new Redis(harness.server().url);
    });
    afterAll(async () => {
      redis?.disconnect();
      await harness.teardown();
    });

    it('writes a TTL on rate windows, idempotency records, claims, reservations and expiring records; none on what must stay', async () => {
      const prefix = `p${crypto.randomBytes(4).toString('hex')}:`;
      const s = harness.fresh(prefix);
      const now = Date.now();
      await s.putKey({ keyHash: 'k', createdAt: now, revokedAt: null, label: null });
      await s.addGrant({ id: 'g', keyHash: 'k', plan: 'bundle-25', calls: 5, used: 0, expiresAt: now + 365 * DAY, createdAt: now, sourceRef: null });
      await s.reserveCall('k', 'committed', now, now + MINUTE);
      await s.commitReservation('committed', now + 1);
      await s.reserveCall('k', 'released', now, now + MINUTE);
      await s.releaseReservation('released');
      await s.reserveCall('k', 'lapsed', now, now + MINUTE);
      await s.hitRateLimit('ip:1', 10, MINUTE, now);
      await s.beginIdempotent('op:inflight', 'fp', now, 3 * MINUTE);
      await s.beginIdempotent('op:done', 'fp', now, 3 * MINUTE);
      await s.completeIdempotent('op:done', 'fp', '{}', now, DAY);
      await s.claimOnce('cred', now, 10 * MINUTE);
      await s.setRecord('short', 'v', now, MINUTE);
      await s.setRecord('forever', 'v', now, null);
      await s.putReport({ id: 'rep_1', keyHash: 'k', operation: 'readiness', createdAt: now, creditsUsage: 'cu_1', target: 'w', score: 50, verdict: null, body: '{}', input: null }, now, 30 * DAY);

      const keys = (await redis.keys(`${prefix}*`)).map((k) => k.slice(prefix.length)).sort();
      const ttls = Object.fromEntries(await Promise.all(keys.map(async (k) => [k, await redis.pttl(prefix + k)] as const)));
      const kept = keys.filter((k) => ttls[k] === -1);
      // A grant's holds set lives with the grant; its lapsed entries go at the grant's next reservation. A key's
      // usage index (`keys usage`) names only committed reservations, which are kept for good too.
      expect(kept).toEqual(['grant:g', 'grant:g:holds', 'key:k', 'key:k:grants', 'key:k:usage', 'keys', 'rec:forever', 'res:committed'].sort());
      // Each native TTL is the record's own ttl plus the skew slack: it outlasts the ttl (so Redis never deletes
      // what the caller's clock still holds live) and no more than the slack.
      const within = (k: string, ttl: number) => [k, ttls[k] > ttl && ttls[k] <= ttl + NATIVE_TTL_SLACK_MS];
      // A rate window needs no slack (its window is in its name): it lives one window from its first hit.
      const window = 'rl:ip:1:' + (now - (now % MINUTE));
      expect([ttls[window] > 0, ttls[window] <= MINUTE]).toEqual([true, true]);
      expect([
        within('idem:op:inflight', 3 * MINUTE),
        within('idem:op:done', DAY),
        within('claim:cred', 10 * MINUTE),
        within('rec:short', MINUTE),
        within('res:released', MINUTE + RESERVATION_RETENTION_MS),
        within('res:lapsed', MINUTE + RESERVATION_RETENTION_MS),
        within('report:rep_1', 30 * DAY),
        within('key:k:reports', 30 * DAY),
      ]).toEqual([
        ['idem:op:inflight', true], ['idem:op:done', true], ['claim:cred', true],
        ['rec:short', true], ['res:released', true], ['res:lapsed', true],
        ['report:rep_1', true], ['key:k:reports', true],
      ]);
      await s.close();
    });

    it('still reads records and claims written before they carried their expiry', async () => {
      const prefix = `l${crypto.randomBytes(4).toString('hex')}:`;
      const s = harness.fresh(prefix);
      const now = Date.now();
      await redis.set(`${prefix}rec:legacy`, 'old-value');
      await redis.set(`${prefix}claim:legacy`, '1', 'PX', MINUTE);
      expect(await s.getRecord('legacy', now)).toBe('old-value');
      expect(await s.claimOnce('legacy', now, MINUTE)).toBe(false);
      expect(await s.takeRecord('legacy', now)).toBe('old-value');
      expect(await s.getRecord('legacy', now)).toBeNull();
      await s.close();
    });
  });
}
