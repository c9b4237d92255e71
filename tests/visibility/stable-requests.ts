import type { RequestList } from '@/lib/outbound/request-log';

// The request list of a report says when each request started and how long it took, and lists requests that
// run at the same time in the order they happened to start: samples of one run. Reports compared across runs
// pin the times and the random path, and sort the lines; everything else in a line (purpose, URL, status, bytes) must match.

const PINNED_START = '2026-11-01T12:00:00.000Z';
/** The soft-404 comparison asks for a random path that cannot exist (not-found-probe.ts): a new one each run. */
const RANDOM_PATH = /agent-visibility-check-not-found-[0-9a-f]{16}/g;

/**
 * The list with its times pinned and its lines in a fixed order.
 * @example expect(stableRequests(report.requests)).toEqual(stableRequests(stored.report.requests))
 */
export function stableRequests(list: RequestList, order: 'sorted' | 'as-run' = 'sorted'): RequestList {
  const entries = list.entries.map((entry) => ({ ...entry, url: entry.url.replace(RANDOM_PATH, 'agent-visibility-check-not-found-0000000000000000'), startedAt: PINNED_START, ms: 0 }));
  if (order === 'sorted') entries.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return { ...list, entries };
}
