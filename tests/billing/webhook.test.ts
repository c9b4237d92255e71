import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POST as webhookPOST } from '@/app/api/billing/webhook/route';
import { GET as sessionGET } from '@/app/api/billing/session/route';
import { POST as accountPOST } from '@/app/api/billing/account/route';
import { authenticateKey, balance, commitCall, createKey, reserveCall } from '@/lib/credits/ledger';
import { hashKey } from '@/lib/credits/keys';
import { PROBLEM_BASE } from '@/lib/problems';
import { names, writeJson, type CheckoutRecord } from '@/lib/billing/records';
import { WEBHOOK_LEASE_MS, RENEWAL_GRACE_MS, handleWebhookEvent } from '@/lib/billing';
import type { PlanId } from '@/lib/price';
import type { Store } from '@/lib/store';
import { installTestRuntime, type TestRuntime } from '../support/runtime';
import { type AccountBody, WEBHOOK_SECRET, addMonths, chargeRefunded, event, invoicePaid, nowS, sessionCompleted, sign, subscriptionDeleted } from './events';

const BASE = 'http://localhost:3000';
let rt: TestRuntime;

beforeEach(() => {
  rt = installTestRuntime({ STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
});
afterEach(() => rt.dispose());

function deliver(evt: unknown, signature?: string | null) {
  const payload = JSON.stringify(evt);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const sig = signature === undefined ? sign(payload) : signature;
  if (sig !== null) headers['stripe-signature'] = sig;
  return webhookPOST(new Request(`${BASE}/api/billing/webhook`, { method: 'POST', headers, body: payload }));
}

async function deliverOk(evt: unknown): Promise<string> {
  const res = await deliver(evt);
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: string }).result;
}

/**
 * Delivers one event `n` times at once: exactly one delivery processes it. Each other one came while it was
 * in flight (refused with a 409, so Stripe delivers it again) or after it finished (a duplicate); which of
 * the two depends on timing. Stripe's redelivery of a refused one is then a duplicate.
 */
async function expectProcessedOnceTogether(evt: unknown, n: number) {
  const answers = await Promise.all(Array.from({ length: n }, async () => {
    const res = await deliver(evt);
    const body = (await res.json()) as { result?: string; type?: string };
    return res.status === 200 ? body.result : `${res.status} ${body.type}`;
  }));
  expect(answers.filter((a) => a === 'processed')).toHaveLength(1);
  for (const other of answers.filter((a) => a !== 'processed')) expect(['duplicate', `409 ${PROBLEM_BASE}webhook-in-progress`]).toContain(other);
  expect(await deliverOk(evt)).toBe('duplicate');
}

let sessionCounter = 0;
async function seedCheckout(plan: PlanId, topUpKey?: string): Promise<string> {
  const sessionId = `cs_test_seeded${++sessionCounter}${Date.now()}`;
  const record: CheckoutRecord = {
    sessionId, plan, mode: plan === 'subscription' ? 'subscription' : 'payment',
    topUpKeyHash: topUpKey ? hashKey(topUpKey, rt.config.CREDITS_KEY_SECRET) : null, topUpKeyMask: topUpKey ? `pac_live_…${topUpKey.slice(-4)}` : null, createdAt: Date.now(),
  };
  await writeJson(rt.store, names.checkout(sessionId), record, Date.now());
  return sessionId;
}

async function poll(sessionId: string) {
  const res = await sessionGET(new Request(`${BASE}/api/billing/session?session_id=${sessionId}`));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Pays for a new key and takes it from the one-time reveal. */
async function buyNewKey(plan: PlanId, opts: { paymentIntent?: string; subscription?: string } = {}) {
  const sessionId = await seedCheckout(plan);
  await deliverOk(sessionCompleted(sessionId, { plan, ...opts }));
  const { body } = await poll(sessionId);
  expect(body.revealed).toBe(true);
  return { sessionId, key: body.key as string };
}

async function account(key: string) {
  const res = await accountPOST(new Request(`${BASE}/api/billing/account`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) }));
  return { status: res.status, body: (await res.json()) as AccountBody };
}

async function spend(store: Store, key: string, n: number) {
  const keyHash = await authenticateKey(store, rt.config.CREDITS_KEY_SECRET, key);
  for (let i = 0; i < n; i++) {
    const usage = await reserveCall(store, keyHash);
    expect(usage).not.toBeNull();
    await commitCall(store, usage!);
  }
}

async function callsLeft(key: string) {
  return (await balance(rt.store, await authenticateKey(rt.store, rt.config.CREDITS_KEY_SECRET, key))).callsLeft;
}

describe('webhook signature', () => {
  it.each([
    ['missing', null],
    ['signed with another secret', sign('{}', 'whsec_other_secret_value_123456')],
    ['garbage', 't=1,v1=deadbeef'],
  ])('refuses a %s Stripe-Signature with 400 problem+json and changes nothing', async (_name, signature) => {
    const sessionId = await seedCheckout('bundle-25');
    const evt = sessionCompleted(sessionId, { plan: 'bundle-25' });
    const res = await deliver(evt, signature === null ? null : signature);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const body = await res.json();
    expect(body.type).toBe(`${PROBLEM_BASE}invalid-signature`);
    expect(JSON.stringify(body)).not.toMatch(/stack|at \w+ \(/);
    expect(await rt.store.countKeys()).toBe(0);
    expect((await poll(sessionId)).body.status).toBe('pending');
    // The same event, correctly signed, is then processed: the refused delivery did not consume its id.
    expect(await deliverOk(evt)).toBe('processed');
  });

  it('refuses a body changed after signing, and a signature older than the tolerance', async () => {
    const sessionId = await seedCheckout('bundle-25');
    const evt = sessionCompleted(sessionId, { plan: 'bundle-25' });
    const payload = JSON.stringify(evt);
    const tampered = await webhookPOST(new Request(`${BASE}/api/billing/webhook`, {
      method: 'POST', headers: { 'stripe-signature': sign(payload) }, body: payload.replace('"bundle-25"', '"bundle-100"'),
    }));
    expect(tampered.status).toBe(400);
    const stale = await deliver(evt, sign(payload, WEBHOOK_SECRET, nowS() - 3600));
    expect(stale.status).toBe(400);
    expect(await rt.store.countKeys()).toBe(0);
  });

  it('answers 503 problem+json when no webhook secret is configured', async () => {
    await rt.dispose();
    rt = installTestRuntime();
    const res = await deliver(event('invoice.paid', {}));
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });
});

describe('checkout.session.completed', () => {
  it('mints a key holding the plan, reveals it exactly once, and stores only its hash', async () => {
    const sessionId = await seedCheckout('bundle-25');
    expect((await poll(sessionId)).body).toEqual({ status: 'pending', plan: 'bundle-25' });
    expect(await deliverOk(sessionCompleted(sessionId, { plan: 'bundle-25' }))).toBe('processed');

    const first = await poll(sessionId);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'fulfilled', kind: 'new-key', plan: 'bundle-25', callsLeft: 25, revealed: true });
    const key = first.body.key as string;
    expect(key).toMatch(/^pac_live_[0-9A-Za-z]{40}$/);

    const second = await poll(sessionId);
    expect(second.body).toMatchObject({ status: 'fulfilled', kind: 'new-key', revealed: false });
    expect(JSON.stringify(second.body)).not.toContain(key);
    expect(await rt.store.getRecord(names.reveal(sessionId), Date.now())).toBeNull();
    expect(await callsLeft(key)).toBe(25);
    expect(JSON.stringify(rt.logs)).not.toContain(key);
  });

  it('processes a replayed event id once', async () => {
    const sessionId = await seedCheckout('bundle-100');
    const evt = sessionCompleted(sessionId, { plan: 'bundle-100' });
    expect(await deliverOk(evt)).toBe('processed');
    expect(await deliverOk(evt)).toBe('duplicate');
    expect(await deliverOk(evt)).toBe('duplicate');
    expect(await rt.store.countKeys()).toBe(1);
    const { body } = await poll(sessionId);
    expect(body.callsLeft).toBe(100);
  });

  it('fulfils a session once even when Stripe sends completed and async_payment_succeeded', async () => {
    const sessionId = await seedCheckout('bundle-25');
    const completed = sessionCompleted(sessionId, { plan: 'bundle-25' });
    await deliverOk(completed);
    await deliverOk({ ...completed, id: 'evt_test_async', type: 'checkout.session.async_payment_succeeded' });
    expect(await rt.store.countKeys()).toBe(1);
  });

  it('does nothing for a session that is not paid yet', async () => {
    const sessionId = await seedCheckout('bundle-25');
    expect(await deliverOk(sessionCompleted(sessionId, { plan: 'bundle-25', paid: false }))).toBe('ignored');
    expect(await rt.store.countKeys()).toBe(0);
    expect((await poll(sessionId)).body.status).toBe('pending');
  });

  // The account lists grants soonest-expiring first; a key and its top-up made in the same millisecond expire
  // together, and then either may come first. These tests are about which grants exist, so they compare by plan.
  const byPlan = <Row extends [string, ...number[]]>(rows: Row[]): Row[] => [...rows].sort((a, b) => a[0].localeCompare(b[0]));

  it('adds a top-up to the tied key and shows the new balance, never a key', async () => {
    const { key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    await spend(rt.store, key, 1);
    const sessionId = await seedCheckout('bundle-100', key);
    await deliverOk(sessionCompleted(sessionId, { plan: 'bundle-100' }));
    const { body } = await poll(sessionId);
    expect(body).toEqual({ status: 'fulfilled', kind: 'top-up', plan: 'bundle-100', key: `pac_live_…${key.slice(-4)}`, callsLeft: 124 });
    expect(await rt.store.countKeys()).toBe(1);
    const summary = await account(key);
    expect(byPlan(summary.body.grants.map((g: { plan: string; callsLeft: number }) => [g.plan, g.callsLeft]))).toEqual([['bundle-100', 100], ['bundle-25', 24]]);
  });

  describe('a top-up is granted once, however often Stripe tells us', () => {
    /** A key with one call spent and a bundle-100 top-up checkout tied to it. */
    async function topUpCheckout() {
      const { key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
      await spend(rt.store, key, 1);
      return { key, sessionId: await seedCheckout('bundle-100', key) };
    }
    async function expectGrantedOnce(key: string) {
      expect(await callsLeft(key)).toBe(124);
      const { body } = await account(key);
      expect(byPlan(body.grants.map((g: { plan: string; calls: number; callsLeft: number }) => [g.plan, g.calls, g.callsLeft]))).toEqual([['bundle-100', 100, 100], ['bundle-25', 25, 24]]);
      expect(await rt.store.countKeys()).toBe(1);
    }

    it('the same event delivered again', async () => {
      const { key, sessionId } = await topUpCheckout();
      const evt = sessionCompleted(sessionId, { plan: 'bundle-100' });
      expect(await deliverOk(evt)).toBe('processed');
      expect(await deliverOk(evt)).toBe('duplicate');
      await expectGrantedOnce(key);
    });

    it('completed, then async_payment_succeeded for the same session', async () => {
      const { key, sessionId } = await topUpCheckout();
      const completed = sessionCompleted(sessionId, { plan: 'bundle-100' });
      expect(await deliverOk(completed)).toBe('processed');
      expect(await deliverOk({ ...completed, id: 'evt_test_async_topup', type: 'checkout.session.async_payment_succeeded' })).toBe('ignored');
      await expectGrantedOnce(key);
    });

    it('a delivery while another is fulfilling the session: 409 problem+json, and its retry once that one finished is ignored', async () => {
      const { key, sessionId } = await topUpCheckout();
      const completed = sessionCompleted(sessionId, { plan: 'bundle-100' });
      const asyncSucceeded = { ...completed, id: 'evt_test_async_inflight', type: 'checkout.session.async_payment_succeeded' };
      // The other delivery holds the session, as `completed` does while it grants.
      expect(await rt.store.claimOnce(names.fulfilmentClaim(sessionId), Date.now(), WEBHOOK_LEASE_MS)).toBe(true);
      const refused = await deliver(asyncSucceeded);
      expect([refused.status, refused.headers.get('content-type'), refused.headers.get('retry-after')]).toEqual([409, 'application/problem+json', '60']);
      expect(await refused.json()).toMatchObject({ type: `${PROBLEM_BASE}webhook-in-progress`, status: 409 });
      expect(await callsLeft(key)).toBe(24);
      await rt.store.releaseClaim(names.fulfilmentClaim(sessionId));
      expect(await deliverOk(completed)).toBe('processed');
      expect(await deliverOk(asyncSucceeded)).toBe('ignored');
      await expectGrantedOnce(key);
    });

    it('five simultaneous deliveries of the same event', async () => {
      const { key, sessionId } = await topUpCheckout();
      const evt = sessionCompleted(sessionId, { plan: 'bundle-100' });
      await expectProcessedOnceTogether(evt, 5);
      await expectGrantedOnce(key);
    });
  });

  it('answers 400 for a malformed session id and 404 for an unknown one', async () => {
    expect((await poll('not-a-session')).status).toBe(400);
    const unknown = await poll('cs_test_unknown12345');
    expect(unknown.status).toBe(404);
    expect(unknown.body.type).toBe(`${PROBLEM_BASE}not-found`);
  });
});

describe('subscriptions', () => {
  const start = nowS();
  const end1 = addMonths(start, 1);
  const end2 = addMonths(start, 2);

  it('resets the allowance to 50 on a renewal (reset, not accumulate) and moves the period end', async () => {
    const sub = 'sub_test_renew';
    const { key } = await buyNewKey('subscription', { subscription: sub });
    await deliverOk(invoicePaid(sub, start, end1, { reason: 'subscription_create' }));
    await spend(rt.store, key, 7);
    expect(await callsLeft(key)).toBe(43);

    const renewal = invoicePaid(sub, end1, end2);
    await deliverOk(renewal);
    expect(await callsLeft(key)).toBe(50);
    const { body } = await account(key);
    expect(body.grants).toHaveLength(1);
    expect(body.grants[0]).toMatchObject({ plan: 'subscription', calls: 50, used: 0, expiresAt: new Date(end2 * 1000 + RENEWAL_GRACE_MS).toISOString() });
    expect(body.subscriptions).toEqual([{ id: sub, status: 'active', currentPeriodEnd: new Date(end2 * 1000).toISOString(), endedAt: null }]);

    // A replay of the renewal, or the first period's invoice arriving late, changes nothing.
    await spend(rt.store, key, 2);
    expect(await deliverOk(renewal)).toBe('duplicate');
    expect(await deliverOk(invoicePaid(sub, start, end1, { reason: 'subscription_create' }))).toBe('processed');
    expect(await callsLeft(key)).toBe(48);
  });

  it('still renews a subscription years after its checkout (its records do not expire)', async () => {
    const sub = 'sub_test_long';
    const { key } = await buyNewKey('subscription', { subscription: sub });
    const later = addMonths(start, 30);
    const deps = { store: rt.store, config: rt.config, now: later * 1000 };
    await rt.store.updateGrant((await account(key)).body.grants[0].id, { used: 50 });
    const outcome = await handleWebhookEvent(deps, invoicePaid(sub, later, addMonths(later, 1)));
    expect(outcome).toMatchObject({ result: 'processed', detail: 'renewed: allowance reset' });
    const grants = await rt.store.listGrants(await authenticateKey(rt.store, rt.config.CREDITS_KEY_SECRET, key), later * 1000);
    expect(grants[0]).toMatchObject({ used: 0, remaining: 50 });
  });

  it('keeps an invoice.paid that arrives before checkout.session.completed, and grants once', async () => {
    const sub = 'sub_test_early';
    // The first invoice and even the first renewal arrive before the checkout event (its delivery failed).
    expect(await deliverOk(invoicePaid(sub, start, end1, { reason: 'subscription_create' }))).toBe('processed');
    expect(await deliverOk(invoicePaid(sub, end1, end2))).toBe('processed');
    expect(await rt.store.countKeys()).toBe(0);

    const { key } = await buyNewKey('subscription', { subscription: sub });
    expect(await rt.store.countKeys()).toBe(1);
    const { body } = await account(key);
    expect(body.callsLeft).toBe(50);
    expect(body.grants).toHaveLength(1);
    expect(body.grants[0].expiresAt).toBe(new Date(end2 * 1000 + RENEWAL_GRACE_MS).toISOString());
  });

  it('ends on customer.subscription.deleted: calls last until the paid period ends, and nothing renews it', async () => {
    const sub = 'sub_test_cancel';
    const { key } = await buyNewKey('subscription', { subscription: sub });
    await deliverOk(invoicePaid(sub, start, end1, { reason: 'subscription_create' }));
    await spend(rt.store, key, 5);
    await deliverOk(subscriptionDeleted(sub, end1));
    let summary = (await account(key)).body;
    expect(summary.callsLeft).toBe(45);
    expect(summary.grants[0].expiresAt).toBe(new Date(end1 * 1000).toISOString());
    expect(summary.subscriptions[0]).toMatchObject({ id: sub, status: 'ended', currentPeriodEnd: new Date(end1 * 1000).toISOString() });

    // A stray renewal after the end neither resets the allowance nor extends the grant.
    await deliverOk(invoicePaid(sub, end1, end2));
    summary = (await account(key)).body;
    expect(summary.callsLeft).toBe(45);
    expect(summary.grants[0].expiresAt).toBe(new Date(end1 * 1000).toISOString());
  });

  it('applies a cancellation that arrived before the checkout', async () => {
    const sub = 'sub_test_cancel_early';
    const endedAt = nowS();
    await deliverOk(subscriptionDeleted(sub, endedAt, endedAt));
    const { key } = await buyNewKey('subscription', { subscription: sub });
    expect(await callsLeft(key)).toBe(0);
  });
});

describe('charge.refunded', () => {
  it('removes the calls that remain of a refunded bundle, once', async () => {
    const pi = 'pi_test_refund_full';
    const { key } = await buyNewKey('bundle-25', { paymentIntent: pi });
    const other = await seedCheckout('bundle-100', key);
    await deliverOk(sessionCompleted(other, { plan: 'bundle-100', paymentIntent: 'pi_test_other' }));
    await spend(rt.store, key, 3); // spends from the grant expiring soonest: the bundle-25
    const refund = chargeRefunded(pi, 2000, 2000);
    expect(await deliverOk(refund)).toBe('processed');
    expect(await deliverOk(refund)).toBe('duplicate');
    const { body } = await account(key);
    expect(body.grants.map((g: { plan: string; callsLeft: number }) => [g.plan, g.callsLeft])).toEqual([['bundle-25', 0], ['bundle-100', 100]]);
  });

  it('removes a proportional share on partial refunds, counting cumulative amounts once', async () => {
    const pi = 'pi_test_refund_partial';
    const { key } = await buyNewKey('bundle-100', { paymentIntent: pi });
    await deliverOk(chargeRefunded(pi, 7000, 700)); // 10 % -> 10 calls
    expect(await callsLeft(key)).toBe(90);
    await deliverOk(chargeRefunded(pi, 7000, 700)); // a new event id, same cumulative amount: nothing more
    expect(await callsLeft(key)).toBe(90);
    await deliverOk(chargeRefunded(pi, 7000, 3500)); // 50 % in total -> 40 more
    expect(await callsLeft(key)).toBe(50);
  });

  it('applies a refund that arrived before the purchase was fulfilled', async () => {
    const pi = 'pi_test_refund_early';
    expect(await deliverOk(chargeRefunded(pi, 2000, 2000))).toBe('processed');
    const { key } = await buyNewKey('bundle-25', { paymentIntent: pi });
    expect(await callsLeft(key)).toBe(0);
  });

  it('refunds the current subscription period, not a past one', async () => {
    const sub = 'sub_test_refund';
    const start = nowS();
    const { key } = await buyNewKey('subscription', { subscription: sub });
    await deliverOk(invoicePaid(sub, start, addMonths(start, 1), { reason: 'subscription_create', paymentIntent: 'pi_test_first' }));
    await deliverOk(invoicePaid(sub, addMonths(start, 1), addMonths(start, 2), { paymentIntent: 'pi_test_second' }));
    expect(await deliverOk(chargeRefunded('pi_test_first', 2900, 2900))).toBe('processed');
    expect(await callsLeft(key)).toBe(50);
    await deliverOk(chargeRefunded('pi_test_second', 2900, 2900));
    expect(await callsLeft(key)).toBe(0);
  });
});

describe('concurrent deliveries', () => {
  it('processes one of several simultaneous deliveries of the same event', async () => {
    const sessionId = await seedCheckout('bundle-25');
    const evt = sessionCompleted(sessionId, { plan: 'bundle-25' });
    await expectProcessedOnceTogether(evt, 5);
    expect(await rt.store.countKeys()).toBe(1);
  });

  it('grants a subscription once when its checkout and invoice events arrive together', async () => {
    const sub = 'sub_test_together';
    const sessionId = await seedCheckout('subscription');
    const start = nowS();
    await Promise.all([
      deliverOk(invoicePaid(sub, start, addMonths(start, 1), { reason: 'subscription_create' })),
      deliverOk(sessionCompleted(sessionId, { plan: 'subscription', subscription: sub })),
    ]);
    const { body } = await poll(sessionId);
    expect(body).toMatchObject({ kind: 'new-key', callsLeft: 50, revealed: true });
    expect(await rt.store.countKeys()).toBe(1);
  });
});

describe('other events and failures', () => {
  it('acknowledges event types it does not use and stores nothing for them', async () => {
    for (const type of ['payment_intent.succeeded', 'customer.created', 'invoice.finalized', 'customer.subscription.updated']) {
      expect(await deliverOk(event(type, { id: 'obj_1' }))).toBe('ignored');
    }
    expect(await rt.store.countKeys()).toBe(0);
  });

  it('answers 503 when processing fails, then processes the same event when Stripe retries it', async () => {
    const sessionId = await seedCheckout('bundle-25');
    const evt = sessionCompleted(sessionId, { plan: 'bundle-25' });
    const realAdd = rt.store.addGrant.bind(rt.store);
    let failNext = true;
    rt.store.addGrant = async (grant) => {
      if (failNext) {
        failNext = false;
        throw new Error('disk full');
      }
      return realAdd(grant);
    };
    const failed = await deliver(evt);
    expect(failed.status).toBe(503);
    expect(failed.headers.get('content-type')).toBe('application/problem+json');
    expect(JSON.stringify(await failed.json())).not.toContain('disk full');
    expect(await deliverOk(evt)).toBe('processed');
    expect(await deliverOk(evt)).toBe('duplicate');
    const { body } = await poll(sessionId);
    expect(body).toMatchObject({ status: 'fulfilled', callsLeft: 25, revealed: true });
  });
});

describe('POST /api/billing/account', () => {
  it('answers 401 problem+json for a bad key and 400 for a missing one', async () => {
    const bad = await account('pac_live_' + 'x'.repeat(40));
    expect(bad.status).toBe(401);
    expect(bad.body.type).toBe(`${PROBLEM_BASE}invalid-credits-key`);
    const res = await accountPOST(new Request(`${BASE}/api/billing/account`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    expect(res.status).toBe(400);
    expect((await res.json()).errors).toEqual([{ path: '$.key', message: 'is required (or sign in)' }]);
  });
});
