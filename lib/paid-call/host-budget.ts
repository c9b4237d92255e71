import type { Store } from '@/lib/store';
import { problem, type Problem } from '@/lib/problems';

// The per-target-site budget (docs/SECURITY.md, section 5): however many callers pay, one site (the registrable
// domain of the address asked for, so every name under a wildcard domain shares it) is checked at most `limit`
// times a minute, so the service cannot be used to load it. It lives in the store, so it holds across instances.
// Beside it, `spendOutbound` counts every single request the checks send, at the domain it actually goes to.
//
// Two steps, so that unpaid requests neither pay for nothing nor use up the budget:
//   - before payment, `hostBudgetSpent` only reads a marker that the budget is spent; a request to such a
//     host is refused 429 before a key is reserved or a challenge is offered;
//   - once payment is admitted, `spendHostBudget` counts the check in the store's fixed window. The
//     request that spends the last check sets the marker for the rest of the window; a request that loses
//     a race for it is refused there, and the pipeline releases its reservation (or leaves its credential
//     unsettled): nothing is charged either way.

const HOST_BUDGET_WINDOW_MS = 60_000;

const markerName = (host: string) => `host-budget-spent:${host}`;

function windowEnd(now: number): number {
  return now - (now % HOST_BUDGET_WINDOW_MS) + HOST_BUDGET_WINDOW_MS;
}

/** The 429 for a spent budget, with the seconds to wait. */
function spent(host: string, limit: number, retryAfterMs: number): { problem: Problem; retryAfterSeconds: number } {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return {
    problem: problem(
      'rate-limited',
      `${host} has been checked ${limit} times in this minute, the most this service sends any one site whoever asks. Retry in ${seconds} s. Nothing was charged.`,
      { retryAfterSeconds: seconds },
    ),
    retryAfterSeconds: seconds,
  };
}

/**
 * Before payment: the refusal when the host's budget for this minute is already spent, else null. Reads only.
 * @example const refused = await hostBudgetSpent(store, 'example.com', 6, Date.now()); // null, or { problem, retryAfterSeconds }
 */
export async function hostBudgetSpent(store: Store, host: string, limit: number, now: number) {
  const until = await store.getRecord(markerName(host), now);
  if (until === null) return null;
  return spent(host, limit, Number(until) - now);
}

/**
 * Once payment is admitted: counts one check of `host`; the refusal when it is over the budget, else null.
 * @example if (await spendHostBudget(store, 'example.com', 6, Date.now())) await releaseThePayment();
 */
export async function spendHostBudget(store: Store, host: string, limit: number, now: number) {
  const hit = await store.hitRateLimit(`target-host:${host}`, limit, HOST_BUDGET_WINDOW_MS, now);
  if (hit.remaining === 0) {
    const end = windowEnd(now);
    await store.setRecord(markerName(host), String(end), now, end - now);
  }
  return hit.allowed ? null : spent(host, limit, hit.retryAfterMs);
}

/** The store bucket of one domain's outbound requests. */
const outboundBucket = (domain: string) => `outbound:${domain}`;

/**
 * Counts one request a check is about to send to `domain` (a registrable domain) in the store's fixed window, so
 * the count holds across checks and instances; `allowed` false means it must not be sent.
 * @example const spend = (domain: string) => spendOutbound(store, domain, 120, Date.now()); // a check's OutboundSpend
 */
export async function spendOutbound(store: Store, domain: string, limit: number, now: number): Promise<{ allowed: boolean; retryAfterMs: number }> {
  const hit = await store.hitRateLimit(outboundBucket(domain), limit, HOST_BUDGET_WINDOW_MS, now);
  return { allowed: hit.allowed, retryAfterMs: hit.retryAfterMs };
}
