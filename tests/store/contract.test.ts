import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Grant, StoredReport } from '@/lib/store/types';
import { redisHarness, sqliteHarness, vercelKvHarness } from './adapters';

// One contract, every adapter: the gate and the ledger rely on exactly these behaviours.

const T0 = Date.UTC(2026, 10, 1);
const DAY = 24 * 60 * 60 * 1000;

const report = (over: Partial<StoredReport> & Pick<StoredReport, 'id' | 'keyHash' | 'createdAt'>): StoredReport => ({
  operation: 'aiVisibility', creditsUsage: `cu_${over.id}`, target: 'https://example.com/', score: 77, verdict: 'fair', body: `{"id":"${over.id}"}`,
  input: '{"url":"https://example.com/"}', ...over,
});

const grant = (over: Partial<Grant> & Pick<Grant, 'id' | 'keyHash'>): Grant => ({
  plan: 'bundle-25', calls: 3, used: 0, expiresAt: T0 + 365 * DAY, createdAt: T0, sourceRef: null, ...over,
});

for (const harness of [sqliteHarness(), sqliteHarness({ offThread: true }), redisHarness(), vercelKvHarness()]) {
  describe.skipIf(!harness.available)(`store contract: ${harness.name}`, () => {
    beforeAll(() => harness.setup());
    afterAll(() => harness.teardown());

    it('stores, finds, counts and revokes keys', async () => {
      const s = harness.fresh();
      expect(await s.countKeys()).toBe(0);
      await s.putKey({ keyHash: 'k1', createdAt: T0, revokedAt: null, label: 'demo' });
      expect(await s.getKey('k1')).toEqual({ keyHash: 'k1', createdAt: T0, revokedAt: null, label: 'demo' });
      expect(await s.getKey('nope')).toBeNull();
      expect(await s.countKeys()).toBe(1);
      await expect(s.putKey({ keyHash: 'k1', createdAt: T0, revokedAt: null, label: null })).rejects.toThrow();
      expect(await s.revokeKey('k1', T0 + 1)).toBe(true);
      expect(await s.revokeKey('k1', T0 + 2)).toBe(false);
      expect((await s.getKey('k1'))?.revokedAt).toBe(T0 + 1);
    });

    it('spends from the grant that expires soonest and skips expired grants', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'late', keyHash: 'k', expiresAt: T0 + 300 * DAY, calls: 1 }));
      await s.addGrant(grant({ id: 'expired', keyHash: 'k', expiresAt: T0 - 1, calls: 5 }));
      await s.addGrant(grant({ id: 'soon', keyHash: 'k', expiresAt: T0 + 10 * DAY, calls: 1 }));
      expect(await s.reserveCall('k', 'r1', T0, T0 + 1000)).toEqual({ ok: true, grantId: 'soon' });
      expect(await s.reserveCall('k', 'r2', T0, T0 + 1000)).toEqual({ ok: true, grantId: 'late' });
      expect(await s.reserveCall('k', 'r3', T0, T0 + 1000)).toEqual({ ok: false });
      const grants = await s.listGrants('k', T0);
      expect(grants.map((g) => [g.id, g.remaining, g.reserved, g.expired])).toEqual([
        ['expired', 0, 0, true], ['soon', 0, 1, false], ['late', 0, 1, false],
      ]);
    });

    it('commits once, releases, and never commits a released call', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g', keyHash: 'k', calls: 2 }));
      await s.reserveCall('k', 'a', T0, T0 + 1000);
      await s.reserveCall('k', 'b', T0, T0 + 1000);
      expect(await s.commitReservation('a', T0 + 1)).toBe('committed');
      expect(await s.commitReservation('a', T0 + 2)).toBe('already');
      expect(await s.releaseReservation('b')).toBe(true);
      expect(await s.releaseReservation('b')).toBe(false);
      expect(await s.commitReservation('b', T0 + 3)).toBe('lost');
      expect(await s.commitReservation('never', T0 + 3)).toBe('lost');
      const [g] = await s.listGrants('k', T0 + 4);
      expect([g.used, g.reserved, g.remaining]).toEqual([1, 0, 1]);
      expect(await s.getReservation('a')).toMatchObject({ id: 'a', keyHash: 'k', grantId: 'g', state: 'committed' });
      expect(await s.getReservation('b')).toMatchObject({ state: 'released' });
    });

    it('gives a timed-out reservation back to the balance by itself', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g', keyHash: 'k', calls: 1 }));
      expect((await s.reserveCall('k', 'crashed', T0, T0 + 120_000)).ok).toBe(true);
      expect((await s.reserveCall('k', 'x', T0 + 60_000, T0 + 180_000)).ok).toBe(false);
      expect((await s.listGrants('k', T0 + 120_001))[0].remaining).toBe(1);
      expect((await s.reserveCall('k', 'later', T0 + 120_001, T0 + 240_000)).ok).toBe(true);
      // The crashed request finally tries to commit: its call went to someone else, so it is lost.
      expect(await s.commitReservation('crashed', T0 + 130_000)).toBe('lost');
      expect(await s.commitReservation('later', T0 + 130_000)).toBe('committed');
      expect((await s.listGrants('k', T0 + 130_000))[0]).toMatchObject({ used: 1, remaining: 0 });
    });

    it('lets a late commit through when the call is still free', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g', keyHash: 'k', calls: 1 }));
      await s.reserveCall('k', 'slow', T0, T0 + 1000);
      expect(await s.commitReservation('slow', T0 + 5000)).toBe('committed');
      expect((await s.listGrants('k', T0 + 5000))[0]).toMatchObject({ used: 1, remaining: 0 });
    });

    it('updates a grant (subscription renewal resets, not accumulates)', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'sub', keyHash: 'k', plan: 'subscription', calls: 50, used: 47, expiresAt: T0 + 30 * DAY }));
      expect(await s.updateGrant('sub', { used: 0, expiresAt: T0 + 61 * DAY })).toBe(true);
      expect(await s.updateGrant('missing', { used: 0 })).toBe(false);
      const [g] = await s.listGrants('k', T0 + 31 * DAY);
      expect([g.calls, g.used, g.remaining, g.expiresAt]).toEqual([50, 0, 50, T0 + 61 * DAY]);
    });

    it('claims idempotency keys atomically and replays completed responses', async () => {
      const s = harness.fresh();
      expect(await s.beginIdempotent('op:k1', 'fp1', T0, 60_000)).toBeNull();
      expect(await s.beginIdempotent('op:k1', 'fp1', T0 + 1, 60_000)).toEqual({ state: 'in-flight', fingerprint: 'fp1' });
      expect(await s.getIdempotent('op:k1', T0 + 1)).toEqual({ state: 'in-flight', fingerprint: 'fp1' });
      await s.completeIdempotent('op:k1', 'fp1', '{"ok":true}', T0 + 2, 86_400_000);
      expect(await s.beginIdempotent('op:k1', 'fp2', T0 + 3, 60_000)).toEqual({ state: 'done', fingerprint: 'fp1', response: '{"ok":true}' });
      expect(await s.getIdempotent('op:k1', T0 + 3)).toEqual({ state: 'done', fingerprint: 'fp1', response: '{"ok":true}' });
      // Abandoning only removes an in-flight claim made with the same fingerprint.
      expect(await s.beginIdempotent('op:k2', 'fpA', T0, 60_000)).toBeNull();
      await s.abandonIdempotent('op:k2', 'fpB');
      expect(await s.getIdempotent('op:k2', T0)).not.toBeNull();
      await s.abandonIdempotent('op:k2', 'fpA');
      expect(await s.getIdempotent('op:k2', T0)).toBeNull();
      await s.abandonIdempotent('op:k1', 'fp1');
      expect((await s.getIdempotent('op:k1', T0 + 4))?.state).toBe('done');
    });

    it('counts rate-limit windows and says when to retry', async () => {
      const s = harness.fresh();
      const w = 60_000;
      const start = T0 - (T0 % w);
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await s.hitRateLimit('ip:1', 3, w, start + 10_000));
      expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
      expect(results[3].retryAfterMs).toBe(50_000);
      expect((await s.hitRateLimit('ip:2', 3, w, start + 10_000)).allowed).toBe(true);
      expect((await s.hitRateLimit('ip:1', 3, w, start + w)).allowed).toBe(true);
    });

    it('takes a hit back within its window, never below zero, and leaves a window that is over alone', async () => {
      const s = harness.fresh();
      const w = 60_000;
      const start = T0 - (T0 % w);
      await s.returnRateLimit('site:a', w, start + 1_000);
      for (let i = 0; i < 2; i++) await s.hitRateLimit('site:a', 2, w, start + 1_000);
      expect((await s.hitRateLimit('site:a', 2, w, start + 2_000)).allowed).toBe(false);
      await s.returnRateLimit('site:a', w, start + 3_000);
      await s.returnRateLimit('site:a', w, start + 3_000);
      // Three hits, two taken back: one more fits, the next does not.
      expect((await s.hitRateLimit('site:a', 2, w, start + 4_000)).allowed).toBe(true);
      expect((await s.hitRateLimit('site:a', 2, w, start + 4_000)).allowed).toBe(false);
      // A return in the next window does not touch it: the next window starts from nothing.
      await s.returnRateLimit('site:a', w, start + w + 1);
      const next = [];
      for (let i = 0; i < 3; i++) next.push((await s.hitRateLimit('site:a', 2, w, start + w + 2)).allowed);
      expect(next).toEqual([true, true, false]);
    });

    it('claims a credential exactly once, even concurrently', async () => {
      const s = harness.fresh();
      const claims = await Promise.all(Array.from({ length: 10 }, () => s.claimOnce('cred:abc', T0, 60_000)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await s.claimOnce('cred:other', T0, 60_000)).toBe(true);
    });

    it('adds a grant once: the same id again, even concurrently, leaves the first grant and its spent calls as they are', async () => {
      const s = harness.fresh();
      expect(await s.addGrant(grant({ id: 'g', keyHash: 'k', calls: 5 }))).toBe(true);
      await s.reserveCall('k', 'r', T0, T0 + 1000);
      expect(await s.commitReservation('r', T0 + 1)).toBe('committed');
      const again = await Promise.all(Array.from({ length: 5 }, () => s.addGrant(grant({ id: 'g', keyHash: 'k', calls: 100, expiresAt: T0 + 400 * DAY }))));
      expect(again).toEqual([false, false, false, false, false]);
      expect((await s.listGrants('k', T0 + 2)).map((g) => [g.id, g.calls, g.used, g.remaining, g.expiresAt])).toEqual([['g', 5, 1, 4, T0 + 365 * DAY]]);
    });

    it('releases a claim before its ttl: the next claim succeeds at once, and exactly one of concurrent ones', async () => {
      const s = harness.fresh();
      expect(await s.claimOnce('fulfilling:cs_1', T0, 60_000)).toBe(true);
      expect(await s.claimOnce('fulfilling:cs_1', T0 + 1, 60_000)).toBe(false);
      await s.releaseClaim('fulfilling:cs_1');
      await s.releaseClaim('never-claimed');
      const claims = await Promise.all(Array.from({ length: 5 }, () => s.claimOnce('fulfilling:cs_1', T0 + 2, 60_000)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await s.claimOnce('fulfilling:cs_1', T0 + 3, 60_000)).toBe(false);
    });

    it('keeps named records, expires them, and hands a taken record to exactly one caller', async () => {
      const s = harness.fresh();
      await s.setRecord('checkout:cs_1', '{"plan":"bundle-25"}', T0, null);
      await s.setRecord('short', 'x', T0, 1000);
      expect(await s.getRecord('short', T0 + 999)).toBe('x');
      // Expiry is decided on the caller's clock: T0 lies in the past of this machine's, and +1 s is far away.
      expect(await s.getRecord('short', T0 + 1000)).toBeNull();
      expect(await s.takeRecord('short', T0 + 1000)).toBeNull();
      expect(await s.getRecord('checkout:cs_1', T0 + DAY)).toBe('{"plan":"bundle-25"}');
      expect(await s.getRecord('missing', T0)).toBeNull();
      await s.setRecord('checkout:cs_1', '{"plan":"bundle-100"}', T0, null);
      expect(await s.getRecord('checkout:cs_1', T0)).toBe('{"plan":"bundle-100"}');
      await s.setRecord('reveal:cs_2', 'pac_live_secret', T0, 60_000);
      const takes = await Promise.all(Array.from({ length: 5 }, () => s.takeRecord('reveal:cs_2', T0 + 1)));
      expect(takes.filter((t) => t !== null)).toEqual(['pac_live_secret']);
      expect(await s.getRecord('reveal:cs_2', T0 + 2)).toBeNull();
    });

    it('frees an in-flight idempotency marker once its ttl passes, and the key can be claimed again', async () => {
      const s = harness.fresh();
      expect(await s.beginIdempotent('op:crashed', 'fp', T0, 180_000)).toBeNull();
      expect(await s.beginIdempotent('op:crashed', 'fp', T0 + 179_999, 180_000)).toEqual({ state: 'in-flight', fingerprint: 'fp' });
      expect(await s.getIdempotent('op:crashed', T0 + 180_000)).toBeNull();
      expect(await s.beginIdempotent('op:crashed', 'fp', T0 + 180_000, 180_000)).toBeNull();
      // The new claim runs on its own ttl, from the `now` it was made at.
      expect(await s.getIdempotent('op:crashed', T0 + 359_999)).toEqual({ state: 'in-flight', fingerprint: 'fp' });
      expect(await s.getIdempotent('op:crashed', T0 + 360_000)).toBeNull();
    });

    it('expires a replay record after its ttl', async () => {
      const s = harness.fresh();
      expect(await s.beginIdempotent('op:done', 'fp', T0, 180_000)).toBeNull();
      await s.completeIdempotent('op:done', 'fp', '{"r":1}', T0 + 10, DAY);
      expect(await s.getIdempotent('op:done', T0 + 10 + DAY - 1)).toEqual({ state: 'done', fingerprint: 'fp', response: '{"r":1}' });
      expect(await s.getIdempotent('op:done', T0 + 10 + DAY)).toBeNull();
      expect(await s.beginIdempotent('op:done', 'fp2', T0 + 10 + DAY, 180_000)).toBeNull();
    });

    it('expires a claimOnce marker after its ttl, and not before', async () => {
      const s = harness.fresh();
      expect(await s.claimOnce('pay:evm:nonce1', T0, 60_000)).toBe(true);
      expect(await s.claimOnce('pay:evm:nonce1', T0 + 59_999, 60_000)).toBe(false);
      expect(await s.claimOnce('pay:evm:nonce1', T0 + 60_000, 60_000)).toBe(true);
      expect(await s.claimOnce('pay:evm:nonce1', T0 + 60_001, 60_000)).toBe(false);
    });

    it('resets a renewed grant once per period, atomically with the marker of the applied period', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'sub', keyHash: 'k', plan: 'subscription', calls: 50, used: 47, expiresAt: T0 + 31 * DAY }));
      const renewal = { appliedRecord: 'sub-applied:sub_1', appliedFallback: T0 + 30 * DAY, samePeriodSlackMs: DAY, calls: 50 };
      // The same period reported again only moves the expiry.
      expect(await s.renewGrant('sub', { ...renewal, periodEnd: T0 + 30 * DAY + 5_000, expiresAt: T0 + 32 * DAY }, T0, null)).toBe('extended');
      expect((await s.listGrants('k', T0))[0]).toMatchObject({ used: 47, expiresAt: T0 + 32 * DAY });
      const next = { ...renewal, periodEnd: T0 + 60 * DAY, expiresAt: T0 + 61 * DAY };
      expect(await s.renewGrant('sub', next, T0, null)).toBe('renewed');
      expect(await s.getRecord('sub-applied:sub_1', T0)).toBe(String(T0 + 60 * DAY));
      await s.reserveCall('k', 'r1', T0, T0 + 1000);
      expect(await s.commitReservation('r1', T0 + 1)).toBe('committed');
      // A second reconciliation of the same period must not wipe the call spent since the first.
      expect(await s.renewGrant('sub', next, T0 + 2, null)).toBe('extended');
      expect((await s.listGrants('k', T0 + 2))[0]).toMatchObject({ calls: 50, used: 1, expiresAt: T0 + 61 * DAY });
      expect(await s.renewGrant('missing', next, T0, null)).toBe('missing');
    });

    it('removes refunded calls once per target, from the current balance, never past the allowance', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g', keyHash: 'k', calls: 10, used: 2 }));
      const removal = { appliedRecord: 'refund-applied:pi_1' };
      expect(await s.removeGrantCalls('g', { ...removal, target: 3 }, T0, null)).toBe(3);
      expect(await s.removeGrantCalls('g', { ...removal, target: 3 }, T0, null)).toBe(0);
      expect((await s.listGrants('k', T0))[0]).toMatchObject({ used: 5 });
      expect(await s.getRecord('refund-applied:pi_1', T0)).toBe('3');
      await s.reserveCall('k', 'r1', T0, T0 + 1000);
      expect(await s.commitReservation('r1', T0 + 1)).toBe('committed');
      // A larger refund later: only the difference goes, on top of the call just spent, capped at `calls`.
      expect(await s.removeGrantCalls('g', { ...removal, target: 10 }, T0 + 2, null)).toBe(7);
      expect((await s.listGrants('k', T0 + 2))[0]).toMatchObject({ used: 10, remaining: 0 });
      expect(await s.removeGrantCalls('missing', { ...removal, target: 1 }, T0, null)).toBeNull();
    });

    it('keeps concurrent commits and a refund both counted', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g', keyHash: 'k', calls: 20 }));
      const ids = Array.from({ length: 8 }, (_, i) => `r${i}`);
      for (const id of ids) expect((await s.reserveCall('k', id, T0, T0 + 60_000)).ok).toBe(true);
      const [removed, ...commits] = await Promise.all([
        s.removeGrantCalls('g', { appliedRecord: 'refund-applied:pi_2', target: 5 }, T0 + 1, null),
        ...ids.map((id) => s.commitReservation(id, T0 + 1)),
      ]);
      expect(removed).toBe(5);
      expect(commits.every((c) => c === 'committed')).toBe(true);
      expect((await s.listGrants('k', T0 + 2))[0]).toMatchObject({ used: 13, remaining: 7 });
    });

    it('purges what expired and keeps what is live', async () => {
      const s = harness.fresh();
      await s.putKey({ keyHash: 'k', createdAt: T0, revokedAt: null, label: null });
      await s.addGrant(grant({ id: 'g', keyHash: 'k', calls: 5 }));
      await s.reserveCall('k', 'kept', T0, T0 + 1000);
      await s.commitReservation('kept', T0 + 1);
      await s.reserveCall('k', 'lapsed', T0, T0 + 1000);
      await s.setRecord('forever', 'v', T0, null);
      await s.setRecord('long', 'v', T0, 400 * DAY);
      await s.setRecord('short', 'v', T0, 1000);
      await s.claimOnce('c', T0, 1000);
      await s.hitRateLimit('ip:1', 10, 60_000, T0);
      await s.beginIdempotent('op:x', 'fp', T0, 1000);
      await s.putReport(report({ id: 'rep_old', keyHash: 'k', createdAt: T0 }), T0, DAY);
      await s.putReport(report({ id: 'rep_live', keyHash: 'k', createdAt: T0 }), T0, 30 * DAY);
      const later = T0 + 2 * DAY;
      const none = { rateWindows: 0, idempotency: 0, claims: 0, reservations: 0, records: 0, reports: 0 };
      // SQLite deletes the rows here; Redis and KV delete through native TTLs (tests/store/purge.test.ts
      // checks that every expiring key carries one), so their purge has nothing to do.
      const expected = s.kind === 'sqlite' ? { rateWindows: 1, idempotency: 1, claims: 1, reservations: 1, records: 1, reports: 1 } : none;
      expect(await s.purgeExpired(later)).toEqual(expected);
      expect(await s.getKey('k')).toMatchObject({ keyHash: 'k' });
      expect(await s.getReservation('kept')).toMatchObject({ state: 'committed' });
      expect((await s.listGrants('k', later))[0]).toMatchObject({ used: 1, remaining: 4 });
      expect([await s.getRecord('forever', later), await s.getRecord('long', later), await s.getRecord('short', later)]).toEqual(['v', 'v', null]);
      expect([(await s.getReport('rep_old', later))?.id ?? null, (await s.getReport('rep_live', later))?.id]).toEqual([null, 'rep_live']);
      expect(await s.purgeExpired(later)).toEqual(none);
    });

    it('lists records by name prefix, glob characters taken literally, up to the limit', async () => {
      const s = harness.fresh();
      await s.setRecord('settlement:a', '1', T0, null);
      await s.setRecord('settlement:b', '2', T0, DAY);
      await s.setRecord('settlementx', 'not under the prefix', T0, null);
      await s.setRecord('other:settlement:c', 'elsewhere', T0, null);
      await s.setRecord('odd*[?]:1', 'star', T0, null);
      await s.setRecord('oddly:2', 'no star', T0, null);
      const sorted = (rows: Array<{ name: string; value: string }>) => [...rows].sort((x, y) => (x.name < y.name ? -1 : 1));
      expect(sorted(await s.listRecords('settlement:', T0 + 1, 10))).toEqual([
        { name: 'settlement:a', value: '1' },
        { name: 'settlement:b', value: '2' },
      ]);
      expect(await s.listRecords('odd*[?]:', T0, 10)).toEqual([{ name: 'odd*[?]:1', value: 'star' }]);
      expect(await s.listRecords('settlement:', T0, 1)).toHaveLength(1);
      expect(await s.listRecords('nothing:', T0, 10)).toEqual([]);
    });

    it('keeps reports for their owner until they expire, newest first, a page at a time', async () => {
      const s = harness.fresh();
      await s.putReport(report({ id: 'rep_a', keyHash: 'k', createdAt: T0, score: null, verdict: null, input: null, target: 'Checkout agent', operation: 'readiness' }), T0, 30 * DAY);
      await s.putReport(report({ id: 'rep_c', keyHash: 'k', createdAt: T0 + 1000 }), T0 + 1000, 30 * DAY);
      await s.putReport(report({ id: 'rep_b', keyHash: 'k', createdAt: T0 + 1000, score: 91.5 }), T0 + 1000, 30 * DAY);
      await s.putReport(report({ id: 'rep_d', keyHash: 'k', createdAt: T0 + 2000 }), T0 + 2000, DAY);
      await s.putReport(report({ id: 'rep_other', keyHash: 'other', createdAt: T0 + 3000 }), T0 + 3000, 30 * DAY);

      expect(await s.getReport('rep_b', T0 + 5000)).toEqual({
        id: 'rep_b', keyHash: 'k', operation: 'aiVisibility', createdAt: T0 + 1000, creditsUsage: 'cu_rep_b', target: 'https://example.com/', score: 91.5, verdict: 'fair',
        body: '{"id":"rep_b"}', input: '{"url":"https://example.com/"}',
      });
      // No verdict and no input (a report kept before either was) read back as null, not as ''.
      expect(await s.getReport('rep_a', T0 + 5000)).toMatchObject({ score: null, verdict: null, input: null, target: 'Checkout agent', operation: 'readiness' });
      expect(await s.getReport('rep_none', T0)).toBeNull();

      const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);
      // Newest first; equal times: the larger id first.
      expect(ids(await s.listReports('k', T0 + 5000, { limit: 10 }))).toEqual(['rep_d', 'rep_c', 'rep_b', 'rep_a']);
      const first = await s.listReports('k', T0 + 5000, { limit: 2 });
      expect(ids(first)).toEqual(['rep_d', 'rep_c']);
      expect(first[1]).toEqual({ id: 'rep_c', keyHash: 'k', operation: 'aiVisibility', createdAt: T0 + 1000, creditsUsage: 'cu_rep_c', target: 'https://example.com/', score: 77, verdict: 'fair' });
      const second = await s.listReports('k', T0 + 5000, { limit: 2, before: { createdAt: first[1].createdAt, id: first[1].id } });
      expect(ids(second)).toEqual(['rep_b', 'rep_a']);
      expect(await s.listReports('k', T0 + 5000, { limit: 2, before: { createdAt: T0, id: 'rep_a' } })).toEqual([]);

      // Expiry on the caller's clock: rep_d (one day) goes first, the rest at thirty days.
      expect(ids(await s.listReports('k', T0 + 2000 + DAY, { limit: 10 }))).toEqual(['rep_c', 'rep_b', 'rep_a']);
      expect(await s.getReport('rep_d', T0 + 2000 + DAY)).toBeNull();
      expect(await s.getReport('rep_d', T0 + 2000 + DAY - 1)).toMatchObject({ id: 'rep_d' });
      expect(ids(await s.listReports('k', T0 + 30 * DAY, { limit: 10 }))).toEqual(['rep_c', 'rep_b']);
      expect(await s.listReports('k', T0 + 30 * DAY + 1000, { limit: 10 })).toEqual([]);
      expect(ids(await s.listReports('other', T0 + 5000, { limit: 10 }))).toEqual(['rep_other']);
    });

    it('rotates a key: grants, held calls and reports move to the new key, the old one is revoked', async () => {
      const s = harness.fresh();
      await s.putKey({ keyHash: 'old', createdAt: T0, revokedAt: null, label: 'mine' });
      await s.addGrant(grant({ id: 'g1', keyHash: 'old', calls: 5 }));
      await s.addGrant(grant({ id: 'g2', keyHash: 'old', calls: 2, expiresAt: T0 + 20 * DAY }));
      await s.reserveCall('old', 'spent', T0, T0 + 60_000);
      await s.commitReservation('spent', T0 + 1);
      await s.reserveCall('old', 'held', T0, T0 + 60_000);
      await s.putReport(report({ id: 'rep_1', keyHash: 'old', createdAt: T0 }), T0, 30 * DAY);

      expect(await s.rotateKey('old', { keyHash: 'new', createdAt: T0 + 10, revokedAt: null, label: 'mine' }, T0 + 10)).toBe(true);
      expect(await s.getKey('old')).toMatchObject({ revokedAt: T0 + 10 });
      expect(await s.getKey('new')).toEqual({ keyHash: 'new', createdAt: T0 + 10, revokedAt: null, label: 'mine' });
      expect(await s.listGrants('old', T0 + 20)).toEqual([]);
      expect((await s.listGrants('new', T0 + 20)).map((g) => [g.id, g.keyHash, g.used, g.reserved, g.remaining])).toEqual([
        ['g2', 'new', 1, 1, 0], ['g1', 'new', 0, 0, 5],
      ]);
      // The call held across the rotation still commits, on the grant it was held on.
      expect(await s.commitReservation('held', T0 + 30)).toBe('committed');
      expect((await s.listGrants('new', T0 + 40)).map((g) => g.used)).toEqual([2, 0]);
      expect(await s.getReport('rep_1', T0 + 40)).toMatchObject({ keyHash: 'new' });
      expect((await s.listReports('new', T0 + 40, { limit: 5 })).map((r) => r.id)).toEqual(['rep_1']);
      expect(await s.listReports('old', T0 + 40, { limit: 5 })).toEqual([]);
      expect(await s.countKeys()).toBe(2);

      // A revoked or unknown key does not rotate, and nothing changes.
      expect(await s.rotateKey('old', { keyHash: 'again', createdAt: T0 + 50, revokedAt: null, label: null }, T0 + 50)).toBe(false);
      expect(await s.rotateKey('nobody', { keyHash: 'again', createdAt: T0 + 50, revokedAt: null, label: null }, T0 + 50)).toBe(false);
      expect(await s.getKey('again')).toBeNull();
    });

    it('stores a report under the key holding the call it paid with: a rotation while the call was held sends it to the new key', async () => {
      const s = harness.fresh();
      await s.putKey({ keyHash: 'old', createdAt: T0, revokedAt: null, label: null });
      await s.addGrant(grant({ id: 'g1', keyHash: 'old', calls: 5 }));
      await s.reserveCall('old', 'cu_in_flight', T0, T0 + 60_000);
      expect(await s.rotateKey('old', { keyHash: 'new', createdAt: T0 + 10, revokedAt: null, label: null }, T0 + 10)).toBe(true);
      // The pipeline names the key that paid when the call was admitted; the store files it with the holder.
      await s.putReport(report({ id: 'rep_late', keyHash: 'old', createdAt: T0 + 20, creditsUsage: 'cu_in_flight' }), T0 + 20, 30 * DAY);
      expect(await s.getReport('rep_late', T0 + 30)).toMatchObject({ keyHash: 'new', creditsUsage: 'cu_in_flight' });
      expect((await s.listReports('new', T0 + 30, { limit: 5 })).map((r) => r.id)).toEqual(['rep_late']);
      expect(await s.listReports('old', T0 + 30, { limit: 5 })).toEqual([]);
      // A report whose call the store does not know stays with the key given.
      await s.putReport(report({ id: 'rep_plain', keyHash: 'other', createdAt: T0 + 40, creditsUsage: 'cu_unknown' }), T0 + 40, 30 * DAY);
      expect(await s.getReport('rep_plain', T0 + 50)).toMatchObject({ keyHash: 'other' });
    });

    it('never spends below zero under concurrent reservations', async () => {
      const s = harness.fresh();
      await s.addGrant(grant({ id: 'g', keyHash: 'k', calls: 7 }));
      const results = await Promise.all(Array.from({ length: 25 }, (_, i) => s.reserveCall('k', `r${i}`, T0, T0 + 60_000)));
      const won = results.flatMap((r, i) => (r.ok ? [`r${i}`] : []));
      expect(won).toHaveLength(7);
      const commits = await Promise.all(won.map((id) => s.commitReservation(id, T0 + 1)));
      expect(commits.every((c) => c === 'committed')).toBe(true);
      expect((await s.listGrants('k', T0 + 2))[0]).toMatchObject({ used: 7, remaining: 0 });
    });
  });
}
