import crypto from 'node:crypto';
import Stripe from 'stripe';
import type { Store } from '@/lib/store';
import { addGrantOnce, grantFor } from '@/lib/credits/ledger';
import { hashKey, mintKey } from '@/lib/credits/keys';
import { findPlan } from '@/lib/credits/plans';
import type { PlanId } from '@/lib/price';
import { ProblemError } from '@/lib/problems';
import { readCheckout } from './checkout';
import { currentKeyHash } from './rotate';
import {
  FACT_TTL_MS, REVEAL_TTL_MS, UNFULFILLED_KEY_TTL_MS, names, readJson, writeJson,
  type FulfilmentRecord, type PaymentRecord, type RefundFact, type SubscriptionEnded, type SubscriptionOwner, type SubscriptionPeriod,
} from './records';

// Stripe webhook events -> credit grants.
//
// Rules (also in the README and /docs):
// - Each event id is processed once: a delivery leases it (claimOnce, released on failure, lapsing after a
//   crash) and marks it done when finished. A delivery while another holds it answers 409, so Stripe
//   delivers it again; one that failed or crashed is redone by Stripe's retry instead of taken for a replay.
// - Events may arrive in any order. Each event only RECORDS a fact (a fulfilled checkout, a paid
//   period, an ended subscription, a refund) in a record that event type alone writes; the grant is then
//   recomputed from all the facts known so far with absolute values ("used = 0", "expiresAt = X"), never
//   increments. So the result depends on which facts arrived, not on their order, and applying the same
//   fact twice changes nothing.
// - checkout.session.completed (payment_status paid) is the only event that creates a key or a grant.
//   An invoice.paid seen before it is kept and applied when the checkout's grant exists.
// - One session is fulfilled once: a claim on the session lets one delivery through at a time (another
//   answers 409 and is retried by Stripe), and the grant's id derives from the session, so a fulfilment
//   redone after a failure midway cannot grant twice.
// - invoice.paid resets a subscription grant to the plan's calls (reset, not accumulate) when it pays a
//   later period than the one applied, and moves the expiry to that period's end plus RENEWAL_GRACE_MS.
// - customer.subscription.deleted: the calls of the period already paid for stay usable until that
//   period ends; nothing renews after it, and a later invoice.paid cannot revive it.
// - charge.refunded removes, from the grant that payment bought, ceil(calls x refunded / amount) calls
//   (all that remain on a full refund), at most what is left. A subscription refund only touches the
//   period that invoice paid for.

/** Stripe collects a renewal shortly after the period ends; the grant outlives the period by this much so the buyer is not locked out meanwhile. */
export const RENEWAL_GRACE_MS = 24 * 60 * 60 * 1000;
/**
 * How long a delivery holds its event id, and a fulfilment its Checkout Session. Processing is a few store
 * writes; a holder that crashed without releasing blocks them this long, then Stripe's next retry takes over.
 */
export const WEBHOOK_LEASE_MS = 60 * 1000;
/** Two reports of one period's end differ by seconds; a new monthly period ends weeks later. */
const SAME_PERIOD_SLACK_MS = 24 * 60 * 60 * 1000;

export const HANDLED_EVENT_TYPES = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.paid',
  'customer.subscription.deleted',
  'charge.refunded',
] as const;

export interface WebhookEvent {
  id: string;
  type: string;
  data: { object: unknown };
}

export interface WebhookDeps {
  store: Store;
  config: { CREDITS_KEY_SECRET: string };
  now?: number;
  log?: (event: Record<string, unknown>) => void;
}

export type WebhookOutcome = { eventId: string; type: string; result: 'processed' | 'duplicate' | 'ignored'; detail: string };

/** Verifies the Stripe-Signature header over the exact raw body; 400 problem when it does not match. */
export function verifyWebhook(rawBody: string, signature: string | null, secret: string | undefined): WebhookEvent {
  if (!secret) throw new ProblemError('billing-unavailable', 'Webhooks are not configured on this server (STRIPE_WEBHOOK_SECRET is not set).');
  if (!signature) throw new ProblemError('invalid-signature', 'The Stripe-Signature header is missing.', { errors: [{ path: 'Stripe-Signature', message: 'is required' }] });
  let event: Stripe.Event;
  try {
    // Verification is local (HMAC over the raw bytes, 5-minute tolerance): no API key, no network.
    event = Stripe.webhooks.constructEvent(rawBody, signature, secret);
  } catch {
    throw new ProblemError('invalid-signature', 'The Stripe-Signature header does not match this body.', { errors: [{ path: 'Stripe-Signature', message: 'does not verify' }] });
  }
  // A signed body need not be an object (`null`, `1`, `[]` verify too); reading fields of `null` would throw
  // and turn a client error into a 503 that Stripe retries for days.
  const e = event as unknown as Record<string, unknown> | null;
  if (typeof e !== 'object' || e === null || Array.isArray(e) || typeof e.id !== 'string' || typeof e.type !== 'string' || typeof e.data !== 'object' || e.data === null) {
    throw new ProblemError('invalid-request', 'The event is not a Stripe event object.');
  }
  return event as unknown as WebhookEvent;
}

export async function handleWebhookEvent(deps: WebhookDeps, event: WebhookEvent): Promise<WebhookOutcome> {
  const now = deps.now ?? Date.now();
  const outcome = (result: WebhookOutcome['result'], detail: string): WebhookOutcome => ({ eventId: event.id, type: event.type, result, detail });
  if (!(HANDLED_EVENT_TYPES as readonly string[]).includes(event.type)) return outcome('ignored', 'event type not used');

  // A delivery leases the event id while it processes it, and marks it done once it finished: a replay of a
  // done event is a duplicate, a delivery meanwhile is refused with a non-2xx (so Stripe delivers it again
  // rather than take it for handled), and one that failed or crashed is redone by Stripe's retry, safely
  // since applying a fact twice changes nothing. The lease is taken before "done?" is read: one atomic step.
  const lease = names.eventLease(event.id);
  const leased = await deps.store.claimOnce(lease, now, WEBHOOK_LEASE_MS);
  if ((await deps.store.getRecord(names.eventDone(event.id), now)) !== null) return outcome('duplicate', 'event already processed');
  if (!leased) throw inProgress('Another delivery of this event is being processed; retry later.');
  try {
    const handled = await dispatch(deps, event, now);
    await deps.store.setRecord(names.eventDone(event.id), '1', now, FACT_TTL_MS);
    return handled instanceof Ignored ? outcome('ignored', handled.detail) : outcome('processed', handled);
  } catch (error) {
    // Released so Stripe's retry, which this failure's non-2xx answer asks for, may redo it at once. A
    // crash that never gets here leaves the lease to lapse.
    await deps.store.releaseClaim(lease).catch(() => undefined);
    throw error;
  }
}

/** 409: Stripe delivers the event again later, by when the delivery in progress has finished or lapsed. */
function inProgress(detail: string): ProblemError {
  return new ProblemError('webhook-in-progress', detail, {}, WEBHOOK_LEASE_MS / 1000);
}

/** An event that changes nothing (not paid yet, for no plan of ours, already applied elsewhere), and why. */
class Ignored {
  constructor(readonly why: string) {}
  get detail(): string {
    return `ignored: ${this.why}`;
  }
}
const ignored = (why: string) => new Ignored(why);
/** What handling an event did: its detail when it changed something, or why it changed nothing. */
type Handled = string | Ignored;

async function dispatch(deps: WebhookDeps, event: WebhookEvent, now: number): Promise<Handled> {
  const object = asRecord(event.data.object);
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return onCheckoutCompleted(deps, object, now);
    case 'invoice.paid':
      return onInvoicePaid(deps, object, now);
    case 'customer.subscription.deleted':
      return onSubscriptionDeleted(deps, object, now);
    case 'charge.refunded':
      return onChargeRefunded(deps, object, now);
    default:
      return ignored('event type not used');
  }
}

async function onCheckoutCompleted(deps: WebhookDeps, session: Obj, now: number): Promise<Handled> {
  const { store } = deps;
  const sessionId = str(session, 'id');
  if (!sessionId) return ignored('session without id');
  const paymentStatus = str(session, 'payment_status');
  // Delayed payment methods complete unpaid; checkout.session.async_payment_succeeded brings the money.
  if (paymentStatus !== 'paid' && paymentStatus !== 'no_payment_required') return ignored('session not paid yet');

  // Two events (completed, async_payment_succeeded) or two deliveries may fulfil one session at the same
  // moment: the claim lets one through, and it is taken before the fulfilment record is looked at, so
  // "not fulfilled yet" and "mine to fulfil" are one atomic step.
  const claim = names.fulfilmentClaim(sessionId);
  const claimed = await store.claimOnce(claim, now, WEBHOOK_LEASE_MS);
  if (await readJson<FulfilmentRecord>(store, names.fulfilment(sessionId), now)) return ignored('session already fulfilled');
  if (!claimed) {
    // Not a 2xx: if the holder then fails, this delivery's retry is what finishes the purchase.
    throw inProgress('Another delivery is fulfilling this Checkout Session; retry later.');
  }
  try {
    return await fulfilCheckout(deps, session, sessionId, now);
  } catch (error) {
    // Every step below is safe to redo, so Stripe's retry (asked for by this failure's non-2xx answer)
    // may start at once. A crash that never gets here leaves the claim to lapse after its lease.
    await store.releaseClaim(claim).catch(() => undefined);
    throw error;
  }
}

/**
 * Grants a paid session's plan. Each step can be redone after a failure at any point and still ends with
 * one grant: the grant's id derives from the session (`addGrantOnce`), and a new key is chosen, and kept
 * in the reveal record, before it is created.
 */
async function fulfilCheckout(deps: WebhookDeps, session: Obj, sessionId: string, now: number): Promise<Handled> {
  const { store } = deps;
  const checkout = await readCheckout(store, sessionId, now);
  const planId = (checkout?.plan ?? findPlan(str(asRecord(session.metadata), 'plan') ?? '')?.id) as PlanId | undefined;
  if (!planId) {
    deps.log?.({ event: 'billing-unknown-plan', session: sessionId });
    return ignored('session for no plan of ours');
  }

  const sourceRef = `checkout:${sessionId}`;
  const grantId = checkoutGrantId(sessionId);
  let keyHash: string | null = null;
  if (checkout?.topUpKeyHash) {
    const key = await store.getKey(checkout.topUpKeyHash);
    // A key revoked between checkout and payment gets a fresh key rather than calls nobody can spend;
    // unless an earlier attempt already granted to it before the revocation (a retry must not grant twice).
    if (key && (key.revokedAt === null || (await store.listGrants(key.keyHash, now)).some((g) => g.id === grantId))) keyHash = key.keyHash;
  }
  const kind: FulfilmentRecord['kind'] = keyHash ? 'top-up' : 'new-key';
  let newKey: string | null = null;
  if (!keyHash) {
    // The only place the plaintext key is written: taken (read and deleted) by the success page's first
    // poll once the fulfilment record exists. Written first so a retry finishes with this same key.
    newKey = await store.getRecord(names.reveal(sessionId), now);
    if (newKey === null) {
      newKey = mintKey();
      await store.setRecord(names.reveal(sessionId), newKey, now, UNFULFILLED_KEY_TTL_MS);
    }
    keyHash = hashKey(newKey, deps.config.CREDITS_KEY_SECRET);
    if (!(await store.getKey(keyHash))) await store.putKey({ keyHash, createdAt: now, revokedAt: null, label: `checkout ${planId}` });
  }
  const grant = await addGrantOnce(store, { ...grantFor(keyHash, planId, now, sourceRef), id: grantId }, now);
  const initialPeriodEnd = grant.expiresAt;

  const customer = str(session, 'customer');
  // Kept for as long as the key lives (null TTL): the billing portal and a years-long subscription need them.
  if (customer) await store.setRecord(names.customer(keyHash), customer, now, null);

  const paymentIntent = str(session, 'payment_intent');
  if (paymentIntent) {
    const payment: PaymentRecord = { paymentIntentId: paymentIntent, keyHash, grantId, subscriptionId: null, periodEnd: null };
    await writeJson(store, names.payment(paymentIntent), payment, now);
  }

  const subscriptionId = str(session, 'subscription');
  if (subscriptionId) {
    const owner: SubscriptionOwner = { subscriptionId, keyHash, grantId, initialPeriodEnd };
    await writeJson(store, names.subOwner(subscriptionId), owner, now, null);
    const list = (await readJson<string[]>(store, names.keySubscriptions(keyHash), now)) ?? [];
    if (!list.includes(subscriptionId)) await writeJson(store, names.keySubscriptions(keyHash), [...list, subscriptionId], now, null);
  }

  // The key waits REVEAL_TTL_MS from now, when it becomes revealable.
  if (newKey !== null) await store.setRecord(names.reveal(sessionId), newKey, now, REVEAL_TTL_MS);
  const fulfilment: FulfilmentRecord = { sessionId, plan: planId, keyHash, grantId, kind, fulfilledAt: now };
  await writeJson(store, names.fulfilment(sessionId), fulfilment, now);

  // Facts that arrived before this checkout (a renewal, a cancellation, a refund) apply now.
  if (subscriptionId) await reconcileSubscription(deps, subscriptionId, now);
  if (paymentIntent) await reconcileRefund(deps, paymentIntent, now);
  return `fulfilled ${planId} (${kind})`;
}

async function onInvoicePaid(deps: WebhookDeps, invoice: Obj, now: number): Promise<Handled> {
  const { store } = deps;
  const subscriptionId = invoiceSubscription(invoice);
  if (!subscriptionId) return ignored('not a subscription invoice');
  const invoiceId = str(invoice, 'id') ?? 'unknown';
  const periodEnd = invoicePeriodEnd(invoice);
  if (periodEnd === null) return ignored('invoice without a period');

  const known = await readJson<SubscriptionPeriod>(store, names.subPeriod(subscriptionId), now);
  if (!known || periodEnd > known.periodEnd) {
    await writeJson(store, names.subPeriod(subscriptionId), { periodEnd, invoiceId } satisfies SubscriptionPeriod, now);
  }
  const paymentIntent = invoicePaymentIntent(invoice);
  if (paymentIntent) {
    const payment: PaymentRecord = { paymentIntentId: paymentIntent, keyHash: null, grantId: null, subscriptionId, periodEnd };
    await writeJson(store, names.payment(paymentIntent), payment, now);
  }
  const applied = await reconcileSubscription(deps, subscriptionId, now);
  if (paymentIntent) await reconcileRefund(deps, paymentIntent, now);
  return applied;
}

async function onSubscriptionDeleted(deps: WebhookDeps, subscription: Obj, now: number): Promise<Handled> {
  const subscriptionId = str(subscription, 'id');
  if (!subscriptionId) return ignored('subscription without id');
  const endedAtSeconds = num(subscription, 'ended_at') ?? num(subscription, 'canceled_at');
  const items = asRecord(subscription.items);
  const firstItem = asRecord(Array.isArray(items.data) ? items.data[0] : undefined);
  const paidUntilSeconds = num(subscription, 'current_period_end') ?? num(firstItem, 'current_period_end');
  const ended: SubscriptionEnded = {
    endedAt: endedAtSeconds !== null ? endedAtSeconds * 1000 : now,
    paidUntil: paidUntilSeconds !== null ? paidUntilSeconds * 1000 : null,
  };
  await writeJson(deps.store, names.subEnded(subscriptionId), ended, now);
  await reconcileSubscription(deps, subscriptionId, now);
  return 'subscription ended';
}

async function onChargeRefunded(deps: WebhookDeps, charge: Obj, now: number): Promise<Handled> {
  const paymentIntent = str(charge, 'payment_intent');
  const amount = num(charge, 'amount');
  const amountRefunded = num(charge, 'amount_refunded');
  if (!paymentIntent || amount === null || amountRefunded === null || amount <= 0) return ignored('charge without payment intent or amounts');
  // amount_refunded is cumulative, so the largest one seen is the truth whatever order events come in.
  const known = await readJson<RefundFact>(deps.store, names.refund(paymentIntent), now);
  if (!known || amountRefunded > known.amountRefunded || (charge.refunded === true && !known.fullyRefunded)) {
    const fact: RefundFact = { amount, amountRefunded: Math.max(amountRefunded, known?.amountRefunded ?? 0), fullyRefunded: charge.refunded === true || known?.fullyRefunded === true };
    await writeJson(deps.store, names.refund(paymentIntent), fact, now);
  }
  return reconcileRefund(deps, paymentIntent, now);
}

/** Brings a subscription's grant in line with every fact known about it. Safe to run any number of times. */
async function reconcileSubscription(deps: WebhookDeps, subscriptionId: string, now: number): Promise<Handled> {
  const { store } = deps;
  const owner = await readJson<SubscriptionOwner>(store, names.subOwner(subscriptionId), now);
  if (!owner) return 'recorded: waiting for the checkout of this subscription';
  const period = await readJson<SubscriptionPeriod>(store, names.subPeriod(subscriptionId), now);
  const ended = await readJson<SubscriptionEnded>(store, names.subEnded(subscriptionId), now);

  let periodEnd = Math.max(owner.initialPeriodEnd, period?.periodEnd ?? 0);
  if (ended) periodEnd = Math.min(periodEnd, ended.paidUntil ?? ended.endedAt);
  const expiresAt = ended ? periodEnd : periodEnd + RENEWAL_GRACE_MS;
  const calls = findPlan('subscription')!.calls;

  // One atomic store step decides "new period?" and resets `used`: a spend committed meanwhile, or a
  // second reconciliation of the same period, is never wiped by a reset computed from an older read.
  const applied = await store.renewGrant(
    owner.grantId,
    { appliedRecord: names.subApplied(subscriptionId), appliedFallback: owner.initialPeriodEnd, periodEnd, samePeriodSlackMs: SAME_PERIOD_SLACK_MS, calls, expiresAt },
    now,
    FACT_TTL_MS,
  );
  const newPeriod = applied === 'renewed';
  if (ended) return 'subscription ended: calls last until the paid period ends';
  return newPeriod ? 'renewed: allowance reset' : 'period recorded';
}

/** Removes the refunded share of a purchase's calls, once per refunded amount. Safe to run any number of times. */
async function reconcileRefund(deps: WebhookDeps, paymentIntentId: string, now: number): Promise<Handled> {
  const { store } = deps;
  const fact = await readJson<RefundFact>(store, names.refund(paymentIntentId), now);
  if (!fact) return 'no refund';
  const payment = await readJson<PaymentRecord>(store, names.payment(paymentIntentId), now);
  if (!payment) return 'recorded: waiting for the purchase this refund belongs to';

  let keyHash = payment.keyHash;
  let grantId = payment.grantId;
  if (payment.subscriptionId) {
    const owner = await readJson<SubscriptionOwner>(store, names.subOwner(payment.subscriptionId), now);
    if (!owner) return 'recorded: waiting for the checkout of this subscription';
    keyHash = owner.keyHash;
    grantId = owner.grantId;
    const currentEnd = (await readJson<number>(store, names.subApplied(payment.subscriptionId), now)) ?? owner.initialPeriodEnd;
    if (payment.periodEnd !== null && Math.abs(payment.periodEnd - currentEnd) > SAME_PERIOD_SLACK_MS) {
      return 'refund of a period that is no longer current: no calls to remove';
    }
  }
  if (!keyHash || !grantId) return ignored('refund for no grant');
  // A rotated key handed its grants on: the refund follows them (lib/billing/rotate.ts).
  keyHash = await currentKeyHash(store, keyHash, now);
  const grant = (await store.listGrants(keyHash, now)).find((g) => g.id === grantId);
  if (!grant) return ignored('the grant no longer exists');

  const target = fact.fullyRefunded ? grant.calls : Math.min(grant.calls, Math.ceil((grant.calls * fact.amountRefunded) / fact.amount));
  // One atomic store step: `used` grows from its current value (a call committed meanwhile stays spent),
  // and only the part of `target` no earlier delivery removed is removed.
  const remove = await store.removeGrantCalls(grant.id, { appliedRecord: names.refundApplied(paymentIntentId), target }, now, FACT_TTL_MS);
  if (remove === null) return ignored('the grant no longer exists');
  if (remove <= 0) return 'refund already applied';
  return `refund: removed up to ${remove} calls`;
}

/** One grant id per checkout session, whichever event or delivery fulfils it. */
function checkoutGrantId(sessionId: string): string {
  return 'gr_co_' + crypto.createHash('sha256').update(sessionId).digest('base64url').slice(0, 22);
}

// --- tolerant readers: Stripe moved some fields between API versions; we read both places. ---

type Obj = Record<string, unknown>;

function asRecord(value: unknown): Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Obj) : {};
}

function str(obj: Obj, key: string): string | null {
  const v = obj[key];
  if (typeof v === 'string' && v !== '') return v;
  // An expanded object in place of an id.
  if (typeof v === 'object' && v !== null && typeof (v as Obj).id === 'string') return (v as Obj).id as string;
  return null;
}

function num(obj: Obj, key: string): number | null {
  const v = obj[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function invoiceLines(invoice: Obj): Obj[] {
  const lines = asRecord(invoice.lines);
  return Array.isArray(lines.data) ? lines.data.map(asRecord) : [];
}

function invoiceSubscription(invoice: Obj): string | null {
  const legacy = str(invoice, 'subscription');
  if (legacy) return legacy;
  const details = asRecord(asRecord(invoice.parent).subscription_details);
  const current = str(details, 'subscription');
  if (current) return current;
  for (const line of invoiceLines(invoice)) {
    const fromLine = str(line, 'subscription') ?? str(asRecord(asRecord(line.parent).subscription_item_details), 'subscription');
    if (fromLine) return fromLine;
  }
  return null;
}

/** The end of the period an invoice pays: its subscription lines' period (invoice.period_end is the previous period's). */
function invoicePeriodEnd(invoice: Obj): number | null {
  const ends = invoiceLines(invoice)
    .map((line) => num(asRecord(line.period), 'end'))
    .filter((n): n is number => n !== null);
  return ends.length ? Math.max(...ends) * 1000 : null;
}

function invoicePaymentIntent(invoice: Obj): string | null {
  const legacy = str(invoice, 'payment_intent');
  if (legacy) return legacy;
  const payments = asRecord(invoice.payments);
  for (const p of Array.isArray(payments.data) ? payments.data.map(asRecord) : []) {
    const pi = str(asRecord(p.payment), 'payment_intent');
    if (pi) return pi;
  }
  return null;
}
