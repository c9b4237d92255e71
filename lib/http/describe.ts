import { z } from 'zod';
import type { CheckEntry } from '@/lib/checks/entry';
import { PRICE_CENTS, PRICE_USD } from '@/lib/price';
import { getRuntime } from '@/lib/runtime';

/** What every free description states about price and payment (see priceAndRails). */
export const PriceAndRails = z.strictObject({
  price: z.strictObject({ amount: z.string(), currency: z.literal('USD'), cents: z.number().int(), per: z.string() }),
  payment: z.strictObject({
    rails: z.array(z.string()),
    prepaid: z.strictObject({ header: z.string(), plans: z.string() }),
  }),
});

/** Price and live payment rails, as every free description and discovery document states them. */
export function priceAndRails(): z.infer<typeof PriceAndRails> {
  const { config, rails } = getRuntime();
  return {
    price: { amount: PRICE_USD, currency: 'USD', cents: PRICE_CENTS, per: 'fulfilled request' },
    payment: {
      rails: rails?.live ?? [],
      prepaid: { header: 'Authorization: Bearer <credits key>', plans: `${config.APP_URL}/api/agent/credits` },
    },
  };
}

/**
 * The 200 body of the free GET on a paid path: who it is, price and rails, then what the operation describes.
 * @example descriptionSchema(check).parse(await (await GET()).json())
 */
export function descriptionSchema(operation: CheckEntry) {
  return z.strictObject({
    operationId: z.literal(operation.operationId),
    service: z.string(),
    description: z.string(),
    method: z.literal('POST'),
    path: z.literal(operation.path),
    mcpTool: z.literal(operation.toolName),
    ...PriceAndRails.shape,
    ...operation.described.shape,
  });
}
