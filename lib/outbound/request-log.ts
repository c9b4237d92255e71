// Proof of every fetch: one line per request a check sent or chose not to send, each redirect hop its own line,
// written where the request is made (safeFetch, and the renderer for what its browser asked for and was refused).
// A report carries the list so a reader can see exactly what the check did to their site, and export it as HAR.
// The list is capped: a page can ask its browser for thousands of images, and a report is stored and replayed.

import { z } from 'zod';

/** Lines one check keeps, in the order the requests started; the rest are counted in `omitted`. */
const REQUEST_LOG_MAX_ENTRIES = 200;
/** Characters of an address a line keeps (a longer one ends in the cut mark when the report is capped). */
const REQUEST_LOG_URL_MAX = 512;

/**
 * Who stopped a request before it was sent: the URL rules (scheme, port, credentials, internal names), the SSRF
 * guard (a name that resolves to a private address), the outbound gate (a budget for the minute, the per-check cap
 * for a third party, the lookups of one check), the redirect policy (a loop, too many hops), or the renderer
 * (what a check's browser is never given: images, media, fonts, anything but GET, past its caps).
 */
const REQUEST_REFUSERS = ['url-rules', 'ssrf-guard', 'budget', 'third-party-cap', 'lookup-cap', 'redirect-limit', 'renderer'] as const;

/** Why a request that was sent (or whose name was looked up) got no usable answer. */
const REQUEST_FAILURES = ['dns', 'timeout', 'connection', 'tls', 'bad-response'] as const;
type RequestFailure = (typeof REQUEST_FAILURES)[number];

/** One request, as the report lists it. */
export const RequestLogEntry = z.looseObject({
  /** What the check wanted it for, in words: "the page", "robots.txt", "probe as GPTBot", "rendered page subresource". */
  purpose: z.string().max(64),
  /** GET for nearly all; the access probes may send OPTIONS or HEAD, and a refused browser request keeps its own. */
  method: z.string().max(16),
  url: z.string().max(REQUEST_LOG_URL_MAX),
  /** The User-Agent header it carried (null for one the renderer refused, which never had ours). */
  userAgent: z.string().max(256).nullable(),
  /** When it started (ISO 8601, milliseconds). */
  startedAt: z.string().max(32),
  /** The status that answered; null when none did. */
  status: z.number().int().min(0).max(999).nullable(),
  contentType: z.string().max(128).nullable(),
  /** Body bytes read (after content decoding, up to the fetch's cap); 0 for a redirect hop, whose body is not read. */
  bytes: z.number().int().min(0).max(99_999_999),
  /** Milliseconds from its start until its body was read, or until it failed or was refused. */
  ms: z.number().int().min(0).max(999_999),
  /** Where a redirect hop pointed (its Location, resolved); the next hop is its own line. */
  redirectTo: z.string().max(REQUEST_LOG_URL_MAX).nullable(),
  /** Set when it was not sent; `why` says why. */
  refusedBy: z.enum(REQUEST_REFUSERS).nullable(),
  /** Set when it was sent but got no usable answer; `why` says what happened. */
  failed: z.enum(REQUEST_FAILURES).nullable(),
  why: z.string().max(320).nullable(),
});
export type RequestLogEntry = z.infer<typeof RequestLogEntry>;

/** The `requests` member of a report: its lines, and how many more there were. */
export const RequestList = z.looseObject({
  entries: z.array(RequestLogEntry).max(REQUEST_LOG_MAX_ENTRIES),
  omitted: z.number().int().min(0).max(99_999),
});
export type RequestList = z.infer<typeof RequestList>;

/** How a request ended, as the one who made it saw it. */
export type RequestOutcome = Partial<Pick<RequestLogEntry, 'status' | 'contentType' | 'bytes' | 'redirectTo' | 'refusedBy' | 'failed' | 'why'>>;

/** What is known when a request starts. */
type RequestStart = Pick<RequestLogEntry, 'purpose' | 'method' | 'url' | 'userAgent'>;

export interface RequestLog {
  /** Opens a line as the request starts (so the list keeps the order requests began in); call the result once it ended. */
  start(request: RequestStart): (outcome: RequestOutcome) => void;
  /** The lines closed so far, in the order they started, and the number past the cap. */
  list(): RequestList;
}

/**
 * One check's request log; the check hands it to its outbound gate, which every safeFetch of the check carries.
 * @example
 * const log = createRequestLog();
 * const done = log.start({ purpose: 'robots.txt', method: 'GET', url: 'https://site.test/robots.txt', userAgent: 'PaidAgentChecks/2.0' });
 * done({ status: 200, contentType: 'text/plain', bytes: 120 });
 * log.list().entries[0].status // 200
 */
export function createRequestLog(max = REQUEST_LOG_MAX_ENTRIES): RequestLog {
  const lines: Array<RequestLogEntry | null> = [];
  let started = 0;
  return {
    start(request) {
      const seq = started++;
      const at = performance.now();
      const startedAt = new Date().toISOString();
      if (seq < max) lines.push(null);
      let closed = false;
      return (outcome) => {
        if (closed || seq >= max) return;
        closed = true;
        lines[seq] = {
          ...request,
          startedAt,
          status: outcome.status ?? null,
          contentType: outcome.contentType ?? null,
          bytes: outcome.bytes ?? 0,
          ms: Math.max(0, Math.round(performance.now() - at)),
          redirectTo: outcome.redirectTo ?? null,
          refusedBy: outcome.refusedBy ?? null,
          failed: outcome.failed ?? null,
          why: outcome.why ?? null,
        };
      };
    },
    list() {
      const entries = lines.filter((l): l is RequestLogEntry => l !== null);
      // Past the cap, and any still open (none once a check has awaited its work), are counted, not listed.
      return { entries, omitted: started - entries.length };
    },
  };
}

/**
 * How a request that safeFetch refused or lost reads in the log: refused before it was sent, or failed.
 * @example requestOutcomeOf('private-address', 'It resolves to a private address.') // { refusedBy: 'ssrf-guard', why: '…' }
 */
export function requestOutcomeOf(code: string, why: string): RequestOutcome {
  switch (code) {
    case 'invalid-url':
      return { refusedBy: 'url-rules', why };
    case 'private-address':
      return { refusedBy: 'ssrf-guard', why };
    case 'budget':
    case 'third-party-cap':
    case 'lookup-cap':
      return { refusedBy: code, why };
    case 'redirect-loop':
    case 'too-many-redirects':
      return { refusedBy: 'redirect-limit', why };
    default:
      return { failed: (REQUEST_FAILURES as readonly string[]).includes(code) ? (code as RequestFailure) : 'connection', why };
  }
}
