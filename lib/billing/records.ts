import type { Store } from '@/lib/store';
import type { PlanId } from '@/lib/price';

// Every billing fact lives in a named record of the store. Each record has ONE writer (one event
// type, or checkout creation), so no record needs a read-modify-write that two webhook deliveries
// could interleave; the grant itself is then recomputed from the facts (see webhook.ts).

const DAY_MS = 24 * 60 * 60 * 1000;
/** Billing facts outlive any refund or dispute window; what a live subscription or key needs is kept with no expiry. */
export const FACT_TTL_MS = 400 * DAY_MS;
/** How long a paid-for key waits, in plaintext, for the success page to show it. */
export const REVEAL_TTL_MS = 60 * 60 * 1000;
/**
 * A new key is written (in the reveal record) before it is created, so a fulfilment that failed midway
 * finishes with the same key when Stripe retries; Stripe retries for up to 3 days, this outlives them.
 */
export const UNFULFILLED_KEY_TTL_MS = 7 * DAY_MS;

export interface CheckoutRecord {
  sessionId: string;
  plan: PlanId;
  mode: 'payment' | 'subscription';
  /** Hash of the key a top-up adds to; null mints a new key. The key itself never reaches Stripe. */
  topUpKeyHash: string | null;
  /** How the success page names the topped-up key: `pac_live_…` and its last 4 characters. */
  topUpKeyMask: string | null;
  createdAt: number;
}

export interface FulfilmentRecord {
  sessionId: string;
  plan: PlanId;
  keyHash: string;
  grantId: string;
  kind: 'new-key' | 'top-up';
  fulfilledAt: number;
}

/** Written by checkout.session.completed for a subscription: which grant the subscription feeds. */
export interface SubscriptionOwner {
  subscriptionId: string;
  keyHash: string;
  grantId: string;
  /** Period end assumed at fulfilment, before any invoice.paid told us the real one. */
  initialPeriodEnd: number;
}

/** Written by invoice.paid: the latest paid period of a subscription. */
export interface SubscriptionPeriod {
  periodEnd: number;
  invoiceId: string;
}

/** Written by customer.subscription.deleted. */
export interface SubscriptionEnded {
  endedAt: number;
  /** End of the period the customer had paid for when it ended (null when the event did not say). */
  paidUntil: number | null;
}

/** Which grant a payment (PaymentIntent) bought: lets charge.refunded find the calls to remove. */
export interface PaymentRecord {
  paymentIntentId: string;
  keyHash: string | null;
  grantId: string | null;
  /** For subscription invoices: the period it paid; a refund only touches that period's calls. */
  subscriptionId: string | null;
  periodEnd: number | null;
}

/** Written by charge.refunded (amounts are cumulative on the charge, so the latest event wins). */
export interface RefundFact {
  amount: number;
  amountRefunded: number;
  fullyRefunded: boolean;
}

export const names = {
  eventLease: (id: string) => `stripe-event-lease:${id}`,
  eventDone: (id: string) => `stripe-event-done:${id}`,
  checkout: (sessionId: string) => `checkout:${sessionId}`,
  fulfilment: (sessionId: string) => `fulfilment:${sessionId}`,
  fulfilmentClaim: (sessionId: string) => `fulfilling:${sessionId}`,
  reveal: (sessionId: string) => `reveal:${sessionId}`,
  customer: (keyHash: string) => `customer:${keyHash}`,
  /** Written by a key rotation: the key that took this (revoked) key's grants. */
  keySuccessor: (keyHash: string) => `key-successor:${keyHash}`,
  /** Written by a key rotation: the key this one replaced (its spent calls stay filed under it). */
  keyPredecessor: (keyHash: string) => `key-predecessor:${keyHash}`,
  keySubscriptions: (keyHash: string) => `key-subscriptions:${keyHash}`,
  subOwner: (subId: string) => `sub-owner:${subId}`,
  subPeriod: (subId: string) => `sub-period:${subId}`,
  subEnded: (subId: string) => `sub-ended:${subId}`,
  subApplied: (subId: string) => `sub-applied:${subId}`,
  sessionPayment: (sessionId: string) => `session-payment:${sessionId}`,
  payment: (paymentIntentId: string) => `payment:${paymentIntentId}`,
  refund: (paymentIntentId: string) => `refund:${paymentIntentId}`,
  refundApplied: (paymentIntentId: string) => `refund-applied:${paymentIntentId}`,
};

export async function readJson<T>(store: Store, name: string, now: number): Promise<T | null> {
  const raw = await store.getRecord(name, now);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

export async function writeJson(store: Store, name: string, value: unknown, now: number, ttlMs: number | null = FACT_TTL_MS): Promise<void> {
  await store.setRecord(name, JSON.stringify(value), now, ttlMs);
}
