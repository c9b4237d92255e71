// The purchase side of the local Stripe fake: what buying a credits plan needs, so a whole purchase runs on a
// laptop with no Stripe account. The card-rail fake (stripe-fake.ts) hands every request it does not know to
// `handle` below; `startStripeCheckoutFake` serves it alone for tests that need nothing else.
//
// Stripe API (API-key auth, form-encoded, as the official SDK sends it):
//   POST /v1/checkout/sessions, GET /v1/checkout/sessions/:id      create / retrieve a Checkout Session
//   POST /v1/billing_portal/sessions                               a billing portal session (url -> stand-in page)
//   POST /v1/refunds                                               refund a payment -> charge.refunded
//   GET  /v1/subscriptions/:id                                     retrieve a subscription
//   POST /v1/test_helpers/checkout/sessions/:id/pay                pay a session without a browser
//   POST /v1/test_helpers/subscriptions/:id/renew                  start the next period -> invoice.paid
//   POST /v1/test_helpers/subscriptions/:id/cancel                 end it now -> customer.subscription.deleted
// Browser stand-ins (no API key, like Stripe's hosted pages):
//   GET  /checkout/pay/:id    the plan, the amount and a Pay button;  POST pays, delivers the signed webhook
//                             events to the service, then redirects to success_url
//   GET  /portal/:id          the customer's subscriptions with Cancel buttons and a link back
//   POST /portal/:id/cancel   cancels one subscription -> customer.subscription.deleted
//
// Webhooks are signed with the SDK's own `webhooks.generateTestHeaderString` under the webhook secret and
// POSTed to `${APP_URL}/api/billing/webhook` (or `webhookUrl`). For a subscription, invoice.paid is delivered
// BEFORE checkout.session.completed: Stripe does not order events, and this order is the harder one.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { nowSeconds, parseForm, prefixed, type Params } from './form';

const FAKE_API_VERSION = '2026-10-28.endive';

export interface CheckoutFakeOptions {
  /** The API key clients must present (the card-rail fake passes its own). */
  secretKey: string;
  /** Default: STRIPE_WEBHOOK_SECRET from the environment, else a fresh `whsec_local_…`. */
  webhookSecret?: string;
  /** Default: STRIPE_WEBHOOK_URL, else `${APP_URL}/api/billing/webhook` (APP_URL default http://localhost:3000). */
  webhookUrl?: string;
}

interface FakeCheckoutSession {
  id: string;
  object: 'checkout.session';
  mode: 'payment' | 'subscription';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  amount_total: number;
  currency: string;
  customer: string | null;
  customer_creation: string | null;
  payment_intent: string | null;
  subscription: string | null;
  invoice: string | null;
  metadata: Record<string, string>;
  success_url: string;
  cancel_url: string;
  url: string | null;
  created: number;
  livemode: false;
  line_items_summary: { name: string; description: string | null; unit_amount: number; interval: string | null };
}

interface FakeSubscription {
  id: string;
  object: 'subscription';
  customer: string;
  status: 'active' | 'canceled';
  created: number;
  canceled_at: number | null;
  ended_at: number | null;
  cancel_at_period_end: boolean;
  metadata: Record<string, string>;
  items: { object: 'list'; data: Array<{ id: string; object: 'subscription_item'; current_period_start: number; current_period_end: number; price: { unit_amount: number; currency: string; recurring: { interval: string } } }> };
  latest_invoice: string | null;
}

interface FakeCharge {
  id: string;
  object: 'charge';
  amount: number;
  amount_refunded: number;
  refunded: boolean;
  currency: string;
  customer: string;
  payment_intent: string;
  paid: true;
  status: 'succeeded';
  created: number;
}

interface FakeEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  livemode: false;
  pending_webhooks: number;
  request: { id: null; idempotency_key: null };
  type: string;
  data: { object: unknown };
}

interface Delivery {
  eventId: string;
  type: string;
  /** HTTP status the service answered; 0 when it could not be reached. */
  status: number;
}

export interface CheckoutFake {
  /** Serves the request when it is one of ours; false leaves it to the caller (which answers 404). */
  handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<boolean>;
  webhookSecret: string;
  webhookUrl(): string;
  setWebhookUrl(url: string): void;
  sessions(): FakeCheckoutSession[];
  subscriptions(): FakeSubscription[];
  charges(): FakeCharge[];
  events(): FakeEvent[];
  deliveries(): Delivery[];
  /** Sends an already-delivered event again, exactly as before (a Stripe retry). */
  redeliver(eventId: string): Promise<Delivery>;
  pay(sessionId: string): Promise<FakeCheckoutSession>;
  renew(subscriptionId: string): Promise<FakeSubscription>;
  cancel(subscriptionId: string): Promise<FakeSubscription>;
  refund(paymentIntentId: string, amount?: number): Promise<FakeCharge>;
}

class FakeStripeError extends Error {
  constructor(readonly status: number, readonly body: { type: string; code?: string; message: string; param?: string }) {
    super(body.message);
  }
}

export function createCheckoutFake(options: CheckoutFakeOptions): CheckoutFake {
  const webhookSecret = options.webhookSecret ?? process.env.STRIPE_WEBHOOK_SECRET ?? `whsec_local_${randomBytes(16).toString('hex')}`;
  let webhookUrl =
    options.webhookUrl ?? process.env.STRIPE_WEBHOOK_URL ?? `${(process.env.APP_URL ?? 'http://localhost:3000').replace(/\/$/, '')}/api/billing/webhook`;
  const sessions = new Map<string, FakeCheckoutSession>();
  const subscriptions = new Map<string, FakeSubscription>();
  const charges = new Map<string, FakeCharge>();
  const events: FakeEvent[] = [];
  const deliveries: Delivery[] = [];

  const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;

  async function deliver(event: FakeEvent): Promise<Delivery> {
    const payload = JSON.stringify(event);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    let status = 0;
    try {
      const res = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload });
      status = res.status;
      await res.arrayBuffer();
    } catch {
      status = 0;
    }
    const delivery = { eventId: event.id, type: event.type, status };
    deliveries.push(delivery);
    return delivery;
  }

  async function emit(type: string, object: unknown): Promise<void> {
    const event: FakeEvent = {
      id: id('evt'), object: 'event', api_version: FAKE_API_VERSION, created: nowSeconds(), livemode: false, pending_webhooks: 1,
      request: { id: null, idempotency_key: null }, type, data: { object: structuredClone(object) },
    };
    events.push(event);
    await deliver(event);
  }

  function createSession(params: Params, origin: string): FakeCheckoutSession {
    const mode = params.get('mode');
    if (mode !== 'payment' && mode !== 'subscription') throw paramInvalid('mode', 'must be payment or subscription');
    const amount = Number(params.get('line_items[0][price_data][unit_amount]'));
    const currency = params.get('line_items[0][price_data][currency]');
    const name = params.get('line_items[0][price_data][product_data][name]');
    const interval = params.get('line_items[0][price_data][recurring][interval]') ?? null;
    if (!Number.isSafeInteger(amount) || amount <= 0) throw paramInvalid('line_items[0][price_data][unit_amount]', 'must be a positive integer');
    if (!currency) throw paramInvalid('line_items[0][price_data][currency]', 'is required');
    if (!name) throw paramInvalid('line_items[0][price_data][product_data][name]', 'is required');
    if (mode === 'subscription' && !interval) throw paramInvalid('line_items[0][price_data][recurring][interval]', 'is required in subscription mode');
    const successUrl = params.get('success_url');
    const cancelUrl = params.get('cancel_url');
    if (!successUrl || !cancelUrl) throw paramInvalid(successUrl ? 'cancel_url' : 'success_url', 'is required');
    const customer = params.get('customer') ?? null;
    const session: FakeCheckoutSession = {
      id: `cs_test_${randomBytes(24).toString('hex')}`, object: 'checkout.session', mode, status: 'open', payment_status: 'unpaid',
      amount_total: amount, currency, customer, customer_creation: params.get('customer_creation') ?? null,
      payment_intent: null, subscription: null, invoice: null, metadata: prefixed(params, 'metadata'),
      success_url: successUrl, cancel_url: cancelUrl, url: null, created: nowSeconds(), livemode: false,
      line_items_summary: { name, description: params.get('line_items[0][price_data][product_data][description]') ?? null, unit_amount: amount, interval },
    };
    session.url = `${origin}/checkout/pay/${session.id}`;
    sessions.set(session.id, session);
    return session;
  }

  function charge(customer: string, amount: number, currency: string): FakeCharge {
    const c: FakeCharge = {
      id: id('ch'), object: 'charge', amount, amount_refunded: 0, refunded: false, currency, customer, payment_intent: id('pi'),
      paid: true, status: 'succeeded', created: nowSeconds(),
    };
    charges.set(c.id, c);
    return c;
  }

  function invoiceFor(sub: FakeSubscription, reason: 'subscription_create' | 'subscription_cycle', paid: FakeCharge) {
    const item = sub.items.data[0];
    return {
      id: id('in'), object: 'invoice', billing_reason: reason, customer: sub.customer, status: 'paid', amount_paid: paid.amount, currency: paid.currency,
      created: nowSeconds(),
      // Stripe's invoice-level period is the period that just ended; the lines carry the period being paid for.
      period_start: item.current_period_start, period_end: item.current_period_start,
      parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: sub.metadata } },
      lines: {
        object: 'list',
        data: [{
          id: id('il'), object: 'line_item', amount: paid.amount, currency: paid.currency,
          period: { start: item.current_period_start, end: item.current_period_end },
          parent: { type: 'subscription_item_details', subscription_item_details: { subscription: sub.id, subscription_item: item.id } },
        }],
      },
      payments: { object: 'list', data: [{ object: 'invoice_payment', payment: { type: 'payment_intent', payment_intent: paid.payment_intent } }] },
    };
  }

  async function pay(sessionId: string): Promise<FakeCheckoutSession> {
    const session = sessions.get(sessionId);
    if (!session) throw missing('checkout.session', sessionId);
    if (session.status !== 'open') return session;
    const customer = session.customer ?? id('cus');
    session.customer = customer;
    const paid = charge(customer, session.amount_total, session.currency);
    session.status = 'complete';
    session.payment_status = 'paid';
    if (session.mode === 'payment') {
      session.payment_intent = paid.payment_intent;
      await emit('payment_intent.succeeded', { id: paid.payment_intent, object: 'payment_intent', amount: paid.amount, currency: paid.currency, customer, status: 'succeeded' });
      await emit('checkout.session.completed', session);
      return session;
    }
    const start = nowSeconds();
    const sub: FakeSubscription = {
      id: id('sub'), object: 'subscription', customer, status: 'active', created: start, canceled_at: null, ended_at: null, cancel_at_period_end: false,
      metadata: session.metadata,
      items: { object: 'list', data: [{ id: id('si'), object: 'subscription_item', current_period_start: start, current_period_end: addMonth(start), price: { unit_amount: session.amount_total, currency: session.currency, recurring: { interval: session.line_items_summary.interval ?? 'month' } } }] },
      latest_invoice: null,
    };
    subscriptions.set(sub.id, sub);
    const invoice = invoiceFor(sub, 'subscription_create', paid);
    sub.latest_invoice = invoice.id;
    session.subscription = sub.id;
    session.invoice = invoice.id;
    await emit('customer.subscription.created', sub);
    await emit('invoice.paid', invoice);
    await emit('checkout.session.completed', session);
    return session;
  }

  async function renew(subscriptionId: string): Promise<FakeSubscription> {
    const sub = subscriptions.get(subscriptionId);
    if (!sub) throw missing('subscription', subscriptionId);
    if (sub.status !== 'active') throw new FakeStripeError(400, { type: 'invalid_request_error', message: `Subscription ${subscriptionId} is ${sub.status}.` });
    const item = sub.items.data[0];
    item.current_period_start = item.current_period_end;
    item.current_period_end = addMonth(item.current_period_start);
    const paid = charge(sub.customer, item.price.unit_amount, item.price.currency);
    const invoice = invoiceFor(sub, 'subscription_cycle', paid);
    sub.latest_invoice = invoice.id;
    await emit('invoice.paid', invoice);
    return sub;
  }

  async function cancel(subscriptionId: string): Promise<FakeSubscription> {
    const sub = subscriptions.get(subscriptionId);
    if (!sub) throw missing('subscription', subscriptionId);
    if (sub.status === 'canceled') return sub;
    sub.status = 'canceled';
    sub.canceled_at = nowSeconds();
    sub.ended_at = sub.canceled_at;
    await emit('customer.subscription.deleted', sub);
    return sub;
  }

  async function refund(paymentIntentId: string, amount?: number): Promise<FakeCharge> {
    const c = [...charges.values()].find((x) => x.payment_intent === paymentIntentId);
    if (!c) throw missing('payment_intent', paymentIntentId);
    const left = c.amount - c.amount_refunded;
    const value = amount ?? left;
    if (!Number.isSafeInteger(value) || value <= 0 || value > left) throw paramInvalid('amount', `must be between 1 and ${left}`);
    c.amount_refunded += value;
    c.refunded = c.amount_refunded >= c.amount;
    await emit('charge.refunded', c);
    return c;
  }

  function authenticate(header: string | undefined): void {
    let presented: string | undefined;
    if (header?.startsWith('Bearer ')) presented = header.slice(7);
    else if (header?.startsWith('Basic ')) presented = Buffer.from(header.slice(6), 'base64').toString().split(':')[0];
    if (presented !== options.secretKey) throw new FakeStripeError(401, { type: 'invalid_request_error', message: 'Invalid API Key provided.' });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://stripe.local');
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
    try {
      // Browser stand-ins for Stripe's hosted pages. Browsers ask for an icon; an API 401 there would read as a page error.
      if (method === 'GET' && path === '/favicon.ico') {
        res.writeHead(204, { 'Cache-Control': 'max-age=86400' });
        res.end();
        return true;
      }
      let m = /^\/checkout\/pay\/([^/]+)$/.exec(path);
      if (m) {
        const session = sessions.get(m[1]!);
        if (!session) return sendHtml(res, 404, page('Checkout not found', '<p>This checkout session does not exist.</p>')), true;
        if (method === 'POST') {
          await pay(session.id);
          return redirect(res, session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id)), true;
        }
        return sendHtml(res, 200, checkoutPage(session)), true;
      }
      m = /^\/portal\/([^/]+)(\/cancel)?$/.exec(path);
      if (m) {
        const portal = portals.get(m[1]!);
        if (!portal) return sendHtml(res, 404, page('Portal not found', '<p>This portal session does not exist.</p>')), true;
        if (method === 'POST' && m[2]) {
          const subId = new URLSearchParams(raw).get('subscription') ?? '';
          const sub = subscriptions.get(subId);
          if (sub && sub.customer === portal.customer) await cancel(subId);
          return redirect(res, `/portal/${portal.id}`), true;
        }
        return sendHtml(res, 200, portalPage(portal, [...subscriptions.values()].filter((s) => s.customer === portal.customer))), true;
      }

      if (!path.startsWith('/v1/checkout/') && !path.startsWith('/v1/billing_portal/') && path !== '/v1/refunds' &&
          !path.startsWith('/v1/subscriptions/') && !path.startsWith('/v1/test_helpers/checkout/') && !path.startsWith('/v1/test_helpers/subscriptions/')) {
        return false;
      }
      authenticate(req.headers.authorization);
      const params = parseForm(method === 'GET' ? url.search.slice(1) : raw);

      if (method === 'POST' && path === '/v1/checkout/sessions') return sendJson(res, 200, createSession(params, origin)), true;
      m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
      if (method === 'GET' && m) {
        const s = sessions.get(m[1]!);
        if (!s) throw missing('checkout.session', m[1]!);
        return sendJson(res, 200, s), true;
      }
      m = /^\/v1\/test_helpers\/checkout\/sessions\/([^/]+)\/pay$/.exec(path);
      if (method === 'POST' && m) return sendJson(res, 200, await pay(m[1]!)), true;
      if (method === 'POST' && path === '/v1/billing_portal/sessions') {
        const customer = params.get('customer');
        if (!customer) throw paramInvalid('customer', 'is required');
        const portal = { id: `bps_test_${randomBytes(12).toString('hex')}`, object: 'billing_portal.session', customer, return_url: params.get('return_url') ?? null, url: '', created: nowSeconds(), livemode: false };
        portal.url = `${origin}/portal/${portal.id}`;
        portals.set(portal.id, portal);
        return sendJson(res, 200, portal), true;
      }
      if (method === 'POST' && path === '/v1/refunds') {
        const pi = params.get('payment_intent');
        if (!pi) throw paramInvalid('payment_intent', 'is required');
        const amount = params.get('amount');
        const c = await refund(pi, amount === undefined ? undefined : Number(amount));
        return sendJson(res, 200, { id: id('re'), object: 'refund', amount: amount === undefined ? c.amount_refunded : Number(amount), charge: c.id, payment_intent: pi, status: 'succeeded' }), true;
      }
      m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
      if (method === 'GET' && m) {
        const sub = subscriptions.get(m[1]!);
        if (!sub) throw missing('subscription', m[1]!);
        return sendJson(res, 200, sub), true;
      }
      m = /^\/v1\/test_helpers\/subscriptions\/([^/]+)\/(renew|cancel)$/.exec(path);
      if (method === 'POST' && m) return sendJson(res, 200, m[2] === 'renew' ? await renew(m[1]!) : await cancel(m[1]!)), true;
      throw new FakeStripeError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
    } catch (error) {
      if (error instanceof FakeStripeError) return sendJson(res, error.status, { error: error.body }), true;
      throw error;
    }
  }

  const portals = new Map<string, { id: string; customer: string; return_url: string | null; url: string }>();

  return {
    handle,
    webhookSecret,
    webhookUrl: () => webhookUrl,
    setWebhookUrl(next) {
      webhookUrl = next;
    },
    sessions: () => [...sessions.values()],
    subscriptions: () => [...subscriptions.values()],
    charges: () => [...charges.values()],
    events: () => [...events],
    deliveries: () => [...deliveries],
    async redeliver(eventId) {
      const event = events.find((e) => e.id === eventId);
      if (!event) throw new Error(`no event ${eventId}`);
      return deliver(event);
    },
    pay,
    renew,
    cancel,
    refund,
  };
}

export interface StandaloneCheckoutFake extends CheckoutFake {
  apiUrl: string;
  secretKey: string;
  stop(): Promise<void>;
}

/** The purchase fake on its own port (tests that need no card rail). */
export async function startStripeCheckoutFake(options: Partial<CheckoutFakeOptions> & { port?: number } = {}): Promise<StandaloneCheckoutFake> {
  const secretKey = options.secretKey ?? `sk_test_local_${randomBytes(12).toString('hex')}`;
  const fake = createCheckoutFake({ ...options, secretKey });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      fake
        .handle(req, res, Buffer.concat(chunks).toString('utf8'))
        .then((handled) => {
          if (!handled) sendJson(res, 404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${req.url}).` } });
        })
        .catch(() => sendJson(res, 500, { error: { type: 'api_error', message: 'An unknown error occurred in the local fake.' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...fake,
    apiUrl: `http://127.0.0.1:${port}`,
    secretKey,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// --- pages ---------------------------------------------------------------------------------------

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · local Stripe stand-in</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
.card{border:1px solid #ccc;border-radius:8px;padding:1.5rem}button{font:inherit;padding:.6rem 1.2rem;border-radius:6px;border:0;background:#4f3fd6;color:#fff;cursor:pointer}
.note{color:#555;font-size:.875rem}</style></head><body><main>${body}</main></body></html>`;
}

function checkoutPage(s: FakeCheckoutSession): string {
  const amount = `${(s.amount_total / 100).toFixed(2)} ${s.currency.toUpperCase()}${s.mode === 'subscription' ? ' a month' : ''}`;
  if (s.status !== 'open') return page('Already paid', `<h1>Already paid</h1><p><a href="${esc(s.success_url.replace('{CHECKOUT_SESSION_ID}', s.id))}">Back to the shop</a></p>`);
  return page('Checkout', `<div class="card"><h1>${esc(s.line_items_summary.name)}</h1>
<p>${esc(s.line_items_summary.description ?? '')}</p><p><strong>${esc(amount)}</strong></p>
<form method="post"><button type="submit">Pay ${esc(amount)}</button></form>
<p class="note">Local stand-in for Stripe Checkout: no card is charged. <a href="${esc(s.cancel_url)}">Cancel</a></p></div>`);
}

function portalPage(p: { id: string; return_url: string | null }, subs: FakeSubscription[]): string {
  const rows = subs.length
    ? subs.map((s) => `<li>${esc(s.id)}: ${s.status}${s.status === 'active' ? `, renews ${new Date(s.items.data[0].current_period_end * 1000).toISOString().slice(0, 10)}
<form method="post" action="/portal/${esc(p.id)}/cancel"><input type="hidden" name="subscription" value="${esc(s.id)}"><button type="submit">Cancel subscription</button></form>` : ''}</li>`).join('')
    : '<li>No subscriptions.</li>';
  return page('Billing portal', `<h1>Billing portal</h1><ul>${rows}</ul>${p.return_url ? `<p><a href="${esc(p.return_url)}">Return to the shop</a></p>` : ''}
<p class="note">Local stand-in for the Stripe billing portal.</p>`);
}

// --- helpers -------------------------------------------------------------------------------------

function addMonth(seconds: number): number {
  const d = new Date(seconds * 1000);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return Math.floor(d.getTime() / 1000);
}

function missing(kind: string, objectId: string): FakeStripeError {
  return new FakeStripeError(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${kind}: '${objectId}'` });
}

function paramInvalid(param: string, why: string): FakeStripeError {
  return new FakeStripeError(400, { type: 'invalid_request_error', code: 'parameter_invalid', param, message: `Invalid ${param}: ${why}.` });
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Request-Id': `req_${randomBytes(8).toString('hex')}` });
  res.end(text);
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(html), 'Cache-Control': 'no-store' });
  res.end(html);
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { Location: location, 'Content-Length': 0 });
  res.end();
}
