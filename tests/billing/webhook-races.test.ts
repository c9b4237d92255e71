import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleWebhookEvent } from '@/lib/billing';
import { names, readJson, writeJson, type CheckoutRecord, type FulfilmentRecord } from '@/lib/billing/records';
import type { PlanId } from '@/lib/price';
import type { Store } from '@/lib/store';
import { redisHarness, sqliteHarness, vercelKvHarness } from '../store/adapters';
import { addMonths, chargeRefunded, invoicePaid, nowS, sessionCompleted } from './events';

// A refund or a renewal that computed `used` from an earlier read and wrote it back would overwrite a call
// committed in between (give it back for free). Each test makes the race happen deterministically: the
// interleaved work runs right before the webhook's grant write, on every adapter.

const config = { CREDITS_KEY_SECRET: 'x'.repeat(40) };
const GRANT_WRITES = new Set<string>(['updateGrant', 'renewGrant', 'removeGrantCalls']);

/** `store`, except that `meanwhile` runs once, just before the first grant write reaches the store. */
function racing(store: Store, meanwhile: () => Promise<void>): { store: Store; raced: () => boolean } {
  let ran = false;
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !GRANT_WRITES.has(prop) || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (!ran) {
          ran = true;
          await meanwhile();
        }
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
  return { store: wrapped, raced: () => ran };
}

let counter = 0;
async function buy(store: Store, plan: PlanId, opts: { paymentIntent?: string; subscription?: string }): Promise<FulfilmentRecord> {
  const sessionId = `cs_test_race${++counter}_${Date.now()}`;
  const now = Date.now();
  const checkout: CheckoutRecord = {
    sessionId, plan, mode: plan === 'subscription' ? 'subscription' : 'payment', topUpKeyHash: null, topUpKeyMask: null, createdAt: now,
  };
  await writeJson(store, names.checkout(sessionId), checkout, now);
  await handleWebhookEvent({ store, config }, sessionCompleted(sessionId, { plan, ...opts }));
  return (await readJson<FulfilmentRecord>(store, names.fulfilment(sessionId), now))!;
}

async function grantOf(store: Store, bought: FulfilmentRecord) {
  return (await store.listGrants(bought.keyHash, Date.now())).find((g) => g.id === bought.grantId)!;
}

for (const harness of [sqliteHarness(), sqliteHarness({ offThread: true }), redisHarness(), vercelKvHarness()]) {
  describe.skipIf(!harness.available)(`webhook grant updates racing spends: ${harness.name}`, () => {
    beforeAll(() => harness.setup());
    afterAll(() => harness.teardown());

    it('a refund racing a commit: both the refunded calls and the committed call stay removed', async () => {
      const store = harness.fresh();
      const pi = `pi_test_race_${++counter}`;
      const bought = await buy(store, 'bundle-25', { paymentIntent: pi });
      const now = Date.now();
      expect((await store.reserveCall(bought.keyHash, 'cu_race', now, now + 60_000)).ok).toBe(true);

      const race = racing(store, async () => {
        expect(await store.commitReservation('cu_race', Date.now())).toBe('committed');
      });
      // 20 % of 2000 refunded: ceil(25 x 0.2) = 5 calls go.
      const outcome = await handleWebhookEvent({ store: race.store, config }, chargeRefunded(pi, 2000, 400));
      expect(race.raced()).toBe(true);
      expect(outcome).toMatchObject({ result: 'processed', detail: 'refund: removed up to 5 calls' });
      expect(await grantOf(store, bought)).toMatchObject({ calls: 25, used: 6, reserved: 0, remaining: 19 });
    });

    it('two refunds of one payment delivered together remove the larger share once, not both', async () => {
      const store = harness.fresh();
      const pi = `pi_test_race_${++counter}`;
      const bought = await buy(store, 'bundle-25', { paymentIntent: pi });
      // The second delivery (cumulative 40 %) runs whole while the first (20 %) is about to write.
      const race = racing(store, async () => {
        await handleWebhookEvent({ store, config }, chargeRefunded(pi, 2000, 800));
      });
      await handleWebhookEvent({ store: race.store, config }, chargeRefunded(pi, 2000, 400));
      expect(race.raced()).toBe(true);
      expect(await grantOf(store, bought)).toMatchObject({ used: 10, remaining: 15 });
    });

    it('a renewal reconciled twice at once resets the allowance once: a call spent in between stays spent', async () => {
      const store = harness.fresh();
      const sub = `sub_test_race_${++counter}`;
      const bought = await buy(store, 'subscription', { subscription: sub });
      const start = nowS();
      const [end1, end2] = [addMonths(start, 1), addMonths(start, 2)];
      await handleWebhookEvent({ store, config }, invoicePaid(sub, start, end1, { reason: 'subscription_create' }));
      for (let i = 0; i < 7; i++) {
        await store.reserveCall(bought.keyHash, `cu_first_${i}`, Date.now(), Date.now() + 60_000);
        expect(await store.commitReservation(`cu_first_${i}`, Date.now())).toBe('committed');
      }
      expect(await grantOf(store, bought)).toMatchObject({ used: 7 });

      // Two deliveries about the same new period (say a second invoice.paid event for it) race: the
      // second runs whole, a call is spent in the new period, then the first writes.
      const race = racing(store, async () => {
        await handleWebhookEvent({ store, config }, invoicePaid(sub, end1, end2));
        await store.reserveCall(bought.keyHash, 'cu_new_period', Date.now(), Date.now() + 60_000);
        expect(await store.commitReservation('cu_new_period', Date.now())).toBe('committed');
      });
      await handleWebhookEvent({ store: race.store, config }, invoicePaid(sub, end1, end2));
      expect(race.raced()).toBe(true);
      expect(await grantOf(store, bought)).toMatchObject({ calls: 50, used: 1, remaining: 49 });
    });
  });
}
