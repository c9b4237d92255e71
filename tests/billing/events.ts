import crypto from 'node:crypto';
import Stripe from 'stripe';

// Hand-built Stripe events in the shapes of the API version our SDK pins (2026-10-28): tests choose the
// order, the replays and the faults. The local fake builds the same shapes for the browser tests.

export const WEBHOOK_SECRET = 'whsec_test_' + 'a'.repeat(32);
const rid = (prefix: string) => `${prefix}_test_${crypto.randomBytes(8).toString('hex')}`;
export const nowS = () => Math.floor(Date.now() / 1000);
export const addMonths = (seconds: number, n: number) => {
  const d = new Date(seconds * 1000);
  d.setUTCMonth(d.getUTCMonth() + n);
  return Math.floor(d.getTime() / 1000);
};

export function event(type: string, object: Record<string, unknown>, id = rid('evt')) {
  return { id, object: 'event', api_version: '2026-10-28.endive', created: nowS(), livemode: false, type, data: { object } };
}

export function sign(payload: string, secret = WEBHOOK_SECRET, timestamp?: number): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });
}

export function sessionCompleted(sessionId: string, opts: { plan?: string; mode?: 'payment' | 'subscription'; paymentIntent?: string; subscription?: string; customer?: string; paid?: boolean } = {}) {
  const mode = opts.mode ?? (opts.subscription ? 'subscription' : 'payment');
  return event('checkout.session.completed', {
    id: sessionId, object: 'checkout.session', mode, status: 'complete', payment_status: opts.paid === false ? 'unpaid' : 'paid',
    customer: opts.customer ?? 'cus_test_1', payment_intent: mode === 'payment' ? (opts.paymentIntent ?? rid('pi')) : null,
    subscription: opts.subscription ?? null, metadata: opts.plan ? { plan: opts.plan } : {}, amount_total: 2000, currency: 'usd',
  });
}

export function invoicePaid(subscription: string, periodStart: number, periodEnd: number, opts: { paymentIntent?: string; reason?: string } = {}) {
  return event('invoice.paid', {
    id: rid('in'), object: 'invoice', billing_reason: opts.reason ?? 'subscription_cycle', status: 'paid', customer: 'cus_test_1',
    period_start: periodStart, period_end: periodStart,
    parent: { type: 'subscription_details', subscription_details: { subscription } },
    lines: { object: 'list', data: [{ id: rid('il'), object: 'line_item', period: { start: periodStart, end: periodEnd } }] },
    payments: { object: 'list', data: [{ object: 'invoice_payment', payment: { type: 'payment_intent', payment_intent: opts.paymentIntent ?? rid('pi') } }] },
  });
}

export function subscriptionDeleted(subscription: string, periodEnd: number, endedAt = nowS()) {
  return event('customer.subscription.deleted', {
    id: subscription, object: 'subscription', status: 'canceled', canceled_at: endedAt, ended_at: endedAt,
    items: { object: 'list', data: [{ id: rid('si'), object: 'subscription_item', current_period_start: addMonths(periodEnd, -1), current_period_end: periodEnd }] },
  });
}

export function chargeRefunded(paymentIntent: string, amount: number, amountRefunded: number) {
  return event('charge.refunded', {
    id: rid('ch'), object: 'charge', payment_intent: paymentIntent, amount, amount_refunded: amountRefunded, refunded: amountRefunded >= amount, currency: 'usd',
  });
}

/** Loose shapes of our billing responses, for assertions. */
export interface AccountBody {
  type?: string;
  key: string;
  callsLeft: number;
  grants: Array<{ id: string; plan: string; calls: number; used: number; callsLeft: number; expiresAt: string }>;
  subscriptions: Array<{ id: string; status: string; currentPeriodEnd: string; endedAt: string | null }>;
  billingPortal: boolean;
}
export interface PollBody {
  type?: string;
  status: string;
  kind?: string;
  key: string;
  callsLeft?: number;
  revealed?: boolean;
}
