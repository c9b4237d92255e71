import { getRuntime } from '@/lib/runtime';
import { accountSummary } from '@/lib/billing';
import { KeyBody, billingKeyOf, billingRoute, noStoreJson, parseFields, readBillingBody } from '@/lib/billing/http';
import { observed } from '@/lib/http/observe';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Key in the body (or the signed-in key) -> calls left per grant, expiries and subscription state. */
export const POST = observed('billing-account', (request: Request): Promise<Response> =>
  billingRoute('billing-account', async () => {
    const { config, store } = getRuntime();
    const { fields, form } = await readBillingBody(request, config.MAX_BODY_BYTES);
    const { key } = parseFields(KeyBody, fields);
    return noStoreJson(await accountSummary({ store }, await billingKeyOf(request, key, { store, config }, form)));
  }),
);
