import type Stripe from 'stripe';
import { stripe } from 'mppx/client';

type CreateToken = Parameters<typeof stripe.charge>[0]['createToken'];

/**
 * mppx/client's `createToken` for the local Stripe fake: mints a shared payment token with Stripe's
 * test helper, as the mppx CLI does with a test key. `customer`: the Customer the token belongs to (who the
 * card payer is, for idempotency).
 */
export function sptFromTestHelper(sdk: Stripe, options: { customer?: string } = {}): CreateToken {
  return async ({ amount, currency, networkId, expiresAt, paymentMethod }) => {
    const token = await sdk.rawRequest('POST', '/v1/test_helpers/shared_payment/granted_tokens', {
      payment_method: paymentMethod,
      ...(options.customer ? { customer: options.customer } : {}),
      usage_limits: { currency, max_amount: amount, expires_at: expiresAt },
      seller_details: { network_id: networkId },
    });
    return (token as unknown as { id: string }).id;
  };
}
