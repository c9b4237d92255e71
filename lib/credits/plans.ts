import type { PurchasablePlanId } from '@/lib/price';

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
