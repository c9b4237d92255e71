import { getRuntime } from '@/lib/runtime';
import { handleWebhookEvent, verifyWebhook } from '@/lib/billing';
import { billingRoute, noStoreJson } from '@/lib/billing/http';
import { observed } from '@/lib/http/observe';
import { readTextCapped } from '@/lib/http/request';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

// Stripe's events are well under this; the cap only stops abuse of an unauthenticated endpoint.
const MAX_EVENT_BYTES = 512 * 1024;

/** Stripe webhook: signature over the raw body, each event id once, local store work only (fast 2xx). */
export const POST = observed('billing-webhook', (request: Request): Promise<Response> =>
  billingRoute('billing-webhook', async () => {
    const runtime = getRuntime();
    const raw = await readTextCapped(request, MAX_EVENT_BYTES);
    const event = verifyWebhook(raw, request.headers.get('stripe-signature'), runtime.config.STRIPE_WEBHOOK_SECRET);
    const outcome = await handleWebhookEvent({ store: runtime.store, config: runtime.config, log: runtime.log }, event);
    runtime.log({ event: 'stripe-webhook', stripeEvent: outcome.eventId, type: outcome.type, result: outcome.result, detail: outcome.detail });
    return noStoreJson({ received: true, result: outcome.result });
  }),
);
