import { PRICE_CENTS, PRICE_USD, formatUsd } from '@/lib/price';
import { PLANS } from '@/lib/credits/plans';
import { getRuntime } from '@/lib/runtime';

/** Price and live payment rails, as every free description and discovery document states them. */
export function priceAndRails() {
  const { config, rails } = getRuntime();
  return {
    price: { amount: PRICE_USD, currency: 'USD', cents: PRICE_CENTS, per: 'fulfilled request' },
    payment: {
      rails: rails?.live ?? [],
      prepaid: { header: 'Authorization: Bearer <credits key>', plans: `${config.APP_URL}/api/agent/credits` },
    },
  };
}

export function planList(appUrl: string) {
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
