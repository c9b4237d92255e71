import type { Store } from '@/lib/store';
import { problem, type Problem } from '@/lib/problems';

// The costly-failure budget. A check that fails after holding an analysis thread to its deadline (or killing
// the thread), or that ends before the site it checks answered, is not charged, so without a budget of its own a caller could repeat it for
// free, each time taking a thread from everyone else for the whole deadline. Each caller, by its credits key
// and by its client address, may have RATE_LIMIT_COSTLY_FAILURES such failures per RATE_LIMIT_WINDOW_SECONDS.
//
// Two steps, as for the per-host budget (host-budget.ts), so a call pays one read and no write:
//   - before payment, `costlyFailuresSpent` only reads the caller's markers; a caller whose budget is spent is
//     refused 429 before a key is reserved or a challenge is offered;
//   - after a costly failure, `countCostlyFailure` counts it in the store's fixed window, and the failure that
//     spends the last of the budget sets the marker for the rest of the window.

/** The buckets a call's costly failures count in: its key's (when a key pays) and its client address's. */
export function costlyFailureBuckets(keyHash: string | null, clientIp: string): string[] {
  return keyHash ? [`costly:key:${keyHash}`, `costly:ip:${clientIp}`] : [`costly:ip:${clientIp}`];
}

const markerName = (bucket: string) => `costly-spent:${bucket}`;

function spent(limit: number, windowSeconds: number, retryAfterMs: number): { problem: Problem; retryAfterSeconds: number } {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return {
    problem: problem(
      'rate-limited',
      `${limit} checks from this caller failed uncharged in the last ${windowSeconds} s (their site never answered, or they used up their analysis time), the most allowed in that window. Retry in ${seconds} s. Nothing was charged.`,
      { retryAfterSeconds: seconds },
    ),
    retryAfterSeconds: seconds,
  };
}

/**
 * Before payment: the refusal when any of the caller's costly-failure budgets is spent, else null. Reads only.
 * @example const refused = await costlyFailuresSpent(store, costlyFailureBuckets(keyHash, ip), 3, 60_000, Date.now());
 */
export async function costlyFailuresSpent(store: Store, buckets: string[], limit: number, windowMs: number, now: number) {
  const untils = await Promise.all(buckets.map((bucket) => store.getRecord(markerName(bucket), now)));
  const latest = Math.max(...untils.map((until) => (until === null ? 0 : Number(until))));
  return latest > now ? spent(limit, windowMs / 1000, latest - now) : null;
}

/**
 * After a failure that held an analysis thread to its deadline: counts it against each of the caller's budgets;
 * the one that spends a budget marks it spent until its window ends.
 * @example await countCostlyFailure(store, costlyFailureBuckets(keyHash, ip), 3, 60_000, Date.now());
 */
export async function countCostlyFailure(store: Store, buckets: string[], limit: number, windowMs: number, now: number): Promise<void> {
  await Promise.all(
    buckets.map(async (bucket) => {
      const hit = await store.hitRateLimit(bucket, limit, windowMs, now);
      if (hit.remaining > 0) return;
      const end = now - (now % windowMs) + windowMs;
      await store.setRecord(markerName(bucket), String(end), now, end - now);
    }),
  );
}
