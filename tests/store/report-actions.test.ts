import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@/lib/store';
import type { StoredReport } from '@/lib/store/types';
import { sha256Hex } from '@/lib/canonical-json';
import { compareReports, previousReport } from '@/lib/reports/compare';
import { isShared, revokeShare, shareReport, sharedReport } from '@/lib/reports/share';
import { reportPage } from '@/lib/reports/store';
import { redisHarness, sqliteHarness, vercelKvHarness } from './adapters';

// Comparing, sharing and filtering stored reports, on every adapter: share links live in the store's
// records, the history filter and the previous report in its report index.

const T0 = Date.UTC(2026, 10, 1);
const DAY = 24 * 60 * 60 * 1000;
// Key hashes are hex digests (owners are compared as digests).
const OWNER = 'a1'.repeat(32);
const STRANGER = 'b2'.repeat(32);
const id = (n: string) => `rep_${n.padEnd(32, 'x')}`;
const findings = (...ids: string[]) => ids.map((f) => ({ id: f, severity: 'low', observed: `observed ${f}` }));
const visibility = (over: Partial<StoredReport> & { n: string; score: number; findingIds: string[] }): StoredReport => ({
  id: id(over.n), keyHash: OWNER, operation: 'ai-visibility', createdAt: T0, creditsUsage: `cu_${over.n}`, target: 'https://shop.test/', verdict: 'fair',
  body: JSON.stringify({ service: 'AI Visibility Check', idempotencyKey: `idem-${over.n}`, creditsUsage: `cu_${over.n}`, report: { checkedUrl: 'https://shop.test/', score: over.score, scoreMax: 100, crawlers: [], findings: findings(...over.findingIds) } }),
  input: '{"url":"https://shop.test/"}',
  ...over,
});

async function seed(s: Store) {
  // The keys that paid: a key's report opens by a share link only while its key is live.
  for (const keyHash of [OWNER, STRANGER]) await s.putKey({ keyHash, createdAt: T0, revokedAt: null, label: null });
  await s.putReport(visibility({ n: 'old', score: 60, createdAt: T0, findingIds: ['a', 'b'] }), T0, 30 * DAY);
  await s.putReport(visibility({ n: 'other', score: 90, createdAt: T0 + 1000, target: 'https://elsewhere.test/', findingIds: [] }), T0, 30 * DAY);
  await s.putReport(visibility({ n: 'readiness', score: 50, createdAt: T0 + 2000, operation: 'readiness', target: 'https://shop.test/', findingIds: [] }), T0, 30 * DAY);
  await s.putReport(visibility({ n: 'new', score: 72, createdAt: T0 + 3000, findingIds: ['b', 'c'] }), T0, 30 * DAY);
  await s.putReport(visibility({ n: 'theirs', score: 10, createdAt: T0 + 4000, keyHash: STRANGER, findingIds: [] }), T0, 30 * DAY);
}

for (const harness of [sqliteHarness(), sqliteHarness({ offThread: true }), redisHarness(), vercelKvHarness()]) {
  describe.skipIf(!harness.available)(`report actions: ${harness.name}`, () => {
    beforeAll(() => harness.setup());
    afterAll(() => harness.teardown());

    it('compares two runs of one address: older first, findings fixed, new and unchanged by id', async () => {
      const s = harness.fresh();
      await seed(s);
      const expected = {
        check: 'ai-visibility', target: 'https://shop.test/',
        before: { id: id('old'), createdAt: new Date(T0).toISOString(), score: 60, verdict: 'fair' },
        after: { id: id('new'), createdAt: new Date(T0 + 3000).toISOString(), score: 72, verdict: 'fair' },
        scoreChange: 12,
        counts: { fixed: 1, new: 1, unchanged: 1 },
        findings: [
          { id: 'c', status: 'new', severity: 'low', title: 'observed c' },
          { id: 'a', status: 'fixed', severity: 'low', title: 'observed a' },
          { id: 'b', status: 'unchanged', severity: 'low', title: 'observed b' },
        ],
      };
      // Either order of the two ids gives the same answer.
      expect(await compareReports(s, OWNER, id('new'), id('old'), T0 + 5000)).toEqual(expected);
      expect(await compareReports(s, OWNER, id('old'), id('new'), T0 + 5000)).toEqual(expected);
    });

    it('refuses to compare another key\'s report (404), two checks or two addresses (400)', async () => {
      const s = harness.fresh();
      await seed(s);
      const refusal = (a: string, b: string, key = OWNER) => compareReports(s, key, a, b, T0 + 5000).then(() => 'compared', (e: { problem?: { status: number } }) => e.problem?.status);
      expect(await refusal(id('new'), id('theirs'))).toBe(404);
      expect(await refusal(id('new'), id('old'), STRANGER)).toBe(404);
      expect(await refusal(id('new'), id('never'))).toBe(404);
      expect(await refusal(id('new'), id('readiness'))).toBe(400);
      expect(await refusal(id('new'), id('other'))).toBe(400);
      expect(await refusal(id('new'), id('new'))).toBe(400);
    });

    it('finds the previous report of the same check and address, skipping the rest', async () => {
      const s = harness.fresh();
      await seed(s);
      const newer = { id: id('new'), createdAt: new Date(T0 + 3000).toISOString(), operation: 'ai-visibility', target: 'https://shop.test/' };
      expect((await previousReport(s, OWNER, newer, T0 + 5000))?.id).toBe(id('old'));
      expect(await previousReport(s, OWNER, { ...newer, id: id('old'), createdAt: new Date(T0).toISOString() }, T0 + 5000)).toBeNull();
    });

    it('filters the history by check, a page at a time', async () => {
      const s = harness.fresh();
      await seed(s);
      const first = await reportPage(s, OWNER, { limit: 1, check: 'ai-visibility' }, T0 + 5000);
      expect(first.reports.map((r) => [r.id, r.verdict])).toEqual([[id('new'), 'fair']]);
      const second = await reportPage(s, OWNER, { limit: 5, check: 'ai-visibility', cursor: first.nextCursor }, T0 + 5000);
      expect(second.reports.map((r) => r.id)).toEqual([id('other'), id('old')]);
      expect(second.nextCursor).toBeNull();
      expect((await reportPage(s, OWNER, { check: 'readiness' }, T0 + 5000)).reports.map((r) => r.id)).toEqual([id('readiness')]);
      await expect(reportPage(s, OWNER, { check: 'nonsense' }, T0 + 5000)).rejects.toMatchObject({ problem: { status: 400 } });
    });

    it('shares a report by an unguessable link kept only as its hash, without the payer\'s ids; revoking or replacing it ends the old link', async () => {
      const s = harness.fresh();
      await seed(s);
      expect(await shareReport(s, STRANGER, id('new'), T0 + 5000, 30)).toBeNull();
      const shared = (await shareReport(s, OWNER, id('new'), T0 + 5000, 30))!;
      expect(shared.token).toMatch(/^shr_[A-Za-z0-9_-]{32}$/);
      expect(shared.path).toBe(`/r/${shared.token}`);
      // Only the hash is stored: neither record holds the token.
      const kept = [await s.getRecord(`report-share:${id('new')}`, T0 + 5000), await s.getRecord(`share:${sha256Hex(shared.token)}`, T0 + 5000)];
      expect(kept).toEqual([sha256Hex(shared.token), id('new')]);
      expect(await isShared(s, id('new'), T0 + 5000)).toBe(true);

      const opened = (await sharedReport(s, shared.token, T0 + 6000))!;
      expect(opened.id).toBe(id('new'));
      expect(opened.input).toBeNull();
      expect(Object.keys(opened.body as object).sort()).toEqual(['report', 'service']);

      const again = (await shareReport(s, OWNER, id('new'), T0 + 7000, 30))!;
      expect(await sharedReport(s, shared.token, T0 + 7000)).toBeNull();
      expect((await sharedReport(s, again.token, T0 + 7000))?.id).toBe(id('new'));

      expect(await revokeShare(s, STRANGER, id('new'), T0 + 8000)).toBeNull();
      expect(await revokeShare(s, OWNER, id('new'), T0 + 8000)).toBe(true);
      expect(await revokeShare(s, OWNER, id('new'), T0 + 8000)).toBe(false);
      expect(await sharedReport(s, again.token, T0 + 8000)).toBeNull();
      expect(await isShared(s, id('new'), T0 + 8000)).toBe(false);
      expect(await sharedReport(s, 'shr_' + 'A'.repeat(32), T0 + 8000)).toBeNull();
    });

    it('ends every share link of a key\'s reports once the key is revoked, links made before included; a wallet\'s report keeps its link', async () => {
      const s = harness.fresh();
      await seed(s);
      const WALLET = 'c3'.repeat(32);
      await s.putReport(visibility({ n: 'wallet', score: 40, createdAt: T0 + 5000, keyHash: WALLET, creditsUsage: '0xsettled', findingIds: [] }), T0, 30 * DAY);
      const mine = [(await shareReport(s, OWNER, id('new'), T0 + 6000, 30))!, (await shareReport(s, OWNER, id('old'), T0 + 6000, 30))!];
      const theirs = (await shareReport(s, STRANGER, id('theirs'), T0 + 6000, 30))!;
      const wallet = (await shareReport(s, WALLET, id('wallet'), T0 + 6000, 30))!;
      const opened = async (token: string) => (await sharedReport(s, token, T0 + 8000))?.id ?? null;
      expect(await Promise.all([...mine, theirs, wallet].map((l) => opened(l.token)))).toEqual([id('new'), id('old'), id('theirs'), id('wallet')]);

      expect(await s.revokeKey(OWNER, T0 + 7000)).toBe(true);
      expect(await Promise.all([...mine, theirs, wallet].map((l) => opened(l.token)))).toEqual([null, null, id('theirs'), id('wallet')]);
    });

    it('ends a share link when its report expires', async () => {
      const s = harness.fresh();
      await seed(s);
      const shared = (await shareReport(s, OWNER, id('old'), T0 + 1000, 30))!;
      expect((await sharedReport(s, shared.token, T0 + 30 * DAY - 1))?.id).toBe(id('old'));
      expect(await sharedReport(s, shared.token, T0 + 30 * DAY)).toBeNull();
    });
  });
}
