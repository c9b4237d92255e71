import type { Store } from '@/lib/store';
import { ProblemError } from '@/lib/problems';

/**
 * Counts one hit on `bucket` in the store's fixed window; past `limit` throws 429 `rate-limited`
 * with Retry-After.
 * @example await enforceRateLimit(store, `checkout-ip:${ip}`, 10, 60_000, Date.now());
 */
export async function enforceRateLimit(store: Store, bucket: string, limit: number, windowMs: number, now: number): Promise<void> {
  const hit = await store.hitRateLimit(bucket, limit, windowMs, now);
  if (!hit.allowed) {
    const seconds = Math.max(1, Math.ceil(hit.retryAfterMs / 1000));
    throw new ProblemError('rate-limited', `Too many requests; retry in ${seconds} s.`, { retryAfterSeconds: seconds }, { 'Retry-After': String(seconds) });
  }
}
