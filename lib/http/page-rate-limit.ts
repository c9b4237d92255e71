// Per-address limits for pages, counted in this process's memory. The proxy (proxy.ts) answers before a page
// renders, and it cannot reach the store the API routes count in; a page's cost (a render, a store read) is
// paid by this process, so this process is where it is counted. Fixed windows, like the store's.

/** Windows kept at most; past it the oldest go first, so a flood of addresses costs bounded memory. */
const PAGE_WINDOWS_MAX = 10_000;

export interface PageRateLimiter {
  /** Counts one hit on `bucket`; refused past `limit` in the window `now` falls in, with the time until it ends. */
  hit(bucket: string, limit: number, windowMs: number, now: number): { allowed: true } | { allowed: false; retryAfterMs: number };
}

/**
 * A fixed-window counter per bucket, in memory.
 * @example
 * const limiter = pageRateLimiter();
 * if (!limiter.hit(`reports-page:${ip}`, 120, 60_000, Date.now()).allowed) return tooManyRequests();
 */
export function pageRateLimiter(maxWindows = PAGE_WINDOWS_MAX): PageRateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    hit(bucket, limit, windowMs, now) {
      const start = now - (now % windowMs);
      let window = windows.get(bucket);
      if (!window || window.start !== start) {
        windows.delete(bucket);
        // Map keeps insertion order: the first entries are the oldest windows.
        while (windows.size >= maxWindows) windows.delete(windows.keys().next().value!);
        window = { start, count: 0 };
        windows.set(bucket, window);
      }
      window.count++;
      return window.count <= limit ? { allowed: true } : { allowed: false, retryAfterMs: start + windowMs - now };
    },
  };
}
