import type Stripe from 'stripe';
import { z } from 'zod';
import type { Store } from '@/lib/store';
import { Balance, balance } from '@/lib/credits/ledger';
import { PLAN_IDS } from '@/lib/price';
import { ProblemError } from '@/lib/problems';
import { readCheckout, type BillingDeps } from './checkout';
import { billingStripe, stripeUnavailable } from './stripe';
import { RENEWAL_GRACE_MS } from './webhook';
import { names, readJson, type FulfilmentRecord, type SubscriptionEnded, type SubscriptionOwner, type SubscriptionPeriod } from './records';

const SESSION_ID = /^cs_[A-Za-z0-9_]{8,200}$/;

const plan = z.enum(PLAN_IDS);
const fulfilled = { status: z.literal('fulfilled'), plan };

/** The 200 body of GET /api/billing/session. */
export const SessionStatus = z.union([
  z.strictObject({ status: z.literal('pending'), plan }),
  z.strictObject({ ...fulfilled, kind: z.literal('new-key'), key: z.string(), callsLeft: z.number().int(), revealed: z.literal(true) }),
  z.strictObject({ ...fulfilled, kind: z.literal('new-key'), revealed: z.literal(false), detail: z.string() }),
  z.strictObject({ ...fulfilled, kind: z.literal('top-up'), key: z.string(), callsLeft: z.number().int() }),
]);
export type SessionStatus = z.infer<typeof SessionStatus>;

/**
 * What the success page shows for a Checkout Session. A new key is returned by the first call after
 * fulfilment only (takeRecord reads and deletes it in one step); every later call says it was shown.
 */
export async function checkoutSessionStatus(deps: Pick<BillingDeps, 'store' | 'now'>, sessionId: string | null): Promise<SessionStatus> {
  if (!sessionId || !SESSION_ID.test(sessionId)) {
    throw new ProblemError('invalid-request', 'session_id must be a Checkout Session id (cs_…).', { errors: [{ path: 'session_id', message: 'must be a Checkout Session id' }] });
  }
  const now = deps.now ?? Date.now();
  const checkout = await readCheckout(deps.store, sessionId, now);
  if (!checkout) throw new ProblemError('not-found', 'No purchase is known under this session id.');
  const fulfilment = await readJson<FulfilmentRecord>(deps.store, names.fulfilment(sessionId), now);
  if (!fulfilment) return { status: 'pending', plan: checkout.plan };
  const { callsLeft } = await balance(deps.store, fulfilment.keyHash, now);
  if (fulfilment.kind === 'top-up') {
    return { status: 'fulfilled', kind: 'top-up', plan: fulfilment.plan, key: checkout.topUpKeyMask ?? 'your key', callsLeft };
  }
  const key = await deps.store.takeRecord(names.reveal(sessionId), now);
  if (key === null) {
    return { status: 'fulfilled', kind: 'new-key', plan: fulfilment.plan, revealed: false, detail: 'The key for this purchase was already shown once and is not stored anywhere in readable form.' };
  }
  return { status: 'fulfilled', kind: 'new-key', plan: fulfilment.plan, key, callsLeft, revealed: true };
}

const SubscriptionState = z.strictObject({
  id: z.string(),
  status: z.enum(['active', 'ended']),
  currentPeriodEnd: z.string(),
  endedAt: z.string().nullable(),
});
type SubscriptionState = z.infer<typeof SubscriptionState>;

/** The 200 body of POST /api/billing/account. */
export const AccountSummary = Balance.extend({ key: z.string(), subscriptions: z.array(SubscriptionState), billingPortal: z.boolean() });
export type AccountSummary = z.infer<typeof AccountSummary>;

/** Calls left per grant, expiries and subscription state for a presented key (401 problem for a bad key). */
export async function accountSummary(deps: Pick<BillingDeps, 'store' | 'now'>, { keyHash, mask }: { keyHash: string; mask: string }): Promise<AccountSummary> {
  const now = deps.now ?? Date.now();
  const b = await balance(deps.store, keyHash, now);
  const subIds = (await readJson<string[]>(deps.store, names.keySubscriptions(keyHash), now)) ?? [];
  const subscriptions: SubscriptionState[] = [];
  for (const id of subIds) subscriptions.push(await subscriptionState(deps.store, id, now));
  const customer = await deps.store.getRecord(names.customer(keyHash), now);
  return { key: mask, callsLeft: b.callsLeft, grants: b.grants, subscriptions, billingPortal: customer !== null };
}

async function subscriptionState(store: Store, id: string, now: number): Promise<SubscriptionState> {
  const owner = await readJson<SubscriptionOwner>(store, names.subOwner(id), now);
  const period = await readJson<SubscriptionPeriod>(store, names.subPeriod(id), now);
  const ended = await readJson<SubscriptionEnded>(store, names.subEnded(id), now);
  const grant = owner ? (await store.listGrants(owner.keyHash, now)).find((g) => g.id === owner.grantId) : undefined;
  const periodEnd = Math.max(owner?.initialPeriodEnd ?? 0, period?.periodEnd ?? 0, grant ? grant.expiresAt - (ended ? 0 : RENEWAL_GRACE_MS) : 0);
  return {
    id,
    status: ended ? 'ended' : 'active',
    currentPeriodEnd: new Date(ended ? Math.min(periodEnd, ended.paidUntil ?? ended.endedAt) : periodEnd).toISOString(),
    endedAt: ended ? new Date(ended.endedAt).toISOString() : null,
  };
}

/** A Stripe billing portal session for the customer who paid for this key. */
export async function billingPortalUrl(deps: BillingDeps & { stripe?: Stripe }, keyHash: string): Promise<string> {
  const now = deps.now ?? Date.now();
  const customer = await deps.store.getRecord(names.customer(keyHash), now);
  if (!customer) throw new ProblemError('not-found', 'This key was not bought through Stripe Checkout, so there is no billing account to manage.');
  const stripe = deps.stripe ?? billingStripe(deps.config);
  try {
    const portal = await stripe.billingPortal.sessions.create({ customer, return_url: `${deps.config.APP_URL.replace(/\/$/, '')}/account` });
    return portal.url;
  } catch (error) {
    throw stripeUnavailable(error);
  }
}
