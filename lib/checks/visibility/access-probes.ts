// The live access probes: the final page address fetched once more as each crawler that sends requests,
// with its published user agent, and once as a desktop browser for comparison. Every probe goes through
// safeFetch (the SSRF guard, pinned sockets, byte and time caps) and reads at most 64 KB; at most
// ACCESS_PROBE_CONCURRENCY run at once, so the probes never put more than that on the site at a time.
// Reading the answers is access.ts's job, on the analysis pool.

import { ACCESS_PROBE_MAX_BYTES, PROBE_HEADERS, type AccessProbes, type ProbeFailure, type ProbeResponse } from './access';
import { COMMERCE_HEADERS } from './commerce';
import { BROWSER_USER_AGENT, CRAWLERS } from './crawlers';
import { FetchFailedError, FetchRefusedError, OutboundRefusedError, safeFetch, type SafeFetchOptions } from '@/lib/outbound/safe-fetch';

/** The headers a probe keeps: what access.ts reads, and the payment challenges commerce.ts reads. */
const KEPT_HEADERS: readonly string[] = [...PROBE_HEADERS, ...COMMERCE_HEADERS];

/** Probes in flight at once, all to the same host. */
export const ACCESS_PROBE_CONCURRENCY = 4;
/** A crawler sent elsewhere is followed this far; the page's own redirects were already followed. */
export const ACCESS_PROBE_MAX_REDIRECTS = 2;
const ACCESS_PROBE_TIMEOUT_MS = 10_000;

/** The crawlers that are probed: every one that sends requests of its own, in CRAWLERS order. */
export const PROBED_CRAWLERS = CRAWLERS.filter((c): c is typeof c & { userAgent: string } => !c.tokenOnly && c.userAgent !== undefined);

/** Requests one check's probes can make: each probe (the browser's included) with its redirects. */
export const ACCESS_PROBE_MAX_REQUESTS = (PROBED_CRAWLERS.length + 1) * (1 + ACCESS_PROBE_MAX_REDIRECTS);

/**
 * Runs `task`s with at most `max` in flight. A finished task hands its slot straight to the next waiter,
 * so a task that arrives meanwhile can never make it `max + 1`.
 */
function limiter(max: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active < max) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

function failureOf(err: unknown): ProbeFailure {
  if (err instanceof OutboundRefusedError) return 'not-sent';
  if (err instanceof FetchRefusedError) return 'refused';
  if (err instanceof FetchFailedError) return err.code;
  return 'connection';
}

async function probe(url: URL, userAgent: string, purpose: string, options: Pick<SafeFetchOptions, 'signal' | 'lookup' | 'hostMap' | 'outbound'>): Promise<ProbeResponse> {
  try {
    const res = await safeFetch(url, {
      ...options,
      userAgent,
      purpose,
      timeoutMs: ACCESS_PROBE_TIMEOUT_MS,
      maxBytes: ACCESS_PROBE_MAX_BYTES,
      maxRedirects: ACCESS_PROBE_MAX_REDIRECTS,
    });
    const headers = res.headers.filter(([name]) => KEPT_HEADERS.includes(name));
    return { userAgent, status: res.status, headers, body: res.body, failure: null };
  } catch (err) {
    // A probe never fails the check: what it could not get is the finding.
    return { userAgent, status: null, headers: [], body: '', failure: failureOf(err) };
  }
}

/**
 * Fetches `pageUrl` as the browser baseline and as each probed crawler, never more than
 * ACCESS_PROBE_CONCURRENCY at once. Never rejects: a probe that gets no answer says so in `failure`.
 * @example const probes = await runAccessProbes(new URL(page.url), { signal, hostMap });
 *   probes.crawlers.find((p) => p.token === 'GPTBot')?.status // 403
 */
export async function runAccessProbes(pageUrl: URL, options: Pick<SafeFetchOptions, 'signal' | 'lookup' | 'hostMap' | 'outbound'>): Promise<AccessProbes> {
  const run = limiter(ACCESS_PROBE_CONCURRENCY);
  // The browser goes first so that its answer, the comparison for all the others, is never the last to come.
  const browser = run(() => probe(pageUrl, BROWSER_USER_AGENT, 'probe as a browser', options));
  const crawlers = PROBED_CRAWLERS.map((c) => run(() => probe(pageUrl, c.userAgent, `probe as ${c.token}`, options)).then((res) => ({ ...res, token: c.token })));
  return { browser: await browser, crawlers: await Promise.all(crawlers) };
}
