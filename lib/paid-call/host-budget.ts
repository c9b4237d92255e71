import type { Store } from '@/lib/store';
import { problem, type Problem } from '@/lib/problems';

// The per-target-site budget (docs/SECURITY.md, section 5): however many callers pay, one site (the registrable
// domain of the address asked for, so every name under a wildcard domain shares it) is checked at most `limit`
// times a minute, so the service cannot be used to load it. It lives in the store, so it holds across instances.
// One caller (a credits key, a verified payer, or an address) may take at most SITE_BUDGET_CALLER_SHARE of it, so
// no one caller can spend a site's minute for everyone else; and a check that ends before the site answered is
// given back (returnHostBudget). Beside it, `spendOutbound` counts every single request the checks send, at the
// domain it names and at the address it connects to.
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

/** The share of a site's budget one caller may use in a minute: the rest stays for everyone else. */
const SITE_BUDGET_CALLER_SHARE = 0.5;

/**
 * The checks of one site one caller may have in a minute: SITE_BUDGET_CALLER_SHARE of the site's budget, at least 1.
 * @example checksPerCaller(6) // 3
 */
export function checksPerCaller(limit: number): number {
  return Math.max(1, Math.ceil(limit * SITE_BUDGET_CALLER_SHARE));
}

const siteBucket = (host: string) => `target-host:${host}`;
const callerBucket = (host: string, caller: string) => `target-host-caller:${host}:${caller}`;

/** The 429 for a caller whose share of a site's budget is spent, with the seconds to wait. */
function shareSpent(host: string, share: number, retryAfterMs: number): { problem: Problem; retryAfterSeconds: number } {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return {
    problem: problem(
      'rate-limited',
      `You have checked ${host} ${share} times in this minute, the most one caller may, so that others can check it too. Retry in ${seconds} s. Nothing was charged.`,
      { retryAfterSeconds: seconds },
    ),
    retryAfterSeconds: seconds,
  };
}

/**
 * Once payment is admitted: counts one check of `host` by `caller` (a credits key, a verified payer or an
 * address: the pipeline's owner), against the caller's share and the site's budget; the refusal when either is
 * spent (nothing is left counted then), else null.
 * @example if (await spendHostBudget(store, 'example.com', 'key:ab12', 6, Date.now())) await releaseThePayment();
 */
export async function spendHostBudget(store: Store, host: string, caller: string, limit: number, now: number) {
  const share = checksPerCaller(limit);
  const mine = await store.hitRateLimit(callerBucket(host, caller), share, HOST_BUDGET_WINDOW_MS, now);
  if (!mine.allowed) return shareSpent(host, share, mine.retryAfterMs);
  const hit = await store.hitRateLimit(siteBucket(host), limit, HOST_BUDGET_WINDOW_MS, now);
  if (hit.remaining === 0) {
    const end = windowEnd(now);
    await store.setRecord(markerName(host), String(end), now, end - now);
  }
  if (hit.allowed) return null;
  await store.returnRateLimit(callerBucket(host, caller), HOST_BUDGET_WINDOW_MS, now);
  return spent(host, limit, hit.retryAfterMs);
}

/**
 * Gives a check back to `host`'s budget and its caller's share, for a check that ended before the site answered:
 * it cost the site nothing worth counting (the pipeline counts it against the caller's costly-failure budget
 * instead). The spent marker goes with it, since the budget has room again.
 * @example await returnHostBudget(store, 'example.com', 'key:ab12', Date.now());
 */
export async function returnHostBudget(store: Store, host: string, caller: string, now: number): Promise<void> {
  await Promise.all([
    store.returnRateLimit(siteBucket(host), HOST_BUDGET_WINDOW_MS, now),
    store.returnRateLimit(callerBucket(host, caller), HOST_BUDGET_WINDOW_MS, now),
    store.takeRecord(markerName(host), now),
  ]);
}

/** A budget of outbound requests: per registrable domain, or per address. */
export interface OutboundLimits {
  domain: number;
  address: number;
}

/**
 * Counts one request a check is about to send to `target` (a registrable domain, or the address it connects
 * to) in the store's fixed window, so the count holds across checks and instances; `allowed` false means it must
 * not be sent.
 * @example const spend = (target: OutboundTarget) => spendOutbound(store, target, { domain: 120, address: 120 }, Date.now()); // a check's OutboundSpend
 */
export async function spendOutbound(
  store: Store,
  target: { kind: 'domain' | 'address'; key: string },
  limits: OutboundLimits,
  now: number,
): Promise<{ allowed: boolean; retryAfterMs: number }> {
  const hit = await store.hitRateLimit(`outbound:${target.kind === 'domain' ? '' : 'address:'}${target.key}`, limits[target.kind], HOST_BUDGET_WINDOW_MS, now);
  return { allowed: hit.allowed, retryAfterMs: hit.retryAfterMs };
}
