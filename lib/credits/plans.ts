import { z } from 'zod';
import { PURCHASABLE_PLAN_IDS, formatUsd, type PurchasablePlanId } from '@/lib/price';

// The prepaid plans of spec 2.4. Prices in cents so no float ever touches money.

export interface Plan {
  id: PurchasablePlanId;
  name: string;
  calls: number;
  priceCents: number;
  currency: 'usd';
  /** Bundles are valid 12 months from purchase; the subscription's calls reset every month. */
  validity: '12 months' | 'monthly';
  billing: 'one-time' | 'monthly';
  description: string;
}

export const PLANS: readonly Plan[] = [
  {
    id: 'bundle-25', name: '25 calls', calls: 25, priceCents: 2000, currency: 'usd', validity: '12 months', billing: 'one-time',
    description: '25 checks of either kind, valid 12 months from purchase.',
  },
  {
    id: 'bundle-100', name: '100 calls', calls: 100, priceCents: 7000, currency: 'usd', validity: '12 months', billing: 'one-time',
    description: '100 checks of either kind, valid 12 months from purchase.',
  },
  {
    id: 'subscription', name: 'Monthly', calls: 50, priceCents: 2900, currency: 'usd', validity: 'monthly', billing: 'monthly',
    description: '50 checks every month; unused calls do not roll over.',
  },
] as const;

export function findPlan(id: string): Plan | undefined {
  return PLANS.find((p) => p.id === id);
}

/** Bundles expire 12 calendar months after purchase. */
export function bundleExpiry(purchasedAt: number): number {
  const d = new Date(purchasedAt);
  d.setUTCMonth(d.getUTCMonth() + 12);
  return d.getTime();
}

/** A subscription period ends one calendar month after it starts. */
export function monthlyPeriodEnd(periodStart: number): number {
  const d = new Date(periodStart);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return d.getTime();
}

/** One prepaid plan as the credits endpoint lists it. */
export const PlanEntry = z.strictObject({
  id: z.enum(PURCHASABLE_PLAN_IDS),
  name: z.string(),
  calls: z.number().int(),
  price: z.strictObject({ amount: z.string(), currency: z.literal('USD') }),
  billing: z.enum(['one-time', 'monthly']),
  validity: z.enum(['12 months', 'monthly']),
  description: z.string(),
  purchaseUrl: z.string(),
});

/**
 * The plans as the credits endpoint and the discovery documents list them, with their purchase links.
 * @example planList('https://checks.example')[0].purchaseUrl // 'https://checks.example/pricing#bundle-25'
 */
export function planList(appUrl: string): z.infer<typeof PlanEntry>[] {
  return PLANS.map((p) => ({
    id: p.id,
    name: p.name,
    calls: p.calls,
    price: { amount: formatUsd(p.priceCents), currency: 'USD' },
    billing: p.billing,
    validity: p.validity,
    description: p.description,
    purchaseUrl: `${appUrl}/pricing#${p.id}`,
  }));
}
