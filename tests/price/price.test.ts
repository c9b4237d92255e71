import { describe, expect, it } from 'vitest';
import { PLAN_IDS, PRICE_CENTS, PRICE_MPP_AMOUNT, PRICE_USD, PRICE_USDC, PRICE_USDC_UNITS, PURCHASABLE_PLAN_IDS, formatUsd } from '@/lib/price';
import { PLANS } from '@/lib/credits/plans';

describe('lib/price', () => {
  it('states one price in every unit: cents, USD string, mppx amount, USDC base units', () => {
    expect(PRICE_CENTS).toBe(100);
    expect(PRICE_USD).toBe('1.00');
    expect(PRICE_MPP_AMOUNT).toBe('1');
    expect(PRICE_USDC_UNITS).toBe(1_000_000n);
    expect(PRICE_USDC).toBe('1 USDC');
  });

  it('formats cents as a USD string with integer arithmetic', () => {
    expect([0, 5, 99, 100, 2900, 7000, 123456].map(formatUsd)).toEqual(['0.00', '0.05', '0.99', '1.00', '29.00', '70.00', '1234.56']);
  });

  it('has one list of plan ids: the plans on sale, plus the demo grant', () => {
    expect(PLANS.map((p) => p.id)).toEqual([...PURCHASABLE_PLAN_IDS]);
    expect([...PLAN_IDS]).toEqual([...PURCHASABLE_PLAN_IDS, 'demo']);
  });
});
