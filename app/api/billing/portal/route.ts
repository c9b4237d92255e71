import { getRuntime } from '@/lib/runtime';
import { billingPortalUrl } from '@/lib/billing';
import { KeyBody, billingKeyOf, billingRoute, noStoreJson, parseFields, readBillingBody } from '@/lib/billing/http';
import { observed } from '@/lib/http/observe';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Key in the body (or the signed-in key) -> the Stripe billing portal of the customer who bought it (303 for forms, { url } for JSON). */
export const POST = observed('billing-portal', (request: Request): Promise<Response> =>
  billingRoute('billing-portal', async () => {
    const { config, store } = getRuntime();
    const { fields, form } = await readBillingBody(request, config.MAX_BODY_BYTES);
    const { key } = parseFields(KeyBody, fields);
    const url = await billingPortalUrl({ store, config }, (await billingKeyOf(request, key, { store, config }, form)).keyHash);
    if (form) return new Response(null, { status: 303, headers: { Location: url, 'Cache-Control': 'no-store' } });
    return noStoreJson({ url });
  }),
);
