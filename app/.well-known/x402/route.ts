import { getRuntime } from '@/lib/runtime';
import { x402WellKnown } from '@/lib/discovery/well-known';
import { observed } from '@/lib/http/observe';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const GET = observed('well-known-x402', () => {
  const { config, rails } = getRuntime();
  const doc = x402WellKnown({ appUrl: config.APP_URL, rails: rails?.live ?? [], usdcAddress: config.USDC_ADDRESS });
  return Response.json(doc, { headers: { 'Cache-Control': 'public, max-age=300' } });
});
