import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_LEASE_MS, handleWebhookEvent, type WebhookOutcome } from '@/lib/billing';
import { names, readJson, writeJson, type CheckoutRecord, type FulfilmentRecord } from '@/lib/billing/records';
import { createKey } from '@/lib/credits/ledger';
import { hashKey } from '@/lib/credits/keys';
import { PROBLEM_BASE } from '@/lib/problems';
import type { Store } from '@/lib/store';
import { redisHarness, sqliteHarness, vercelKvHarness } from '../store/adapters';
import { sessionCompleted } from './events';

// Two fulfilment events of one Checkout Session (checkout.session.completed and
// checkout.session.async_payment_succeeded) processed at the same moment must grant the purchase once; a
// fulfilment that failed midway must not grant again when Stripe retries it; and a process killed mid-event
// must not lose the event (its retry is not a replay). Each race is made to happen deterministically: the
// other delivery runs whole right before this one's first key or grant write, on every adapter.

const config = { CREDITS_KEY_SECRET: 'x'.repeat(40) };
const KEY_OR_GRANT_WRITES = new Set<string>(['putKey', 'addGrant']);

type Settled = { ok: true; outcome: WebhookOutcome } | { ok: false; error: unknown };
const settle = (p: Promise<WebhookOutcome>): Promise<Settled> => p.then((outcome) => ({ ok: true as const, outcome }), (error: unknown) => ({ ok: false as const, error }));
const inProgress = { ok: false, error: expect.objectContaining({ problem: expect.objectContaining({ type: `${PROBLEM_BASE}webhook-in-progress`, status: 409 }) }) };

/** `store`, except that `meanwhile` runs once, just before the first key or grant write reaches the store. */
function racing(store: Store, meanwhile: () => Promise<void>): { store: Store; raced: () => boolean } {
  let ran = false;
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !KEY_OR_GRANT_WRITES.has(prop) || typeof value !== 'function') return value;
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

/** `store`, except that the methods in `faults` throw once each, after (`applied`) or instead of doing their work. */
function failingOnce(store: Store, faults: Record<string, 'applied' | 'not applied'>, when: (args: unknown[]) => boolean = () => true): Store {
  const pending = new Map(Object.entries(faults));
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !pending.has(prop) || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const fault = pending.get(prop);
        if (fault === undefined || !when(args)) return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        pending.delete(prop);
        if (fault === 'applied') await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        throw new Error(`${prop}: connection lost`);
      };
    },
  });
}

/** `store`, until `method` has done its work once: from then on every call fails, as in a process killed at that point. */
function diesAfter(store: Store, method: keyof Store): Store {
  let dead = false;
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (dead) throw new Error('process killed');
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (prop === method) dead = true;
        return result;
      };
    },
  });
}

let counter = 0;
/** A paid session for bundle-100: a top-up of a fresh bundle-25 key (25 calls left), or a new key. */
async function checkoutFor(store: Store, kind: 'top-up' | 'new-key') {
  const sessionId = `cs_test_g10_${++counter}_${Date.now()}`;
  const now = Date.now();
  const topUp = kind === 'top-up' ? await createKey(store, config.CREDITS_KEY_SECRET, 'bundle-25', { now }) : null;
  const checkout: CheckoutRecord = {
    sessionId, plan: 'bundle-100', mode: 'payment', topUpKeyHash: topUp?.keyHash ?? null, topUpKeyMask: topUp ? `pac_live_…${topUp.key.slice(-4)}` : null, createdAt: now,
  };
  await writeJson(store, names.checkout(sessionId), checkout, now);
  const completed = sessionCompleted(sessionId, { plan: 'bundle-100' });
  const asyncSucceeded = { ...completed, id: `evt_test_g10_async_${counter}`, type: 'checkout.session.async_payment_succeeded' };
  return { sessionId, topUpKeyHash: topUp?.keyHash ?? null, completed, asyncSucceeded };
}

/** A key's grants as [plan, calls, calls left], by plan (two bundles bought in the same millisecond tie on expiry). */
const grantsOf = async (store: Store, keyHash: string) =>
  (await store.listGrants(keyHash, Date.now())).map((g) => [g.plan, g.calls, g.remaining]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));

/** The purchase was granted exactly once: the top-up key holds 25 + 100 calls, or one new key holds 100 and is the one revealed. */
async function expectGrantedOnce(store: Store, kind: 'top-up' | 'new-key', sessionId: string, topUpKeyHash: string | null) {
  const fulfilment = await readJson<FulfilmentRecord>(store, names.fulfilment(sessionId), Date.now());
  expect(fulfilment).toMatchObject({ kind, plan: 'bundle-100' });
  if (kind === 'top-up') {
    expect(fulfilment!.keyHash).toBe(topUpKeyHash);
    expect(await grantsOf(store, topUpKeyHash!)).toEqual([['bundle-100', 100, 100], ['bundle-25', 25, 25]]);
    expect(await store.countKeys()).toBe(1);
  } else {
    expect(await store.countKeys()).toBe(1);
    const revealed = await store.takeRecord(names.reveal(sessionId), Date.now());
    expect(revealed).not.toBeNull();
    expect(hashKey(revealed!, config.CREDITS_KEY_SECRET)).toBe(fulfilment!.keyHash);
    expect(await grantsOf(store, fulfilment!.keyHash)).toEqual([['bundle-100', 100, 100]]);
  }
}

for (const harness of [sqliteHarness(), sqliteHarness({ offThread: true }), redisHarness(), vercelKvHarness()]) {
  describe.skipIf(!harness.available)(`one Checkout Session is fulfilled once: ${harness.name}`, () => {
    beforeAll(() => harness.setup());
    afterAll(() => harness.teardown());

    for (const kind of ['top-up', 'new-key'] as const) {
      it(`${kind}: completed and async_payment_succeeded processed at the same moment grant once; the refused one is retried and ignored`, async () => {
        const store = harness.fresh();
        const { sessionId, topUpKeyHash, completed, asyncSucceeded } = await checkoutFor(store, kind);
        let second: Settled | null = null;
        const race = racing(store, async () => {
          second = await settle(handleWebhookEvent({ store, config }, asyncSucceeded));
        });
        const first = await handleWebhookEvent({ store: race.store, config }, completed);
        expect(race.raced()).toBe(true);
        await expectGrantedOnce(store, kind, sessionId, topUpKeyHash);
        expect(first).toMatchObject({ result: 'processed', detail: `fulfilled bundle-100 (${kind})` });
        // Refused with a non-2xx, so Stripe delivers it again; by then the session is fulfilled.
        expect(second).toEqual(inProgress);
        expect(await handleWebhookEvent({ store, config }, asyncSucceeded)).toMatchObject({ result: 'ignored', detail: 'ignored: session already fulfilled' });
        expect(await store.countKeys()).toBe(1);
      });

      it(`${kind}: a delivery of the same event while the first is in flight is refused (409), not taken for a duplicate; its redelivery is one`, async () => {
        const store = harness.fresh();
        const { sessionId, topUpKeyHash, completed } = await checkoutFor(store, kind);
        let second: Settled | null = null;
        const race = racing(store, async () => {
          second = await settle(handleWebhookEvent({ store, config }, completed));
        });
        expect(await handleWebhookEvent({ store: race.store, config }, completed)).toMatchObject({ result: 'processed', detail: `fulfilled bundle-100 (${kind})` });
        expect(race.raced()).toBe(true);
        // A 2xx here would tell Stripe the event was handled while the first delivery could still crash.
        expect(second).toEqual(inProgress);
        expect(await handleWebhookEvent({ store, config }, completed)).toMatchObject({ result: 'duplicate' });
        await expectGrantedOnce(store, kind, sessionId, topUpKeyHash);
      });

      for (const [where, faults] of [
        ['the grant is written but its answer is lost', { addGrant: 'applied' }],
        ['the fulfilment record cannot be written after the grant', { setRecord: 'not applied' }],
      ] as const) {
        it(`${kind}: ${where}: the delivery fails, and Stripe's retry completes it with exactly one grant`, async () => {
          const store = harness.fresh();
          const { sessionId, topUpKeyHash, completed } = await checkoutFor(store, kind);
          const faulty = failingOnce(store, faults, (args) => !('setRecord' in faults) || args[0] === names.fulfilment(sessionId));
          await expect(handleWebhookEvent({ store: faulty, config }, completed)).rejects.toThrow('connection lost');
          expect(await readJson(store, names.fulfilment(sessionId), Date.now())).toBeNull();
          expect(await handleWebhookEvent({ store, config }, completed)).toMatchObject({ result: 'processed', detail: `fulfilled bundle-100 (${kind})` });
          expect(await handleWebhookEvent({ store, config }, completed)).toMatchObject({ result: 'duplicate' });
          await expectGrantedOnce(store, kind, sessionId, topUpKeyHash);
        });
      }

      it(`${kind}: a process killed right after granting: its event and session stay held until the lease lapses, then Stripe's retry of the same event completes it with one grant`, async () => {
        const store = harness.fresh();
        const { sessionId, topUpKeyHash, completed, asyncSucceeded } = await checkoutFor(store, kind);
        // The grant reaches the store, then nothing else does: not the fulfilment record, the done marker or a release.
        await expect(handleWebhookEvent({ store: diesAfter(store, 'addGrant'), config }, completed)).rejects.toThrow('process killed');
        const now = Date.now();
        for (const evt of [completed, asyncSucceeded]) {
          await expect(handleWebhookEvent({ store, config, now }, evt)).rejects.toMatchObject(inProgress.error);
        }
        const later = now + WEBHOOK_LEASE_MS;
        expect(await handleWebhookEvent({ store, config, now: later }, completed)).toMatchObject({ result: 'processed', detail: `fulfilled bundle-100 (${kind})` });
        expect(await handleWebhookEvent({ store, config, now: later }, completed)).toMatchObject({ result: 'duplicate' });
        expect(await handleWebhookEvent({ store, config, now: later }, asyncSucceeded)).toMatchObject({ result: 'ignored', detail: 'ignored: session already fulfilled' });
        await expectGrantedOnce(store, kind, sessionId, topUpKeyHash);
      });
    }
  });
}
