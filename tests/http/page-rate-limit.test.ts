// The per-process window counter proxy.ts uses for the report pages.
import { describe, expect, it } from 'vitest';
import { pageRateLimiter } from '@/lib/http/page-rate-limit';

describe('pageRateLimiter', () => {
  it('allows `limit` hits per bucket and window, then refuses until the window ends; buckets count apart', () => {
    const limiter = pageRateLimiter();
    const t = 120_000 + 15_000; // 15 s into a 60 s window
    expect([1, 2, 3].map(() => limiter.hit('a', 3, 60_000, t).allowed)).toEqual([true, true, true]);
    expect(limiter.hit('a', 3, 60_000, t + 1_000)).toEqual({ allowed: false, retryAfterMs: 44_000 });
    expect(limiter.hit('b', 3, 60_000, t).allowed).toBe(true);
    expect(limiter.hit('a', 3, 60_000, 180_000).allowed).toBe(true);
  });

  it('keeps at most maxWindows buckets, dropping the oldest first', () => {
    const limiter = pageRateLimiter(2);
    expect(limiter.hit('a', 1, 60_000, 0).allowed).toBe(true);
    expect(limiter.hit('a', 1, 60_000, 0).allowed).toBe(false);
    limiter.hit('b', 1, 60_000, 0);
    limiter.hit('c', 1, 60_000, 0);
    // 'a' was dropped to make room, so its count starts again; 'c' is still counted.
    expect(limiter.hit('a', 1, 60_000, 0).allowed).toBe(true);
    expect(limiter.hit('c', 1, 60_000, 0).allowed).toBe(false);
  });
});
