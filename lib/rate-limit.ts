import type { Store } from '@/lib/store';
import { ProblemError } from '@/lib/problems';

/**
 * Counts one hit on `bucket` in the store's fixed window; past `limit` throws 429 `rate-limited`
 * with Retry-After.
 * @example await enforceRateLimit(store, `checkout-ip:${ip}`, 10, 60_000, Date.now());
 */
export async function enforceRateLimit(store: Store, bucket: string, limit: number, windowMs: number, now: number): Promise<void> {
  const hit = await store.hitRateLimit(bucket, limit, windowMs, now);
  if (!hit.allowed) throw rateLimited(hit.retryAfterMs);
}

/**
 * The 429 `rate-limited` problem for a window that refused a hit and ends in `retryAfterMs`.
 * @example if (!admission.admitted && admission.refusal === 'ip-rate-limited') throw rateLimited(admission.retryAfterMs);
 */
export function rateLimited(retryAfterMs: number): ProblemError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ProblemError('rate-limited', `Too many requests; retry in ${seconds} s.`, { retryAfterSeconds: seconds }, seconds);
}
