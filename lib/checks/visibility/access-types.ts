/**
 * What one live request as a crawler got from the site (visibility check v2, per-crawler access probes).
 * The robots.txt verdict (`allowed`, `rule`, `group` of a crawler item) says what the site asks for;
 * these say what its server actually answered.
 */

/**
 * - `ok`: 2xx and comparable to the page the browser baseline got
 * - `blocked`: 401, 403, 404, 410, 451, or a reset/refused connection while the browser got 2xx
 * - `challenge`: a bot-management interstitial (e.g. `cf-mitigated: challenge`, a JS or CAPTCHA challenge page)
 * - `payment-required`: 402 (e.g. pay-per-crawl's `crawler-price`)
 * - `rate-limited`: 429
 * - `different`: 2xx, but not the page the browser got (another title, or most of its text missing)
 * - `error`: timeout or 5xx
 * - `not-probed`: a robots.txt-only token, or the page itself could not be fetched
 */
export type AccessOutcome =
  | 'ok'
  | 'blocked'
  | 'challenge'
  | 'payment-required'
  | 'rate-limited'
  | 'different'
  | 'error'
  | 'not-probed';

export const ACCESS_OUTCOMES: readonly AccessOutcome[] = [
  'ok',
  'blocked',
  'challenge',
  'payment-required',
  'rate-limited',
  'different',
  'error',
  'not-probed',
];

/** The `access` member of each crawler item. */
export interface CrawlerAccess {
  outcome: AccessOutcome;
  /** The HTTP status, or null when no response arrived (or not probed). */
  status: number | null;
  /** The user-agent string sent, or null when not probed. */
  userAgent: string | null;
  /**
   * `unverified-user-agent` when the crawler was refused (any outcome but ok, error and not-probed) while the
   * browser baseline, sent from the same address, got the page: the user agent alone made the difference. The
   * probe only claims to be the crawler; the real one, from its published addresses or with a Web Bot Auth
   * signature, may be treated otherwise. Absent otherwise.
   */
  verification?: 'unverified-user-agent';
}

/** The values of CrawlerAccess `verification`. */
export const ACCESS_VERIFICATIONS = ['unverified-user-agent'] as const;

/** `site.access`. */
export interface SiteAccess {
  browserStatus: number | null;
  browserUserAgent: string;
  /** Requests sent as crawlers (the browser baseline not included). */
  probes: number;
}
