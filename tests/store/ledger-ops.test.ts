import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Grant, Store } from '@/lib/store/types';
import { openSqliteStore } from '@/lib/store/sqlite';
import { auditLedger } from '@/lib/credits/audit';
import { redisHarness, sqliteHarness, vercelKvHarness } from './adapters';

// The ledger tools' store operations (refundCall, listUsage, scanGrants, scanUsage) on every adapter: what
// `keys refund`, `keys usage` and `ledger audit` rely on.

const T0 = Date.UTC(2026, 10, 1);
const DAY = 24 * 60 * 60 * 1000;

const grant = (over: Partial<Grant> & Pick<Grant, 'id' | 'keyHash'>): Grant => ({
  plan: 'bundle-25', calls: 5, used: 0, expiresAt: T0 + 365 * DAY, createdAt: T0, sourceRef: null, ...over,
});

async function spend(s: Store, keyHash: string, id: string, at: number, operation?: string) {
  expect((await s.reserveCall(keyHash, id, at, at + 120_000, operation)).ok).toBe(true);
  expect(await s.commitReservation(id, at + 1)).toBe('committed');
}

async function walkAll<T extends { id: string }>(scan: (cursor: string, limit: number) => Promise<{ items: T[]; next: string | null }>): Promise<Map<string, T>> {
  const all = new Map<string, T>();
  for (let cursor: string | null = ''; cursor !== null; ) {
    const page: { items: T[]; next: string | null } = await scan(cursor, 2);
    for (const item of page.items) all.set(item.id, item);
    cursor = page.next;
  }
  return all;
}

for (const harness of [sqliteHarness(), sqliteHarness({ offThread: true }), redisHarness(), vercelKvHarness()]) {
  describe.skipIf(!harness.available)(`ledger operations: ${harness.name}`, () => {
    beforeAll(() => harness.setup());
    afterAll(() => harness.teardown());

    it('gives a spent call back once: the balance grows by one, a second refund is refused and changes nothing', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g', keyHash: 'k' }));
      await spend(s, 'k', 'cu_a', T0, 'readiness');
      expect((await s.listGrants('k', T0 + 2))[0]).toMatchObject({ used: 1, remaining: 4 });

      expect(await s.refundCall('cu_a', T0 + 10)).toEqual({ outcome: 'refunded', keyHash: 'k', grantId: 'g' });
      expect((await s.listGrants('k', T0 + 11))[0]).toMatchObject({ used: 0, remaining: 5 });
      expect(await s.refundCall('cu_a', T0 + 20)).toEqual({ outcome: 'already', refundedAt: T0 + 10 });
      expect((await s.listGrants('k', T0 + 21))[0]).toMatchObject({ used: 0, remaining: 5 });
      // A refunded call stays spent in the record (it was delivered), with the time it was given back.
      expect(await s.getReservation('cu_a')).toMatchObject({ state: 'committed' });
    });

    it('refuses to give back a call that was never charged, an unknown one, and one whose grant expired', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g', keyHash: 'k' }));
      await s.addGrant(grant({ id: 'short', keyHash: 'k2', expiresAt: T0 + DAY }));
      expect((await s.reserveCall('k', 'cu_held', T0, T0 + 120_000)).ok).toBe(true);
      expect((await s.reserveCall('k', 'cu_released', T0, T0 + 120_000)).ok).toBe(true);
      await s.releaseReservation('cu_released');
      await spend(s, 'k2', 'cu_old', T0);

      expect(await s.refundCall('cu_held', T0 + 1)).toEqual({ outcome: 'not-committed', state: 'held' });
      expect(await s.refundCall('cu_released', T0 + 1)).toEqual({ outcome: 'not-committed', state: 'released' });
      expect(await s.refundCall('cu_nope', T0 + 1)).toEqual({ outcome: 'unknown' });
      expect(await s.refundCall('cu_old', T0 + 2 * DAY)).toEqual({ outcome: 'grant-expired', expiresAt: T0 + DAY });
      expect((await s.listGrants('k', T0 + 2))[0]).toMatchObject({ used: 0, reserved: 1 });
      expect((await s.listGrants('k2', T0 + 2))[0]).toMatchObject({ used: 1 });
    });

    it('gives a call back exactly once when ten refunds of it race', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g', keyHash: 'k' }));
      await spend(s, 'k', 'cu_race', T0);
      await spend(s, 'k', 'cu_other', T0);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => s.refundCall('cu_race', T0 + 10 + i)));
      expect(results.filter((r) => r.outcome === 'refunded')).toHaveLength(1);
      expect(results.filter((r) => r.outcome === 'already')).toHaveLength(9);
      expect((await s.listGrants('k', T0 + 100))[0]).toMatchObject({ used: 1, remaining: 4 });
    });

    it('lists a key\'s spent calls newest first, with their operation and whether they were given back', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g1', keyHash: 'k', expiresAt: T0 + 10 * DAY, calls: 1 }));
      await s.addGrant(grant({ id: 'g2', keyHash: 'k' }));
      await s.addGrant(grant({ id: 'g3', keyHash: 'someone-else' }));
      await spend(s, 'k', 'cu_1', T0 + 1000, 'agent-payment-readiness');
      await spend(s, 'k', 'cu_2', T0 + 2000, 'ai-visibility');
      await spend(s, 'k', 'cu_3', T0 + 3000);
      await spend(s, 'someone-else', 'cu_x', T0 + 4000, 'ai-visibility');
      expect((await s.reserveCall('k', 'cu_held', T0 + 5000, T0 + 125_000)).ok).toBe(true);
      await s.refundCall('cu_2', T0 + 6000);

      expect(await s.listUsage('k', 10)).toEqual([
        { id: 'cu_3', keyHash: 'k', grantId: 'g2', state: 'committed', holdUntil: T0 + 123_000, committedAt: T0 + 3001, refundedAt: null, operation: null },
        { id: 'cu_2', keyHash: 'k', grantId: 'g2', state: 'committed', holdUntil: T0 + 122_000, committedAt: T0 + 2001, refundedAt: T0 + 6000, operation: 'ai-visibility' },
        { id: 'cu_1', keyHash: 'k', grantId: 'g1', state: 'committed', holdUntil: T0 + 121_000, committedAt: T0 + 1001, refundedAt: null, operation: 'agent-payment-readiness' },
      ]);
      expect((await s.listUsage('k', 2)).map((u) => u.id)).toEqual(['cu_3', 'cu_2']);
      expect(await s.listUsage('nobody', 10)).toEqual([]);
    });

    it('walks every grant and every reservation a page at a time, with the calls refunds removed and the period start', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'ga', keyHash: 'k1' }));
      await s.addGrant(grant({ id: 'gb', keyHash: 'k1', calls: 3 }));
      await s.addGrant(grant({ id: 'gc', keyHash: 'k2', plan: 'subscription', calls: 50, expiresAt: T0 + 30 * DAY }));
      await spend(s, 'k1', 'cu_1', T0);
      await spend(s, 'k2', 'cu_2', T0);
      expect((await s.reserveCall('k1', 'cu_3', T0, T0 + 120_000)).ok).toBe(true);
      // A payment refund removes 2 calls from gb; a renewal of gc starts its period over.
      expect(await s.removeGrantCalls('gb', { appliedRecord: 'refund-applied:pi_1', target: 2 }, T0 + 5, null)).toBe(2);
      const renewal = { appliedRecord: 'sub-applied:sub_1', appliedFallback: T0 + 30 * DAY, periodEnd: T0 + 60 * DAY, samePeriodSlackMs: DAY, calls: 50, expiresAt: T0 + 61 * DAY };
      expect(await s.renewGrant('gc', renewal, T0 + 30 * DAY, null)).toBe('renewed');

      const grants = await walkAll((c, l) => s.scanGrants(c, l));
      expect([...grants.keys()].sort()).toEqual(['ga', 'gb', 'gc']);
      expect(grants.get('ga')).toEqual({ ...grant({ id: 'ga', keyHash: 'k1' }), used: 1, removed: 0, periodStart: T0 });
      expect(grants.get('gb')).toMatchObject({ calls: 3, used: 2, removed: 2, periodStart: T0 });
      expect(grants.get('gc')).toMatchObject({ calls: 50, used: 0, removed: 0, periodStart: T0 + 30 * DAY, expiresAt: T0 + 61 * DAY });

      const usage = await walkAll((c, l) => s.scanUsage(c, l));
      expect([...usage.keys()].sort()).toEqual(['cu_1', 'cu_2', 'cu_3']);
      expect(usage.get('cu_3')).toMatchObject({ keyHash: 'k1', state: 'held', committedAt: null, refundedAt: null });
      expect(usage.get('cu_2')).toMatchObject({ keyHash: 'k2', grantId: 'gc', state: 'committed', committedAt: T0 + 1 });
    });
  });
}

describe('ledger operations on a SQLite file written before them', () => {
  it('adds the new columns in place: old spent calls are listed (operation unknown), refundable once, and audited', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-old-store-'));
    try {
      // The tables as the release before the ledger tools created them, with one call spent.
      const db = new Database(path.join(dir, 'store.sqlite'));
      db.exec(`
        CREATE TABLE grants (id TEXT PRIMARY KEY, key_hash TEXT NOT NULL, plan TEXT NOT NULL, calls INTEGER NOT NULL,
          used INTEGER NOT NULL DEFAULT 0, expires_at INTEGER NOT NULL, created_at INTEGER NOT NULL, source_ref TEXT);
        CREATE TABLE reservations (id TEXT PRIMARY KEY, key_hash TEXT NOT NULL, grant_id TEXT NOT NULL, state TEXT NOT NULL,
          hold_until INTEGER NOT NULL, committed_at INTEGER);`);
      db.prepare("INSERT INTO grants VALUES ('g', 'k', 'bundle-25', 25, 1, ?, ?, NULL)").run(T0 + 365 * DAY, T0);
      db.prepare("INSERT INTO reservations VALUES ('cu_old', 'k', 'g', 'committed', ?, ?)").run(T0 + 120_000, T0 + 5);
      db.close();

      const [a, b] = [openSqliteStore(dir), openSqliteStore(dir)];
      try {
        expect(await a.listUsage('k', 10)).toEqual([
          { id: 'cu_old', keyHash: 'k', grantId: 'g', state: 'committed', holdUntil: T0 + 120_000, committedAt: T0 + 5, refundedAt: null, operation: null },
        ]);
        expect((await auditLedger(b, { now: T0 + 10 })).discrepancies).toEqual([]);
        expect((await b.refundCall('cu_old', T0 + 10)).outcome).toBe('refunded');
        expect((await a.refundCall('cu_old', T0 + 11)).outcome).toBe('already');
        expect((await a.listGrants('k', T0 + 12))[0]).toMatchObject({ used: 0, remaining: 25 });
      } finally {
        await a.close();
        await b.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
