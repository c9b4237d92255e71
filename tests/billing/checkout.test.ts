import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { POST as checkoutPOST } from '@/app/api/billing/checkout/route';
import { POST as portalPOST } from '@/app/api/billing/portal/route';
import { POST as accountPOST } from '@/app/api/billing/account/route';
import { GET as sessionGET } from '@/app/api/billing/session/route';
import { POST as signInPOST } from '@/app/api/session/route';
import { createKey } from '@/lib/credits/ledger';
import { hashKey } from '@/lib/credits/keys';
import { PROBLEM_BASE } from '@/lib/problems';
import { billingStripe } from '@/lib/billing';
import { startStripeCheckoutFake, type StandaloneCheckoutFake } from '@/scripts/rails/stripe-checkout-fake';
import { installTestRuntime, type TestRuntime } from '../support/runtime';
import { bridgeWebhooks } from '../support/webhook-bridge';
import type { AccountBody, PollBody } from './events';

// Checkout Sessions through the official SDK against the local fake, and whole purchases: the fake
// "pays", signs and delivers its webhook events to our route handler (bridged over HTTP in-process).

const BASE = 'http://localhost:3000';
let fake: StandaloneCheckoutFake;
let bridge: Server;
let rt: TestRuntime;

beforeAll(async () => {
  fake = await startStripeCheckoutFake({ webhookSecret: 'whsec_test_checkout_' + 'b'.repeat(24) });
  bridge = await bridgeWebhooks(fake);
});
afterAll(async () => {
  await fake?.stop();
  await new Promise((r) => bridge?.close(r));
});

beforeEach(() => {
  rt = installTestRuntime({ STRIPE_SECRET_KEY: fake.secretKey, STRIPE_API_URL: fake.apiUrl, STRIPE_WEBHOOK_SECRET: fake.webhookSecret });
});
afterEach(() => rt.dispose());

const json = (path: string, body: unknown) =>
  new Request(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const form = (path: string, fields: Record<string, string>) =>
  new Request(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

async function checkout(body: unknown) {
  const res = await checkoutPOST(json('/api/billing/checkout', body));
  return { status: res.status, body: (await res.json()) as { url: string; sessionId: string; type?: string } };
}

async function poll(sessionId: string) {
  return (await (await sessionGET(new Request(`${BASE}/api/billing/session?session_id=${sessionId}`))).json()) as PollBody;
}

async function account(key: string) {
  return (await (await accountPOST(json('/api/billing/account', { key }))).json()) as AccountBody;
}

describe('POST /api/billing/checkout', () => {
  it('creates a payment-mode session for a bundle with the price inline and our return addresses', async () => {
    const { status, body } = await checkout({ plan: 'bundle-25' });
    expect(status).toBe(200);
    const session = fake.sessions().find((s) => s.id === body.sessionId)!;
    expect(body.url).toBe(session.url);
    expect(session).toMatchObject({
      mode: 'payment', amount_total: 2000, currency: 'usd', status: 'open', metadata: { plan: 'bundle-25', purpose: 'new-key' },
      success_url: `${BASE}/purchase/success?session_id={CHECKOUT_SESSION_ID}`, cancel_url: `${BASE}/pricing`, customer_creation: 'always',
    });
    expect(session.line_items_summary.interval).toBeNull();
    // Retrieve through the SDK: the session is a real object of the fake, not just our echo.
    const retrieved = await billingStripe(rt.config).checkout.sessions.retrieve(session.id);
    expect(retrieved.id).toBe(session.id);
  });

  it('creates a subscription-mode session with a monthly recurring price for the monthly plan', async () => {
    const { body } = await checkout({ plan: 'subscription' });
    const session = fake.sessions().find((s) => s.id === body.sessionId)!;
    expect(session).toMatchObject({ mode: 'subscription', amount_total: 2900 });
    expect(session.line_items_summary.interval).toBe('month');
  });

  it('answers a form post with 303 to the session url', async () => {
    const res = await checkoutPOST(form('/api/billing/checkout', { plan: 'bundle-100' }));
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${fake.apiUrl}/checkout/pay/cs_test_`));
  });

  it('ties a top-up to the key without sending the key, or its hash, to Stripe or into any URL', async () => {
    const { key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    const res = await checkoutPOST(form('/api/billing/checkout', { plan: 'bundle-25', topUp: 'on', key }));
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    const keyHash = hashKey(key, rt.config.CREDITS_KEY_SECRET);
    const session = fake.sessions().find((s) => location.endsWith(s.id))!;
    expect(session.metadata.purpose).toBe('top-up');
    const everythingStripeSaw = JSON.stringify(fake.sessions());
    for (const secret of [key, key.slice(9), keyHash]) {
      expect(everythingStripeSaw).not.toContain(secret);
      expect(location).not.toContain(secret);
    }
    expect(JSON.stringify(rt.logs)).not.toContain(key);
  });

  it('tops up the signed-in key when the body names none, and refuses that from another site', async () => {
    const { key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    const signIn = await signInPOST(json('/api/session', { key }));
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    const fromSite = (path: string, body: unknown, origin = BASE) =>
      new Request(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, origin }, body: JSON.stringify(body) });

    const res = await checkoutPOST(fromSite('/api/billing/checkout', { plan: 'bundle-25', topUp: true }));
    expect(res.status).toBe(200);
    const { sessionId } = (await res.json()) as { sessionId: string };
    expect(fake.sessions().find((s) => s.id === sessionId)!.metadata.purpose).toBe('top-up');
    expect(JSON.stringify(fake.sessions())).not.toContain(hashKey(key, rt.config.CREDITS_KEY_SECRET));

    const summary = await accountPOST(fromSite('/api/billing/account', {}));
    expect(summary.status).toBe(200);
    expect(await summary.json()).toMatchObject({ key: `pac_live_…${key.slice(-4)}`, callsLeft: 25 });

    const foreign = await checkoutPOST(fromSite('/api/billing/checkout', { plan: 'bundle-25', topUp: true }, 'https://evil.example'));
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).type).toBe(PROBLEM_BASE + 'cross-origin-refused');

    // Without JavaScript our pages post forms, which carry Origin: null under our no-referrer policy; the browser's
    // Sec-Fetch-Site tells our own page's form (same-origin) from another site's.
    const formFrom = (site: string) =>
      new Request(`${BASE}/api/billing/account`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: 'null', 'sec-fetch-site': site }, body: '' });
    const ours = await accountPOST(formFrom('same-origin'));
    expect(ours.status).toBe(200);
    expect(await ours.json()).toMatchObject({ key: `pac_live_…${key.slice(-4)}`, callsLeft: 25 });
    expect((await accountPOST(formFrom('cross-site'))).status).toBe(403);
    expect((await accountPOST(fromSite('/api/billing/account', {}, 'null'))).status).toBe(403);
  });

  it('asks for the key, or a sign-in, when a top-up names neither', async () => {
    const res = await checkoutPOST(json('/api/billing/checkout', { plan: 'bundle-25', topUp: true }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      detail: '$.key is required: send the credits key, or sign in with it on this site first.',
      errors: [{ path: '$.key', message: 'is required (or sign in)' }],
    });
  });

  it.each([
    [{ plan: 'gold' }, 400, 'invalid-request'],
    [{}, 400, 'invalid-request'],
    [{ plan: 'bundle-25', topUp: true }, 400, 'invalid-request'],
    [{ plan: 'bundle-25', extra: 1 }, 400, 'invalid-request'],
    [{ plan: 'bundle-25', topUp: true, key: 'pac_live_' + 'z'.repeat(40) }, 401, 'invalid-credits-key'],
  ])('refuses %j with %i problem+json and creates no session', async (body, status, kind) => {
    const before = fake.sessions().length;
    const res = await checkoutPOST(json('/api/billing/checkout', body));
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect((await res.json()).type).toBe(PROBLEM_BASE + kind);
    expect(fake.sessions().length).toBe(before);
  });

  it('answers 503 problem+json when Stripe is not configured or does not answer', async () => {
    await rt.dispose();
    rt = installTestRuntime();
    const unconfigured = await checkout({ plan: 'bundle-25' });
    expect(unconfigured.status).toBe(503);
    await rt.dispose();
    rt = installTestRuntime({ STRIPE_SECRET_KEY: 'sk_test_wrong', STRIPE_API_URL: fake.apiUrl });
    const refused = await checkout({ plan: 'bundle-25' });
    expect(refused.status).toBe(503);
    expect(refused.body.type).toBe(`${PROBLEM_BASE}billing-unavailable`);
    expect(JSON.stringify(refused.body)).not.toContain('Invalid API Key');
  });

  it('rate limits creation per client address before Stripe is called: no session past the limit', async () => {
    await rt.dispose();
    rt = installTestRuntime({ STRIPE_SECRET_KEY: fake.secretKey, STRIPE_API_URL: fake.apiUrl, STRIPE_WEBHOOK_SECRET: fake.webhookSecret, RATE_LIMIT_CHECKOUT_PER_IP: '3' });
    // X-Forwarded-For ends with the peer under `next start` (lib/http/peer-address.ts); these are two peers.
    const from = (peer: string, request: Request) => {
      request.headers.set('x-forwarded-for', peer);
      return checkoutPOST(request);
    };
    const before = fake.sessions().length;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await from('198.51.100.70', json('/api/billing/checkout', { plan: 'bundle-25' }))).status);
    expect(statuses).toEqual([200, 200, 200]);
    expect(fake.sessions().length).toBe(before + 3);

    const limited = await from('198.51.100.70', json('/api/billing/checkout', { plan: 'bundle-100' }));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await limited.json()).type).toBe(`${PROBLEM_BASE}rate-limited`);
    const limitedForm = await from('198.51.100.70', form('/api/billing/checkout', { plan: 'subscription' }));
    expect(limitedForm.status).toBe(429);
    expect(limitedForm.headers.get('location')).toBeNull();
    expect(fake.sessions().length).toBe(before + 3);

    expect((await from('198.51.100.71', json('/api/billing/checkout', { plan: 'bundle-25' }))).status).toBe(200);
    expect(fake.sessions().length).toBe(before + 4);
  });
});

describe('a whole purchase on the local fake', () => {
  it('bundle: pay -> signed webhook -> key revealed once -> usable; refund removes what remains', async () => {
    const { body } = await checkout({ plan: 'bundle-25' });
    expect((await poll(body.sessionId)).status).toBe('pending');
    const session = await fake.pay(body.sessionId);
    expect(fake.deliveries().filter((d) => d.eventId && d.status !== 200)).toEqual([]);
    const shown = await poll(body.sessionId);
    expect(shown).toMatchObject({ status: 'fulfilled', kind: 'new-key', callsLeft: 25, revealed: true });
    expect((await poll(body.sessionId)).revealed).toBe(false);
    expect((await account(shown.key)).callsLeft).toBe(25);

    // A Stripe retry of the delivered checkout event changes nothing.
    const completed = fake.events().find((e) => e.type === 'checkout.session.completed' && (e.data.object as { id: string }).id === session.id)!;
    expect((await fake.redeliver(completed.id)).status).toBe(200);
    expect(await rt.store.countKeys()).toBe(1);

    await billingStripe(rt.config).refunds.create({ payment_intent: session.payment_intent! });
    expect((await account(shown.key)).callsLeft).toBe(0);
  });

  it('subscription: pay -> 50 calls; renewal resets to 50; portal cancel ends it', async () => {
    const { body } = await checkout({ plan: 'subscription' });
    const session = await fake.pay(body.sessionId);
    const { key } = await poll(body.sessionId);
    expect(key).toMatch(/^pac_live_/);
    let summary = await account(key);
    expect(summary).toMatchObject({ callsLeft: 50, billingPortal: true, subscriptions: [{ id: session.subscription, status: 'active' }] });

    await rt.store.updateGrant(summary.grants[0].id, { used: 30 });
    expect((await account(key)).callsLeft).toBe(20);
    await fake.renew(session.subscription!);
    summary = await account(key);
    expect(summary.callsLeft).toBe(50);
    const sub = fake.subscriptions().find((s) => s.id === session.subscription)!;
    expect(summary.subscriptions[0].currentPeriodEnd).toBe(new Date(sub.items.data[0].current_period_end * 1000).toISOString());

    const portal = await portalPOST(json('/api/billing/portal', { key }));
    expect(portal.status).toBe(200);
    const { url } = await portal.json();
    expect(url).toMatch(new RegExp(`^${fake.apiUrl}/portal/bps_test_`));
    expect(url).not.toContain(key);
    const page = await fetch(url);
    expect(await page.text()).toContain('Cancel subscription');
    const cancelled = await fetch(`${url}/cancel`, { method: 'POST', body: new URLSearchParams({ subscription: sub.id }), redirect: 'manual' });
    expect(cancelled.status).toBe(303);
    summary = await account(key);
    expect(summary.subscriptions[0].status).toBe('ended');
    expect(summary.callsLeft).toBe(50);
  });

  it('portal: 404 problem for a key that was not bought through Checkout', async () => {
    const { key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    const res = await portalPOST(json('/api/billing/portal', { key }));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });

  it('the hosted checkout stand-in pays on POST and redirects the browser to success_url', async () => {
    const { body } = await checkout({ plan: 'bundle-100' });
    const page = await fetch(body.url);
    const html = await page.text();
    expect(html).toContain('70.00 USD');
    const paid = await fetch(body.url, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`${BASE}/purchase/success?session_id=${body.sessionId}`);
    expect((await poll(body.sessionId)).callsLeft).toBe(100);
  });
});

describe('the card-rail fake delegates purchases to the checkout fake', () => {
  it('serves Checkout Sessions and the hosted page on the same origin as PaymentIntents', async () => {
    const { startStripeFake } = await import('@/scripts/rails/stripe-fake');
    const combined = await startStripeFake({ checkout: { webhookSecret: fake.webhookSecret, webhookUrl: fake.webhookUrl() } });
    try {
      await rt.dispose();
      rt = installTestRuntime({ STRIPE_SECRET_KEY: combined.secretKey, STRIPE_API_URL: combined.apiUrl, STRIPE_WEBHOOK_SECRET: fake.webhookSecret });
      const { body } = await checkout({ plan: 'bundle-25' });
      expect(body.url).toMatch(new RegExp(`^${combined.apiUrl}/checkout/pay/`));
      const paid = await fetch(body.url, { method: 'POST', redirect: 'manual' });
      expect(paid.status).toBe(303);
      expect((await poll(body.sessionId)).callsLeft).toBe(25);
      const unknown = await fetch(`${combined.apiUrl}/v1/nothing`, { headers: { authorization: `Bearer ${combined.secretKey}` } });
      expect(unknown.status).toBe(404);
      expect(combined.checkout.deliveries().map((d) => d.status)).toEqual([200, 200]);
    } finally {
      await combined.stop();
    }
  });
});
