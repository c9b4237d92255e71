import type { PurgeCounts, Store } from './types';

// Every unpaid request writes a rate-limit row before any payment, so an embedded store that never
// deletes grows with traffic nobody paid for (3,000 requests from made-up addresses: 48.7 MiB). The
// server purges on this timer; SQLite frees the rows (their pages are reused, the file stops growing),
// while Redis and Vercel KV already delete every expiring key through its native TTL (see lua.ts).

/** How often the server purges: often enough that a flood's rows go within minutes, rare enough to cost nothing. */
export const PURGE_INTERVAL_MS = 5 * 60 * 1000;

export interface PurgeSchedule {
  /** Runs one purge now (the timer's own step); resolves to what it deleted, or null when the store failed. */
  runOnce(): Promise<PurgeCounts | null>;
  stop(): void;
}

/**
 * Purges `store` every `intervalMs` on an unref'd timer (it never keeps a process alive). A failed purge
 * is logged and retried at the next tick; one never overlaps the next.
 * @example const schedule = startPurgeSchedule(store, { log: logEvent }); // …later: schedule.stop()
 */
export function startPurgeSchedule(
  store: Pick<Store, 'purgeExpired'>,
  options: { intervalMs?: number; now?: () => number; log?: (event: Record<string, unknown>) => void } = {},
): PurgeSchedule {
  const now = options.now ?? Date.now;
  let running: Promise<PurgeCounts | null> | null = null;
  const runOnce = () =>
    (running ??= store
      .purgeExpired(now())
      .then((counts) => {
        if (Object.values(counts).some((n) => n > 0)) options.log?.({ event: 'store-purged', ...counts });
        return counts;
      })
      .catch((error: unknown) => {
        options.log?.({ event: 'store-purge-failed', error: error instanceof Error ? error.message : String(error) });
        return null;
      })
      .finally(() => {
        running = null;
      }));
  const timer = setInterval(() => void runOnce(), options.intervalMs ?? PURGE_INTERVAL_MS);
  timer.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}
