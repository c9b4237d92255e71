import { getRuntime } from '@/lib/runtime';
import { checkoutSessionStatus } from '@/lib/billing';
import { billingRoute, noStoreJson } from '@/lib/billing/http';
import { observed } from '@/lib/http/observe';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Polled by the success page: pending, or fulfilled with the new key (first answer only) or the new balance. */
export const GET = observed('billing-session', (request: Request): Promise<Response> =>
  billingRoute('billing-session', async () => {
    const sessionId = new URL(request.url).searchParams.get('session_id');
    const status = await checkoutSessionStatus({ store: getRuntime().store }, sessionId);
    // The one-time key must not be kept by any cache or handed to another page through Referer.
    return noStoreJson(status, { headers: { 'Referrer-Policy': 'no-referrer' } });
  }),
);
