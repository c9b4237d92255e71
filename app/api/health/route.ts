import { errorResponse } from '@/lib/problems';
import { logEvent } from '@/lib/log';

export const dynamic = 'force-dynamic';

// Liveness, and the trivial JSON baseline the benchmarks compare paid routes against (kept synchronous).
export function GET(): Response {
  try {
    return Response.json({ ok: true });
  } catch (error) {
    return errorResponse(error, { route: 'health', log: logEvent });
  }
}
