// The one request behind the soft-404 states (soft-404.ts): a path of the checked origin that cannot exist,
// random for each check so no cache or rule can have been written for it. What it answers is the site's answer
// to "not found"; a 2xx HTML page there is its catch-all. The path itself never reaches the report (the same
// site gives the same report), only what it answered.

import { randomBytes } from 'node:crypto';
import type { FetchedFile } from './analysis';
import { safeFetch, type SafeFetchOptions } from '@/lib/outbound/safe-fetch';

/** Enough of the answer to compare it with a site file's (soft-404.ts reads the first 8 KiB). */
const NOT_FOUND_PROBE_MAX_BYTES = 16 * 1024;
/** Requests the soft-404 comparison adds per origin probed, redirects not counted. */
export const NOT_FOUND_PROBE_REQUESTS_PER_ORIGIN = 1;

/**
 * A path of the origin that no site publishes: random, under a name that says who asked.
 * @example notFoundPath() // '/agent-visibility-check-not-found-3f9a1c0d5e7b2a48'
 */
function notFoundPath(): string {
  return `/agent-visibility-check-not-found-${randomBytes(8).toString('hex')}`;
}

/**
 * What the origin answers for a path that cannot exist, as a site file is read; all null when it got no answer.
 * @example (await fetchNotFoundProbe(new URL('https://site.test/'), { signal, timeoutMs: 10_000 })).status // 404 on a site without a catch-all
 */
export async function fetchNotFoundProbe(origin: URL, options: Pick<SafeFetchOptions, 'signal' | 'lookup' | 'hostMap' | 'outbound'> & { timeoutMs: number }): Promise<FetchedFile> {
  try {
    const res = await safeFetch(new URL(notFoundPath(), origin), { ...options, maxBytes: NOT_FOUND_PROBE_MAX_BYTES, accept: 'text/html,*/*;q=0.5', purpose: 'a path that cannot exist (soft-404 comparison)' });
    return { status: res.status, contentType: res.header('content-type'), body: res.body, bytesRead: res.bytesRead, truncated: res.truncated };
  } catch {
    return { status: null, contentType: null, body: null, bytesRead: 0, truncated: false };
  }
}
