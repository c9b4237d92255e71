import { getRuntime } from '@/lib/runtime';
import { openApiJson } from '@/lib/discovery/openapi';
import { observed } from '@/lib/http/observe';
import { supportEmail } from '@/lib/config';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const GET = observed('openapi', () => {
  const { config, rails } = getRuntime();
  const text = openApiJson({ appUrl: config.APP_URL, rails: rails?.live ?? [], usdcAddress: config.USDC_ADDRESS, contactEmail: supportEmail(config) });
  return new Response(text, { headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' } });
});
