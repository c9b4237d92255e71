import { getRuntime } from '@/lib/runtime';
import { StoreUnavailableError } from '@/lib/store';
import { clientIp } from './client-ip';

// Report pages are counted per address in the store, in the same fixed windows as the API's report reads, so
// every instance behind a load balancer counts against one budget: N processes allow what one does. The proxy
// (proxy.ts) runs in the server's own Node.js process and reaches the store through the process's runtime.

/**
 * Counts one report-page view for the request's client address (`RATE_LIMIT_REPORTS_PER_IP` per window);
 * the time until its window ends when the view is over the limit, else null. A store that does not answer
 * lets the view through: the page reads the store itself and answers the outage in its own terms.
 * @example const refused = await reportPageRefusal(request.headers, Date.now()); if (refused) return tooManyRequests(refused.retryAfterMs);
 */
export async function reportPageRefusal(headers: Headers, now: number): Promise<{ retryAfterMs: number } | null> {
  const { config, store } = getRuntime();
  const ip = clientIp(headers, config.TRUSTED_PROXY);
  try {
    const hit = await store.hitRateLimit(`reports-page:${ip}`, config.RATE_LIMIT_REPORTS_PER_IP, config.RATE_LIMIT_WINDOW_SECONDS * 1000, now);
    return hit.allowed ? null : { retryAfterMs: hit.retryAfterMs };
  } catch (error) {
    if (error instanceof StoreUnavailableError) return null;
    throw error;
  }
}
