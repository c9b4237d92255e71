import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '@/lib/store/sqlite';
import type { Store } from '@/lib/store';
import { auditLedger, usageTable } from '@/lib/credits/audit';
import { createKey } from '@/lib/credits/ledger';
import { hashKey } from '@/lib/credits/keys';
import { currentKeyHash, rotateCreditsKey } from '@/lib/billing/rotate';

// The audit's arithmetic over a ledger that lived through what the service does to it: spends, payment refunds
// removing calls, subscription renewals resetting `used`, and operator refunds before and after a renewal.

const T0 = Date.UTC(2026, 10, 1);
const DAY = 24 * 60 * 60 * 1000;
let dir: string;
let store: Store;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-audit-'));
  store = openSqliteStore(dir);
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function spend(keyHash: string, id: string, at: number) {
  expect((await store.reserveCall(keyHash, id, at, at + 120_000, 'ai-visibility')).ok).toBe(true);
  expect(await store.commitReservation(id, at + 1)).toBe('committed');
}

describe('ledger audit', () => {
  it('balances after a key rotation: the spent calls stay with the old key, the grant moves to the new one', async () => {
    const secret = 's'.repeat(40);
    const { key } = await createKey(store, secret, 'bundle-25');
    const oldHash = hashKey(key, secret);
    // createKey stamps its grant with the real clock; the calls come after it.
    const t = Date.now() + 1000;
    await spend(oldHash, 'cu_before', t);
    const rotated = await rotateCreditsKey({ store, secret }, oldHash, t + 10);
    await spend(rotated.keyHash, 'cu_after', t + 20);
    const now = t + 30;
    const report = await auditLedger(store, { now, holderOf: (h) => currentKeyHash(store, h, now) });
    expect(report.discrepancies).toEqual([]);
    expect(report.keys).toEqual([{ keyHash: rotated.keyHash, granted: 25, committed: 2, givenBack: 0, removed: 0, left: 23 }]);
    // Without the rotation lookup the old key's spent call looks misplaced: the check is real.
    expect((await auditLedger(store, { now })).discrepancies.map((d) => d.usageId)).toEqual(['cu_before']);
  });

  it('balances through payment refunds, renewals and refunds on either side of a renewal', async () => {
    await store.addGrant({ id: 'bundle', keyHash: 'k', plan: 'bundle-25', calls: 25, used: 0, expiresAt: T0 + 365 * DAY, createdAt: T0, sourceRef: null });
    await store.addGrant({ id: 'sub', keyHash: 'k', plan: 'subscription', calls: 50, used: 0, expiresAt: T0 + 10 * DAY, createdAt: T0, sourceRef: null });
    // The subscription expires first, so it is spent first.
    for (let i = 0; i < 4; i++) await spend('k', `cu_${i}`, T0 + i);
    expect((await store.refundCall('cu_0', T0 + DAY)).outcome).toBe('refunded');
    expect(await store.removeGrantCalls('bundle', { appliedRecord: 'refund-applied:pi_1', target: 5 }, T0 + DAY, null)).toBe(5);
    const renewal = { appliedRecord: 'sub-applied:sub_1', appliedFallback: T0 + 10 * DAY, periodEnd: T0 + 40 * DAY, samePeriodSlackMs: DAY, calls: 50, expiresAt: T0 + 41 * DAY };
    expect(await store.renewGrant('sub', renewal, T0 + 9 * DAY, null)).toBe('renewed');
    await spend('k', 'cu_new', T0 + 9 * DAY + 10);
    // A call of the old period given back after the renewal adds one to the new period.
    expect((await store.refundCall('cu_1', T0 + 9 * DAY + 20)).outcome).toBe('refunded');
    expect((await store.reserveCall('k', 'cu_lapsed', T0 + 9 * DAY, T0 + 9 * DAY + 120_000)).ok).toBe(true);

    const report = await auditLedger(store, { now: T0 + 10 * DAY });
    expect(report.discrepancies).toEqual([]);
    expect(report.keys).toEqual([{ keyHash: 'k', granted: 75, committed: 1, givenBack: 1, removed: 5, left: 70 }]);
    expect([report.grants, report.usages, report.lapsedHolds]).toEqual([2, 6, 1]);
  });

  it('names each kind of discrepancy: a spend without a usage, a usage on a missing grant or another key, a hold past its timeout', async () => {
    await store.addGrant({ id: 'g', keyHash: 'k', plan: 'bundle-25', calls: 25, used: 0, expiresAt: T0 + 365 * DAY, createdAt: T0, sourceRef: null });
    await store.addGrant({ id: 'other', keyHash: 'k2', plan: 'bundle-25', calls: 25, used: 0, expiresAt: T0 + 365 * DAY, createdAt: T0, sourceRef: null });
    await spend('k', 'cu_1', T0);
    await store.updateGrant('g', { used: 2 });
    expect((await store.reserveCall('k', 'cu_long', T0, T0 + 10 * DAY)).ok).toBe(true);
    // Hand edits that only a broken restore or a direct write could make.
    const db = (await import('better-sqlite3')).default(path.join(dir, 'store.sqlite'));
    db.prepare("INSERT INTO reservations (id, key_hash, grant_id, state, hold_until, committed_at) VALUES ('cu_orphan', 'k', 'gone', 'committed', ?, ?)").run(T0, T0);
    db.prepare("INSERT INTO reservations (id, key_hash, grant_id, state, hold_until, committed_at) VALUES ('cu_moved', 'k', 'other', 'committed', ?, ?)").run(T0, T0);
    db.close();

    const report = await auditLedger(store, { now: T0 + 1000, holdMs: 120_000 });
    expect(report.discrepancies.map((d) => [d.kind, d.grantId, d.usageId, d.detail])).toEqual(expect.arrayContaining([
      ['balance', 'g', null, 'more calls spent than usages committed (a call charged twice, or without a usage): used 2, but committed 1 − given back 0 + removed 0 = 1'],
      ['hold', 'g', 'cu_long', `held until ${new Date(T0 + 10 * DAY).toISOString()}, past its 120 s timeout`],
      ['usage', 'gone', 'cu_orphan', 'usage names grant gone, which does not exist'],
      ['usage', 'other', 'cu_moved', 'usage is on another key than its grant other'],
      ['balance', 'other', null, 'fewer calls spent than usages committed: used 0, but committed 1 − given back 0 + removed 0 = 1'],
    ]));
    expect(report.discrepancies).toHaveLength(5);
  });

  it('writes usage as CSV, quoting what needs it', () => {
    const csv = usageTable([{ id: 'cu_1', keyHash: 'k', grantId: 'g', state: 'committed', holdUntil: T0, committedAt: T0, refundedAt: null, operation: 'a,"b"' }], 'csv');
    expect(csv).toBe(`time,operation,usage,refunded,refunded_at\n${new Date(T0).toISOString()},"a,""b""",cu_1,no,`);
  });
});
