import { getRuntime } from '@/lib/runtime';
import { openApiDocument } from '@/lib/discovery/openapi';
import { observed } from '@/lib/http/observe';
import { supportEmail } from '@/lib/config';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const GET = observed('openapi', () => {
  const { config, rails } = getRuntime();
  const doc = openApiDocument({ appUrl: config.APP_URL, rails: rails?.live ?? [], usdcAddress: config.USDC_ADDRESS, contactEmail: supportEmail(config) });
  return Response.json(doc, { headers: { 'Cache-Control': 'public, max-age=300' } });
});
