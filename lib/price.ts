// What one fulfilled call costs, in every unit a rail or a page needs, and the ids of the prepaid
// plans. This module imports nothing, so every layer (the store included) can name a price or a plan.
// Money is counted in integer cents; the other units are derived from them, never typed again.

/** The price of one fulfilled call, in US cents. */
export const PRICE_CENTS = 100;

/** USDC has 6 decimals: one cent is 10 000 base units. */
export const USDC_DECIMALS = 6;

/**
 * Cents as the USD string shown to people and agents ("1.00"); integer arithmetic only.
 * @example formatUsd(2900) // '29.00'
 */
export function formatUsd(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** The price of one call as a USD string: "1.00". */
export const PRICE_USD = formatUsd(PRICE_CENTS);

/** The price as mppx's `charge({ amount })` takes it: display units, which mppx scales per method (cents, USDC units). */
export const PRICE_MPP_AMOUNT = PRICE_CENTS % 100 === 0 ? String(PRICE_CENTS / 100) : PRICE_USD;

/** The price in USDC base units (6 decimals): 1 000 000 for 1.00 USD. */
export const PRICE_USDC_UNITS: bigint = BigInt(PRICE_CENTS) * 10n ** BigInt(USDC_DECIMALS - 2);

/** The price in USDC as people read it: "1 USDC" for whole amounts, "1.50 USDC" otherwise. */
export const PRICE_USDC = `${PRICE_MPP_AMOUNT} USDC`;

/** Plans sold through Stripe Checkout (their contents and prices are in lib/credits/plans.ts). */
export const PURCHASABLE_PLAN_IDS = ['bundle-25', 'bundle-100', 'subscription'] as const;
export type PurchasablePlanId = (typeof PURCHASABLE_PLAN_IDS)[number];

/** Every plan a grant of calls can come from: the plans on sale, and the free demo key's grant. */
export const PLAN_IDS = [...PURCHASABLE_PLAN_IDS, 'demo'] as const;
export type PlanId = (typeof PLAN_IDS)[number];
