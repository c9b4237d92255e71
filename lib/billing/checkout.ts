import type Stripe from 'stripe';
import type { Store } from '@/lib/store';
import { findPlan, type Plan } from '@/lib/credits/plans';
import { PURCHASABLE_PLAN_IDS, type PlanId } from '@/lib/price';
import { ProblemError } from '@/lib/problems';
import { billingStripe, stripeUnavailable, type BillingConfig } from './stripe';
import { FACT_TTL_MS, names, readJson, writeJson, type CheckoutRecord } from './records';

export interface BillingDeps {
  store: Store;
  config: BillingConfig;
  /** Injected by tests; defaults to the configured client. */
  stripe?: Stripe;
  now?: number;
}

export interface CheckoutResult {
  sessionId: string;
  url: string;
}

function requirePlan(planId: unknown): Plan {
  const plan = typeof planId === 'string' ? findPlan(planId) : undefined;
  if (!plan) {
    const message = `must be one of ${PURCHASABLE_PLAN_IDS.join(', ')}`;
    throw new ProblemError('invalid-request', `$.plan ${message}.`, { errors: [{ path: '$.plan', message }] });
  }
  return plan;
}

/**
 * Creates a Stripe Checkout Session for a plan. The price is sent inline (price_data), so no product
 * or price has to exist in the Stripe dashboard. For a top-up the key was authenticated by the route (or is
 * the signed-in session's) and only its hash is kept, in our store, against the session id: Stripe and every URL see neither.
 */
export async function createCheckout(deps: BillingDeps, planId: PlanId | string, options: { topUp?: { keyHash: string; mask: string } } = {}): Promise<CheckoutResult> {
  const plan = requirePlan(planId);
  const now = deps.now ?? Date.now();
  const topUpKeyHash = options.topUp?.keyHash ?? null;
  const stripe = deps.stripe ?? billingStripe(deps.config);
  const mode = plan.billing === 'monthly' ? 'subscription' : 'payment';
  const appUrl = deps.config.APP_URL.replace(/\/$/, '');

  // A returning buyer's purchases stay under one Stripe customer, so one billing portal shows them all.
  const customer = topUpKeyHash ? await deps.store.getRecord(names.customer(topUpKeyHash), now) : null;

  const params: Stripe.Checkout.SessionCreateParams = {
    mode,
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: plan.currency,
          unit_amount: plan.priceCents,
          product_data: { name: `Paid Agent Checks: ${plan.name}`, description: plan.description },
          ...(mode === 'subscription' ? { recurring: { interval: 'month' as const } } : {}),
        },
      },
    ],
    success_url: `${appUrl}/purchase/success?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${appUrl}/pricing`,
    metadata: { plan: plan.id, purpose: topUpKeyHash ? 'top-up' : 'new-key' },
    ...(mode === 'subscription' ? { subscription_data: { metadata: { plan: plan.id } } } : {}),
    ...(customer ? { customer } : mode === 'payment' ? { customer_creation: 'always' as const } : {}),
  };

  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create(params);
  } catch (error) {
    throw stripeUnavailable(error);
  }
  if (!session.url) throw stripeUnavailable(new Error('checkout session without url'));

  const record: CheckoutRecord = {
    sessionId: session.id, plan: plan.id, mode, topUpKeyHash, topUpKeyMask: options.topUp?.mask ?? null, createdAt: now,
  };
  // Written before the buyer is redirected, so it always exists before the payment (and its webhook) can.
  await writeJson(deps.store, names.checkout(session.id), record, now, FACT_TTL_MS);
  return { sessionId: session.id, url: session.url };
}

export async function readCheckout(store: Store, sessionId: string, now: number): Promise<CheckoutRecord | null> {
  return readJson<CheckoutRecord>(store, names.checkout(sessionId), now);
}
