import { getRuntime } from '@/lib/runtime';
import { createCheckout } from '@/lib/billing';
import { CheckoutBody, billingKeyOf, billingRoute, noStoreJson, parseFields, readBillingBody } from '@/lib/billing/http';
import { observed } from '@/lib/http/observe';
import { clientIp } from '@/lib/http/client-ip';
import { enforceRateLimit } from '@/lib/rate-limit';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Form post -> 303 to Stripe Checkout; JSON -> { url, sessionId }. A top-up's key is in the body only. */
export const POST = observed('billing-checkout', (request: Request): Promise<Response> =>
  billingRoute('billing-checkout', async () => {
    const { config, store } = getRuntime();
    // Anyone may ask, so the limit comes before any Stripe call or stored record.
    const ip = clientIp(request.headers, config.TRUSTED_PROXY);
    await enforceRateLimit(store, `checkout-ip:${ip}`, config.RATE_LIMIT_CHECKOUT_PER_IP, config.RATE_LIMIT_WINDOW_SECONDS * 1000, Date.now());
    const { fields, form } = await readBillingBody(request, config.MAX_BODY_BYTES);
    const body = parseFields(CheckoutBody, fields);
    const result = await createCheckout({ store, config }, body.plan, body.topUp ? { topUp: await billingKeyOf(request, body.key, { store, config }, form) } : {});
    if (form) return new Response(null, { status: 303, headers: { Location: result.url, 'Cache-Control': 'no-store' } });
    return noStoreJson({ url: result.url, sessionId: result.sessionId });
  }),
);
