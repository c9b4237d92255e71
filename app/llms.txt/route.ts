import { getRuntime } from '@/lib/runtime';
import { llmsTxt } from '@/lib/discovery/llms';
import { observed } from '@/lib/http/observe';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const GET = observed('llms', () => {
  const { config, rails } = getRuntime();
  return new Response(llmsTxt({ appUrl: config.APP_URL, rails: rails?.live ?? [], usdcAddress: config.USDC_ADDRESS }), {
    headers: { 'Content-Type': 'text/markdown; charset=utf-8', 'Cache-Control': 'public, max-age=300' },
  });
});
