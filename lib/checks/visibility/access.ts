// What each crawler's live request got, read from the probe responses (access-probes.ts fetches them).
// Pure and bounded: every probe body is at most ACCESS_PROBE_MAX_BYTES, and each is read by forward scans
// (indexOf and one pass over the characters), never by a regular expression over the body, so the work is
// linear in what was fetched. It runs with the rest of the analysis on the worker pool (analysis.ts).

import type { AccessOutcome, CrawlerAccess, SiteAccess } from './access-types';
import { WordCounter } from './words';
import { htmlTokens } from './html-scan';

/** A probe reads at most this much of the page: enough for the head and the start of the text. */
export const ACCESS_PROBE_MAX_BYTES = 64 * 1024;

/**
 * A 2xx probe counts as `different` when it has fewer than this share of the words the browser baseline
 * got (both counted the same way over the same 64 KB cap), or another title.
 */
const DIFFERENT_TEXT_SHARE = 0.5;

/** The response headers a probe keeps: the ones the classification and the findings read. */
export const PROBE_HEADERS = [
  'cf-mitigated',
  'x-amzn-waf-action',
  'x-vercel-mitigated',
  'crawler-price',
  'crawler-error',
  'retry-after',
  'server',
  'x-datadome',
] as const;

/**
 * Why a probe got no HTTP answer: safe-fetch's failure codes, `refused` for an SSRF guard refusal, `not-sent` when
 * a hop was held back by the check's own request limits (a domain's budget for the minute, the per-check cap for
 * a third party), which says nothing about the site.
 */
export type ProbeFailure = 'timeout' | 'connection' | 'dns' | 'tls' | 'too-many-redirects' | 'redirect-loop' | 'bad-response' | 'refused' | 'not-sent';

/** One probe's answer as the analysis needs it; plain data, so it can cross to the worker thread. */
export interface ProbeResponse {
  userAgent: string;
  /** The final status after redirects, or null when no answer arrived. */
  status: number | null;
  /** PROBE_HEADERS that were present, lowercased names. */
  headers: Array<[string, string]>;
  /** The first ACCESS_PROBE_MAX_BYTES of the body, decoded. */
  body: string;
  failure: ProbeFailure | null;
}

/** The browser baseline and one probe per crawler that sends requests, in CRAWLERS order. */
export interface AccessProbes {
  browser: ProbeResponse;
  crawlers: Array<ProbeResponse & { token: string }>;
}

/** One crawler's access with the words a finding quotes as evidence. */
export interface AccessReading {
  access: CrawlerAccess;
  evidence: string;
}

export interface AccessAssessment {
  site: SiteAccess;
  /** Keyed by crawler token; crawlers without an entry were not probed. */
  byToken: Map<string, AccessReading>;
}

/** What the comparison with the browser baseline reads of a body. */
export interface Digest {
  /** Whitespace-collapsed, lowercased text of the first <title>, or null. */
  title: string | null;
  words: number;
}

// Documented or widely recorded signs of a bot-management interstitial. Headers are the vendors' own
// signals; the title and body markers are what their challenge pages carry. Kept short on purpose:
// each one is a plain substring test.
const CHALLENGE_HEADERS: ReadonlyArray<{ name: string; values: readonly string[]; vendor: string }> = [
  // Cloudflare: "cf-mitigated: challenge" is the documented way to tell a challenge from the page.
  { name: 'cf-mitigated', values: ['challenge'], vendor: 'Cloudflare' },
  // AWS WAF: the CAPTCHA (405) and Challenge (202) actions set x-amzn-waf-action.
  { name: 'x-amzn-waf-action', values: ['challenge', 'captcha'], vendor: 'AWS WAF' },
  // Vercel's firewall marks its challenge responses the same way.
  { name: 'x-vercel-mitigated', values: ['challenge'], vendor: 'Vercel' },
];
const CHALLENGE_TITLES: ReadonlyArray<{ title: string; vendor: string }> = [
  { title: 'just a moment...', vendor: 'Cloudflare' },
  { title: 'vercel security checkpoint', vendor: 'Vercel' },
];
// These also appear in ordinary pages (Cloudflare and Imperva inject their scripts into them), so on a
// 2xx they count only when the page is not the one the browser got.
const CHALLENGE_BODY_MARKERS: ReadonlyArray<{ marker: string; vendor: string }> = [
  { marker: '/cdn-cgi/challenge-platform/', vendor: 'Cloudflare' },
  { marker: 'captcha-delivery.com', vendor: 'DataDome' },
  { marker: '_incapsula_resource', vendor: 'Imperva' },
  { marker: 'perimeterx.net', vendor: 'HUMAN (PerimeterX)' },
  { marker: 'perimeterx.com/whywasiblocked', vendor: 'HUMAN (PerimeterX)' },
];

const BLOCKED_FAILURES = new Set<ProbeFailure>(['connection']);
const EVIDENCE_VALUE_MAX = 80;

const isSuccess = (status: number | null): status is number => status !== null && status >= 200 && status <= 299;

function header(res: ProbeResponse, name: string): string | null {
  return res.headers.find(([n]) => n === name)?.[1] ?? null;
}

/** A site-supplied value as evidence: one line, printable, at most EVIDENCE_VALUE_MAX characters. */
function quoteValue(value: string): string {
  let out = '';
  for (const ch of value.slice(0, EVIDENCE_VALUE_MAX)) out += ch < ' ' || ch === '\u007f' ? ' ' : ch;
  return value.length > EVIDENCE_VALUE_MAX ? `${out.trim()}…` : out.trim();
}

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 160;
}

/**
 * The title and visible-word count of an HTML body, in one forward pass of the shared tokenizer (html-scan.ts):
 * comments, tags and the content of script, style, noscript and template are not text, and the title's words are
 * not page text.
 * @example digestHtml('<title> Hi </title><p>two words</p>') // { title: 'hi', words: 2 }
 */
export function digestHtml(html: string): Digest {
  let title: string | null = null;
  const words = new WordCounter();
  for (const token of htmlTokens(html)) {
    if (token.kind === 'text') words.add(html.slice(token.start, token.end));
    else if (token.kind === 'raw') {
      if (token.name === 'title' && title === null) title = collapse(html.slice(token.start, token.end));
    } else {
      // A tag (or comment) ends a word, as in extract.ts, which reads the same text through the parsed tree.
      words.boundary();
    }
  }
  return { title, words: words.finish() };
}

function collapse(text: string): string {
  let out = '';
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) space = out.length > 0;
    else {
      if (space) out += ' ';
      space = false;
      out += text[i];
    }
  }
  return out.toLowerCase();
}

/** The first challenge sign in a response: which header, title or marker, and whose; null when none. */
function challengeSign(res: ProbeResponse, digest: Digest): { evidence: string; strong: boolean } | null {
  for (const { name, values, vendor } of CHALLENGE_HEADERS) {
    const value = header(res, name);
    if (value !== null && values.includes(value.trim().toLowerCase())) return { evidence: `${name}: ${quoteValue(value)} (${vendor})`, strong: true };
  }
  for (const { title, vendor } of CHALLENGE_TITLES) {
    if (digest.title === title) return { evidence: `the ${vendor} challenge page (title "${quoteValue(digest.title)}")`, strong: true };
  }
  const lower = res.body.toLowerCase();
  for (const { marker, vendor } of CHALLENGE_BODY_MARKERS) {
    if (lower.includes(marker)) return { evidence: `a ${vendor} challenge marker (${marker})`, strong: false };
  }
  return null;
}

function statusEvidence(res: ProbeResponse, extra: string[]): string {
  const details = extra.filter((name) => header(res, name) !== null).map((name) => `${name}: ${quoteValue(header(res, name)!)}`);
  return `answered ${res.status}${details.length > 0 ? ` with ${details.join(', ')}` : ''}`;
}

function failureEvidence(failure: ProbeFailure): string {
  switch (failure) {
    case 'connection':
      return 'the connection was reset or refused';
    case 'timeout':
      return 'no answer within the time limit';
    case 'refused':
      return 'redirected to an address the check does not fetch (private, local or not a web address)';
    case 'not-sent':
      return "redirected to another site, which this check's request limits did not let it reach (says nothing about the crawler)";
    default:
      return `no usable answer (${failure})`;
  }
}

/**
 * One crawler probe's outcome against the browser baseline.
 * @example classifyProbe({ userAgent: 'GPTBot', status: 403, headers: [], body: '', failure: null }, browser).access.outcome // 'blocked'
 */
export function classifyProbe(probe: ProbeResponse, browser: ProbeResponse, browserDigest: Digest = digestHtml(browser.body)): AccessReading {
  // Every probe and the baseline leave from the same address, so a refusal the baseline did not get is the user
  // agent's doing alone.
  const byUserAgent = (outcome: AccessOutcome) => isSuccess(browser.status) && outcome !== 'ok' && outcome !== 'error' && outcome !== 'not-probed';
  const reading = (outcome: AccessOutcome, evidence: string): AccessReading => ({
    access: { outcome, status: probe.status, userAgent: probe.userAgent, ...(byUserAgent(outcome) ? { verification: 'unverified-user-agent' as const } : {}) },
    evidence,
  });
  if (probe.status === null) {
    const failure = probe.failure ?? 'bad-response';
    // A reset or refused connection is a refusal only when a browser got the page from the same server.
    return reading(BLOCKED_FAILURES.has(failure) && isSuccess(browser.status) ? 'blocked' : 'error', failureEvidence(failure));
  }
  const digest = digestHtml(probe.body);
  const sign = challengeSign(probe, digest);
  const status = probe.status;
  if (sign && (sign.strong || !isSuccess(status))) return reading('challenge', `answered ${status}, ${sign.evidence}`);
  if (status === 402) return reading('payment-required', statusEvidence(probe, ['crawler-price', 'crawler-error', 'server']));
  if (status === 429) return reading('rate-limited', statusEvidence(probe, ['retry-after', 'server']));
  if (status >= 400 && status <= 499) return reading('blocked', statusEvidence(probe, ['server', 'x-datadome']));
  if (!isSuccess(status)) return reading('error', `answered ${status}`);
  if (!isSuccess(browser.status)) return reading('ok', `answered ${status}`);

  const otherTitle = digest.title !== browserDigest.title;
  const missingText = browserDigest.words > 0 && digest.words < DIFFERENT_TEXT_SHARE * browserDigest.words;
  if (!otherTitle && !missingText) return reading('ok', `answered ${status}`);
  if (sign) return reading('challenge', `answered ${status}, ${sign.evidence}`);
  const said = (title: string | null) => (title === null ? 'no title' : `"${quoteValue(title)}"`);
  const why = otherTitle
    ? `the title ${said(digest.title)} where the browser got ${said(browserDigest.title)}`
    : `${digest.words} words where the browser got ${browserDigest.words}`;
  return reading('different', `answered ${status} with ${why}`);
}

/**
 * Every probed crawler's access, and the site's summary; all `not-probed` when there are no probes.
 * @example assessAccess(probes).byToken.get('GPTBot')?.access.outcome // 'blocked'
 */
export function assessAccess(probes: AccessProbes | null, browserUserAgent: string): AccessAssessment {
  if (probes === null) return { site: { browserStatus: null, browserUserAgent, probes: 0 }, byToken: new Map() };
  const browserDigest = digestHtml(probes.browser.body);
  const byToken = new Map(probes.crawlers.map((probe) => [probe.token, classifyProbe(probe, probes.browser, browserDigest)]));
  return { site: { browserStatus: probes.browser.status, browserUserAgent: probes.browser.userAgent, probes: probes.crawlers.length }, byToken };
}
