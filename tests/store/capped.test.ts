import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listProbeSpend, recordProbeSpend, reserveDailySpend } from '@/lib/checks/payment-endpoint/probe-settings';
import { redisHarness, sqliteHarness, vercelKvHarness } from './adapters';

// `addCapped` on every adapter: the counter the endpoint check's daily probe-spend cap is kept in, and the ledger
// of probe transfers on top of it.

const T0 = Date.UTC(2026, 10, 28, 12);
const HOUR = 60 * 60 * 1000;

for (const harness of [sqliteHarness(), sqliteHarness({ offThread: true }), redisHarness(), vercelKvHarness()]) {
  describe.skipIf(!harness.available)(`capped counters: ${harness.name}`, () => {
    beforeAll(() => harness.setup());
    afterAll(() => harness.teardown());

    it('adds while the sum fits, refuses what would pass the cap and changes nothing then', async () => {
      const s = harness.fresh();
      expect(await s.addCapped('c', 40, 100, T0, HOUR)).toEqual({ added: true, total: 40 });
      expect(await s.addCapped('c', 60, 100, T0 + 1, HOUR)).toEqual({ added: true, total: 100 });
      expect(await s.addCapped('c', 1, 100, T0 + 2, HOUR)).toEqual({ added: false, total: 100 });
      expect(await s.addCapped('other', 101, 100, T0, HOUR)).toEqual({ added: false, total: 0 });
    });

    it('keeps the expiry of the first write: the total lapses on time, then starts again from zero', async () => {
      const s = harness.fresh();
      await s.addCapped('c', 30, 100, T0, HOUR);
      expect(await s.addCapped('c', 30, 100, T0 + HOUR - 10, HOUR)).toEqual({ added: true, total: 60 });
      expect(await s.addCapped('c', 50, 100, T0 + HOUR, HOUR)).toEqual({ added: true, total: 50 });
    });

    it('never lets concurrent callers pass the cap together', async () => {
      const s = harness.fresh();
      const results = await Promise.all(Array.from({ length: 25 }, (_, i) => s.addCapped('c', 10, 100, T0 + i, HOUR)));
      expect(results.filter((r) => r.added)).toHaveLength(10);
      expect(await s.addCapped('c', 0, 100, T0 + 100, HOUR)).toEqual({ added: true, total: 100 });
    });

    it("holds the probe's spend per UTC day and lists every transfer recorded, oldest first", async () => {
      const s = harness.fresh();
      const day = new Date(T0);
      expect(await reserveDailySpend(s, 60_000n, 100_000n, day)).toEqual({ reserved: true, spentToday: 60_000n });
      expect(await reserveDailySpend(s, 60_000n, 100_000n, day)).toEqual({ reserved: false, spentToday: 60_000n });
      expect(await reserveDailySpend(s, 60_000n, 100_000n, new Date(T0 + 24 * HOUR))).toEqual({ reserved: true, spentToday: 60_000n });
      const entry = { network: 'eip155:84532', asset: '0xa', amount: '10000', payTo: '0xb', step: 'first payment', target: 'https://seller.example/paid' };
      await recordProbeSpend(s, { ...entry, at: '2026-11-28T12:00:01.000Z', txHash: '0x2' });
      await recordProbeSpend(s, { ...entry, at: '2026-11-28T12:00:00.000Z', txHash: '0x1' });
      expect((await listProbeSpend(s, T0)).map((t) => t.txHash)).toEqual(['0x1', '0x2']);
    });
  });
}
