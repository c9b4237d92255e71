import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallAdmission, Grant } from '@/lib/store/types';
import { readReplayRecord, writeReplayRecord } from '@/lib/payments/replay-record';
import { NO_RECEIPT } from '@/lib/payments/wire';
import { redisHarness, sqliteHarness, vercelKvHarness } from './adapters';

// The store steps a paid call makes in one round trip each, on every adapter: `admitCall` (both rate
// windows and the key, and with `hold` one call held) and `finishReservation` (the commit, the call's answer and
// the calls left). Each must leave the store exactly as the single-purpose operations it stands for would, so
// both paths can serve the same keys, windows and grants.

const T0 = Date.UTC(2026, 10, 1);
const WINDOW = 60_000;
const NOW = T0 + 10_000;
const DAY = 24 * 60 * 60 * 1000;

const admission = (over: { ipLimit?: number; keyLimit?: number; keyHash?: string; now?: number } = {}): CallAdmission => ({
  now: over.now ?? NOW,
  windowMs: WINDOW,
  ip: { bucket: 'ip:203.0.113.7', limit: over.ipLimit ?? 10 },
  key: { keyHash: over.keyHash ?? 'k1', bucket: `key:${over.keyHash ?? 'k1'}`, limit: over.keyLimit ?? 10 },
});

const grant = (over: Partial<Grant> & Pick<Grant, 'id' | 'keyHash'>): Grant => ({
  plan: 'bundle-25', calls: 3, used: 0, expiresAt: T0 + 365 * DAY, createdAt: T0, sourceRef: null, ...over,
});

for (const harness of [sqliteHarness(), sqliteHarness({ offThread: true }), redisHarness(), vercelKvHarness()]) {
  describe.skipIf(!harness.available)(`paid-call store steps: ${harness.name}`, () => {
    beforeAll(() => harness.setup());
    afterAll(() => harness.teardown());

    it('admits a live key, counting one hit in the address window and one in the key window, as hitRateLimit counts them', async () => {
      const s = harness.fresh();
      await s.putKey({ keyHash: 'k1', createdAt: T0, revokedAt: null, label: null });
      expect(await s.admitCall(admission({ ipLimit: 3, keyLimit: 5 }))).toEqual({ admitted: true });
      expect(await s.admitCall(admission({ ipLimit: 3, keyLimit: 5 }))).toEqual({ admitted: true });
      // The same windows hitRateLimit counts: two hits already in each.
      expect(await s.hitRateLimit('ip:203.0.113.7', 3, WINDOW, NOW)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
      expect(await s.hitRateLimit('key:k1', 5, WINDOW, NOW)).toEqual({ allowed: true, remaining: 2, retryAfterMs: 0 });
    });

    it('refuses a full address window first, counting nothing else, and says when that window ends', async () => {
      const s = harness.fresh();
      await s.putKey({ keyHash: 'k1', createdAt: T0, revokedAt: null, label: null });
      await s.hitRateLimit('ip:203.0.113.7', 1, WINDOW, NOW);
      expect(await s.admitCall(admission({ ipLimit: 1 }))).toEqual({ admitted: false, refusal: 'ip-rate-limited', retryAfterMs: 50_000 });
      // The key's window was never reached.
      expect(await s.hitRateLimit('key:k1', 10, WINDOW, NOW)).toEqual({ allowed: true, remaining: 9, retryAfterMs: 0 });
    });

    it('refuses an unknown or revoked key after counting the address, and never counts its window', async () => {
      const s = harness.fresh();
      await s.putKey({ keyHash: 'revoked', createdAt: T0, revokedAt: null, label: null });
      await s.revokeKey('revoked', T0 + 1);
      expect(await s.admitCall(admission({ keyHash: 'unknown' }))).toEqual({ admitted: false, refusal: 'invalid-key' });
      expect(await s.admitCall(admission({ keyHash: 'revoked' }))).toEqual({ admitted: false, refusal: 'invalid-key' });
      expect(await s.hitRateLimit('ip:203.0.113.7', 10, WINDOW, NOW)).toEqual({ allowed: true, remaining: 7, retryAfterMs: 0 });
      expect(await s.hitRateLimit('key:unknown', 10, WINDOW, NOW)).toEqual({ allowed: true, remaining: 9, retryAfterMs: 0 });
      expect(await s.hitRateLimit('key:revoked', 10, WINDOW, NOW)).toEqual({ allowed: true, remaining: 9, retryAfterMs: 0 });
    });

    it('refuses a full key window, and admits again in the next window', async () => {
      const s = harness.fresh();
      await s.putKey({ keyHash: 'k1', createdAt: T0, revokedAt: null, label: null });
      expect(await s.admitCall(admission({ keyLimit: 1 }))).toEqual({ admitted: true });
      expect(await s.admitCall(admission({ keyLimit: 1, now: NOW + 5_000 }))).toEqual({ admitted: false, refusal: 'key-rate-limited', retryAfterMs: 45_000 });
      expect(await s.admitCall(admission({ keyLimit: 1, now: T0 + WINDOW }))).toEqual({ admitted: true });
    });

    it('admits exactly as many concurrent calls as the window allows', async () => {
      const s = harness.fresh();
      await s.putKey({ keyHash: 'k1', createdAt: T0, revokedAt: null, label: null });
      const results = await Promise.all(Array.from({ length: 12 }, () => s.admitCall(admission({ ipLimit: 100, keyLimit: 5 }))));
      expect(results.filter((r) => r.admitted)).toHaveLength(5);
      expect(results.filter((r) => !r.admitted && r.refusal === 'key-rate-limited')).toHaveLength(7);
    });

    it('admitted with a hold: holds one call on the grant that expires soonest, as reserveCall would', async () => {
      const s = harness.fresh();
      await s.putKey({ keyHash: 'k1', createdAt: T0, revokedAt: null, label: null });
      await s.addGrant(grant({ id: 'g-late', keyHash: 'k1', calls: 5, expiresAt: T0 + 30 * DAY }));
      await s.addGrant(grant({ id: 'g-soon', keyHash: 'k1', calls: 1, expiresAt: T0 + 2 * DAY }));
      const hold = (reservationId: string) => ({ reservationId, holdUntil: NOW + 120_000, operation: 'readiness' });
      expect(await s.admitCall({ ...admission(), hold: hold('cu_1') })).toEqual({ admitted: true, held: true });
      expect(await s.getReservation('cu_1')).toEqual({ id: 'cu_1', keyHash: 'k1', grantId: 'g-soon', state: 'held', holdUntil: NOW + 120_000 });
      expect(await s.admitCall({ ...admission(), hold: hold('cu_2') })).toEqual({ admitted: true, held: true });
      expect((await s.getReservation('cu_2'))?.grantId).toBe('g-late');
      expect((await s.listGrants('k1', NOW)).map((g) => [g.id, g.reserved, g.remaining])).toEqual([['g-soon', 1, 0], ['g-late', 1, 4]]);
      // The operation is kept with it, as reserveCall keeps it, for the key's usage list once committed.
      expect(await s.commitReservation('cu_1', NOW + 1)).toBe('committed');
      expect((await s.listUsage('k1', 10)).map((u) => [u.id, u.operation])).toEqual([['cu_1', 'readiness']]);
    });

    it('admitted with a hold on a key with no call left: admitted, nothing held', async () => {
      const s = harness.fresh();
      await s.putKey({ keyHash: 'k1', createdAt: T0, revokedAt: null, label: null });
      await s.addGrant(grant({ id: 'g', keyHash: 'k1', calls: 1, used: 1 }));
      expect(await s.admitCall({ ...admission(), hold: { reservationId: 'cu_1', holdUntil: NOW + 120_000 } })).toEqual({ admitted: true, held: false });
      expect(await s.getReservation('cu_1')).toBeNull();
      // Counted in both windows all the same, as an admission without a hold is.
      expect(await s.hitRateLimit('key:k1', 10, WINDOW, NOW)).toEqual({ allowed: true, remaining: 8, retryAfterMs: 0 });
    });

    it('refused, holds nothing', async () => {
      const s = harness.fresh();
      await s.putKey({ keyHash: 'k1', createdAt: T0, revokedAt: null, label: null });
      await s.addGrant(grant({ id: 'g', keyHash: 'k1', calls: 3 }));
      const hold = { reservationId: 'cu_1', holdUntil: NOW + 120_000 };
      expect(await s.admitCall({ ...admission({ keyLimit: 1 }), hold })).toEqual({ admitted: true, held: true });
      expect(await s.admitCall({ ...admission({ keyLimit: 1 }), hold: { ...hold, reservationId: 'cu_2' } })).toEqual({
        admitted: false, refusal: 'key-rate-limited', retryAfterMs: 50_000,
      });
      expect(await s.getReservation('cu_2')).toBeNull();
      expect((await s.listGrants('k1', NOW))[0]).toMatchObject({ reserved: 1, remaining: 2 });
    });

    it('finishes a held call: commits it and keeps its answer for replays in the same step, whatever the outcome', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g', keyHash: 'k', calls: 1 }));
      await s.reserveCall('k', 'r1', T0, T0 + 1000);
      const answer = (scope: string) => ({ scope, fingerprint: 'fp', response: `{"body":"${scope}"}`, ttlMs: DAY });
      expect(await s.finishReservation('r1', T0 + 1, answer('s-committed'))).toEqual({ commit: 'committed', callsLeft: 0 });
      expect(await s.finishReservation('r1', T0 + 2, answer('s-already'))).toEqual({ commit: 'already', callsLeft: 0 });
      expect(await s.finishReservation('never-held', T0 + 3, answer('s-lost'))).toEqual({ commit: 'lost', callsLeft: null });
      for (const scope of ['s-committed', 's-already', 's-lost']) {
        expect(await s.getIdempotent(scope, T0 + 10)).toEqual({ state: 'done', fingerprint: 'fp', response: `{"body":"${scope}"}` });
      }
      expect((await s.listGrants('k', T0 + 10))[0]).toMatchObject({ used: 1, reserved: 0, remaining: 0 });
      // Kept as completeIdempotent keeps an answer: until its ttl, then gone.
      expect(await s.getIdempotent('s-committed', T0 + 1 + DAY)).toBeNull();
    });

    it('keeps a report in the finishing step exactly as putReport keeps it: filed under the holder of the call, listed, read back byte for byte', async () => {
      const s = harness.fresh();
      const viaFinish = harness.fresh();
      const report = {
        id: `rep_${'a'.repeat(32)}`, keyHash: 'k', operation: 'readiness', createdAt: T0 + 1, creditsUsage: 'r1', target: 'Checkout agent',
        score: 62, verdict: 'not-ready', body: '{"service":"x","n":"é\u2028"}', input: '{"workflow":{}}',
      };
      for (const store of [s, viaFinish]) {
        await store.putKey({ keyHash: 'k', createdAt: T0, revokedAt: null, label: null });
        await store.addGrant(grant({ id: 'g', keyHash: 'k', calls: 2 }));
        await store.reserveCall('k', 'r1', T0, T0 + 1000);
        // The key rotated while the call ran: the call, and so its report, now belong to k2.
        expect(await store.rotateKey('k', { keyHash: 'k2', createdAt: T0, revokedAt: null, label: null }, T0)).toBe(true);
      }
      await s.putReport(report, T0 + 1, 30 * DAY);
      expect(await s.finishReservation('r1', T0 + 1, { scope: 'order-r', fingerprint: 'fp', response: '{"report":"x"}', ttlMs: DAY })).toEqual({ commit: 'committed', callsLeft: 1 });
      const finished = await viaFinish.finishReservation('r1', T0 + 1, { scope: 'order-r', fingerprint: 'fp', response: '{"report":"x"}', ttlMs: DAY }, { report, ttlMs: 30 * DAY });
      expect(finished).toEqual({ commit: 'committed', callsLeft: 1 });
      for (const at of [T0 + 2, T0 + 30 * DAY]) {
        expect(await viaFinish.getReport(report.id, at)).toEqual(await s.getReport(report.id, at));
        expect(await viaFinish.listReports('k2', at, { limit: 5 })).toEqual(await s.listReports('k2', at, { limit: 5 }));
      }
      expect(await viaFinish.getReport(report.id, T0 + 2)).toEqual({ ...report, keyHash: 'k2' });
      expect(await viaFinish.getReport(report.id, T0 + 1 + 30 * DAY)).toBeNull();
      expect(await viaFinish.getIdempotent('order-r', T0 + 2)).toEqual({ state: 'done', fingerprint: 'fp', response: '{"report":"x"}' });
    });

    it('replaces an in-flight marker with the answer; commitReservation alone keeps none', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g', keyHash: 'k', calls: 2 }));
      await s.reserveCall('k', 'r1', T0, T0 + 1000);
      await s.reserveCall('k', 'r2', T0, T0 + 1000);
      expect(await s.beginIdempotent('order-1', 'fp', T0, 180_000)).toBeNull();
      expect(await s.finishReservation('r1', T0 + 1, { scope: 'order-1', fingerprint: 'fp', response: '{"ok":1}', ttlMs: DAY })).toEqual({ commit: 'committed', callsLeft: 0 });
      expect(await s.getIdempotent('order-1', T0 + 200_000)).toEqual({ state: 'done', fingerprint: 'fp', response: '{"ok":1}' });
      expect(await s.commitReservation('r2', T0 + 2)).toBe('committed');
      expect(await s.getIdempotent('r2', T0 + 3)).toBeNull();
      expect((await s.listGrants('k', T0 + 10))[0]).toMatchObject({ used: 2, remaining: 0 });
    });

    it("keeps an x402-paid answer with its payment's digest, read back byte for byte after the in-flight marker it replaces", async () => {
      const s = harness.fresh();
      const digest = 'c0'.repeat(32);
      const record = writeReplayRecord('{"service":"x","paymentIntent":"0xabc"}', NO_RECEIPT, null, digest);
      expect(await s.beginIdempotent('readiness:payer:p:pay_0001', 'fp', T0, 180_000)).toBeNull();
      await s.completeIdempotent('readiness:payer:p:pay_0001', 'fp', record, T0 + 1, DAY);
      const kept = await s.getIdempotent('readiness:payer:p:pay_0001', T0 + 2);
      expect(kept).toEqual({ state: 'done', fingerprint: 'fp', response: record });
      expect(readReplayRecord((kept as { response: string }).response).credentialDigest).toBe(digest);
    });

    it('counts the calls left as listGrants does: every live grant, other holds as spent, expired grants as none', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g-a', keyHash: 'k', calls: 5, used: 1 }));
      await s.addGrant(grant({ id: 'g-b', keyHash: 'k', calls: 10, expiresAt: T0 + 30 * DAY }));
      await s.addGrant(grant({ id: 'g-other', keyHash: 'other', calls: 7 }));
      // All three on g-b, the live grant that expires soonest.
      await s.reserveCall('k', 'r1', T0, T0 + 1000);
      await s.reserveCall('k', 'r2', T0, T0 + 1000);
      // A hold that lapsed counts as back: r3 held until T0 + 5 is past by T0 + 10.
      await s.reserveCall('k', 'r3', T0, T0 + 5);
      await s.addGrant(grant({ id: 'g-gone', keyHash: 'k', calls: 50, expiresAt: T0 + 5 }));
      const finished = await s.finishReservation('r1', T0 + 10, { scope: 'order-2', fingerprint: 'fp', response: '{}', ttlMs: DAY });
      const listed = (await s.listGrants('k', T0 + 10)).reduce((n, g) => n + g.remaining, 0);
      expect(finished).toEqual({ commit: 'committed', callsLeft: 12 });
      expect(listed).toBe(12);
    });
  });
}
