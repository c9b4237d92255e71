import { errorResponse } from '@/lib/problems';
import { logEvent } from '@/lib/log';
import { observed } from '@/lib/http/observe';
import { readinessResponse } from '@/lib/http/health';
import { getRuntime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

// Liveness, and the trivial JSON baseline the benchmarks compare paid routes against (kept synchronous).
// With ?ready=1, readiness: the store answers and which rails are live (lib/http/health.ts).
export const GET = observed('health', (request?: Request): Response | Promise<Response> => {
  try {
    if (request?.url.includes('ready=') && new URL(request.url).searchParams.get('ready') === '1') {
      return readinessResponse(getRuntime()).catch((error: unknown) => errorResponse(error, { route: 'health', log: logEvent }));
    }
    return Response.json({ ok: true });
  } catch (error) {
    return errorResponse(error, { route: 'health', log: logEvent });
  }
});
