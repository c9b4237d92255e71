// The AI Visibility Check: fetch one page and the few site files that decide its visibility, then
// assemble the SPEC 2.3 report. All network access goes through safeFetch (SSRF guards, size caps).
//
// Request plan, chosen to keep the dependent chain short:
//   at once:  the page, /robots.txt, /sitemap.xml, /llms.txt, /llms-full.txt, and (https only) http://host/
//   then:     only if the page redirected to another origin, the same site probes for that origin, since
//             robots.txt and friends belong to the host that answered (RFC 9309 is per authority);
//             only if /sitemap.xml is not a sitemap, the first `Sitemap:` URL of robots.txt.
// Everything shares one AbortSignal carrying the whole-check budget.

import { ProblemError } from '@/lib/http/problem';
import { crawlerRobotsVerdict, crawlerVerdicts, CRAWLERS, type CrawlerVerdict } from './crawlers';
import { extractPage, type PageFacts } from './extract';
import { pathAndQueryOf, robotsFromResponse, robotsSummary, ROBOTS_MAX_BYTES, type RobotsAccess } from './robots';
import {
  assessLlmsTxt,
  BLOCKING_SCORE_CAP,
  RUBRIC,
  RUBRIC_VERSION,
  SCORE_MAX,
  scoreReport,
  VISIBILITY_LIMITS,
  type Finding,
  type LlmsTxtAssessment,
  type RubricItem,
  type ScoringLine,
} from './rubric';
import { DEFAULT_MAX_BYTES, FetchFailedError, FetchRefusedError, safeFetch, type FetchResult, type LookupFn, type SafeFetchOptions } from './safe-fetch';
import { hostMapFromEnv, normalizeTargetUrl, parseHostMap, type HostMap } from './target-url';

export const CHECK_VERSION = '2.0.0';
/** Whole-check budget: every request of one check shares it. */
export const CHECK_BUDGET_MS = 20_000;
/** The page may use most of the budget; the site files are small and get less. */
export const PAGE_TIMEOUT_MS = 15_000;
export const PROBE_TIMEOUT_MS = 10_000;
export const PAGE_MAX_BYTES = DEFAULT_MAX_BYTES;
// Only the root element of a sitemap is looked at, and only presence and shape of llms-full.txt.
const SITEMAP_MAX_BYTES = 64 * 1024;
const LLMS_MAX_BYTES = 128 * 1024;
const LLMS_FULL_MAX_BYTES = 8 * 1024;

export interface CheckOptions {
  /** Cancels the check (e.g. the client went away); combined with the CHECK_BUDGET_MS budget. */
  signal?: AbortSignal;
  /**
   * Clock, for callers that stamp results. The report itself carries no time so that the same site
   * gives the same report; the route adds checkedAt.
   */
  now?: () => Date;
  /** Replaces the system resolver (tests). */
  lookup?: LookupFn;
  /** Replaces CHECK_HOST_MAP (tests, local demos); refused in production by safeFetch. */
  hostMap?: string | HostMap;
  /** Overrides CHECK_BUDGET_MS (tests of the budget). */
  budgetMs?: number;
}

export type PresenceState = 'found' | 'missing';

export interface VisibilitySite {
  requestedUrl: string;
  redirects: Array<{ url: string; status: number }>;
  https: { finalUrlHttps: boolean; httpRedirectsToHttps: boolean | null };
  ttfbMs: number;
  robotsTxt: { state: RobotsAccess['state']; status: number | null; sitemaps: string[]; contentSignals: string[] };
  sitemapXml: { url: string | null; status: number | null; isSitemap: boolean };
  llmsTxt: PresenceState;
  llmsFullTxt: PresenceState;
}

export interface VisibilityReport {
  checkVersion: string;
  checkedUrl: string;
  status: number;
  robotsTxt: RobotsAccess['state'];
  crawlers: CrawlerVerdict[];
  llmsTxt: PresenceState;
  page: PageFacts;
  site: VisibilitySite;
  score: number;
  scoreMax: number;
  rubricVersion: string;
  rubric: RubricItem[];
  scoring: ScoringLine[];
  findings: Finding[];
}

export interface VisibilityResult {
  report: VisibilityReport;
  limits: string[];
}

interface SiteProbes {
  robots: RobotsAccess;
  sitemap: VisibilitySite['sitemapXml'];
  llms: LlmsTxtAssessment;
  llmsFull: { state: PresenceState; status: number | null; bytesRead: number; truncated: boolean };
  httpRedirectsToHttps: boolean | null;
}

type FetchOptions = Pick<SafeFetchOptions, 'signal' | 'lookup' | 'hostMap'>;

/** A probe never throws: a site file that cannot be fetched is a fact about the site, not a failed check. */
async function tryFetch(url: URL, options: SafeFetchOptions): Promise<FetchResult | null> {
  try {
    return await safeFetch(url, options);
  } catch {
    return null;
  }
}

// The root element's name, optionally namespace-prefixed, read from where the prolog ends.
const SITEMAP_ROOT_ELEMENT = /^<(?:[A-Za-z_][\w.-]*:)?(?:urlset|sitemapindex)[\s>/]/i;
const DOCTYPE = '<!doctype';

/**
 * Where the root element starts once the XML prolog (whitespace, `<?…?>`, `<!--…-->`, `<!DOCTYPE …>`
 * with an optional `[…]` internal subset) is skipped, or -1 when the prolog never ends. Written as a
 * forward scan because the regular expression it replaces let a 125-byte hostile sitemap backtrack
 * for 31 s: here every step moves past what it read, so the work is linear in the body.
 */
function rootElementStart(xml: string): number {
  let at = 0;
  for (;;) {
    while (at < xml.length && /\s/.test(xml[at])) at++;
    let end: number;
    if (xml.startsWith('<?', at)) {
      end = xml.indexOf('?>', at + 2);
      if (end < 0) return -1;
      at = end + 2;
    } else if (xml.startsWith('<!--', at)) {
      end = xml.indexOf('-->', at + 4);
      if (end < 0) return -1;
      at = end + 3;
    } else if (xml.slice(at, at + DOCTYPE.length).toLowerCase() === DOCTYPE) {
      end = doctypeEnd(xml, at + DOCTYPE.length);
      if (end < 0) return -1;
      at = end + 1;
    } else {
      return at;
    }
  }
}

/** The index of the `>` closing a doctype whose name starts at `from`, or -1. */
function doctypeEnd(xml: string, from: number): number {
  let at = from;
  while (at < xml.length && xml[at] !== '>' && xml[at] !== '[') at++;
  if (xml[at] !== '[') return at < xml.length ? at : -1;
  // The internal subset ends at the first `]` followed by optional whitespace and `>`. The
  // whitespace runs after different `]` never overlap, so this loop stays linear too.
  for (let close = xml.indexOf(']', at); close >= 0; close = xml.indexOf(']', close + 1)) {
    let after = close + 1;
    while (after < xml.length && /\s/.test(xml[after])) after++;
    if (xml[after] === '>') return after;
  }
  return -1;
}

/**
 * A sitemap is an XML document whose root is <urlset> or <sitemapindex> (sitemaps.org).
 * @example isSitemapDocument(200, '<?xml version="1.0"?><urlset xmlns="…"></urlset>') // true
 */
export function isSitemapDocument(status: number | null, body: string | null): boolean {
  if (status === null || status < 200 || status > 299 || !body) return false;
  const xml = body.replace(/^\uFEFF/, '');
  const root = rootElementStart(xml);
  // A namespace prefix and the name fit well inside 1 KiB; the slice keeps the match bounded.
  return root >= 0 && SITEMAP_ROOT_ELEMENT.test(xml.slice(root, root + 1024));
}

function isHtml(contentType: string | null, body: string): boolean {
  if (contentType && /text\/html|application\/xhtml/i.test(contentType)) return true;
  return /^\s*<(?:!doctype\s+html|html)[\s>]/i.test(body.slice(0, 1024));
}

async function fetchSitemap(url: URL, fetchOptions: FetchOptions): Promise<VisibilitySite['sitemapXml']> {
  const res = await tryFetch(url, {
    ...fetchOptions,
    timeoutMs: PROBE_TIMEOUT_MS,
    maxBytes: SITEMAP_MAX_BYTES,
    accept: 'application/xml,text/xml;q=0.9,*/*;q=0.5',
  });
  return { url: url.href, status: res?.status ?? null, isSitemap: isSitemapDocument(res?.status ?? null, res?.body ?? null) };
}

async function probeHttpRedirect(origin: URL, fetchOptions: FetchOptions): Promise<boolean | null> {
  const httpUrl = new URL('/', origin);
  httpUrl.protocol = 'http:';
  const res = await tryFetch(httpUrl, { ...fetchOptions, timeoutMs: PROBE_TIMEOUT_MS, maxBytes: 1024 });
  // No answer over http at all (port 80 closed, timeout) says nothing about a redirect: null.
  if (res === null) return null;
  return res.redirects.length > 0 && new URL(res.url).protocol === 'https:';
}

/** The site files of one origin, all requested at once. */
async function probeSite(origin: URL, fetchOptions: FetchOptions): Promise<SiteProbes> {
  const at = (path: string) => new URL(path, origin);
  const probe = { ...fetchOptions, timeoutMs: PROBE_TIMEOUT_MS };
  const [robotsRes, sitemapXml, llmsRes, llmsFullRes, httpRedirectsToHttps] = await Promise.all([
    tryFetch(at('/robots.txt'), { ...probe, maxBytes: ROBOTS_MAX_BYTES + 1 /* one byte over tells the matcher the file was cut */, accept: 'text/plain,*/*;q=0.5' }),
    fetchSitemap(at('/sitemap.xml'), fetchOptions),
    tryFetch(at('/llms.txt'), { ...probe, maxBytes: LLMS_MAX_BYTES, accept: 'text/markdown,text/plain;q=0.9,*/*;q=0.5' }),
    tryFetch(at('/llms-full.txt'), { ...probe, maxBytes: LLMS_FULL_MAX_BYTES, accept: 'text/markdown,text/plain;q=0.9,*/*;q=0.5' }),
    origin.protocol === 'https:' ? probeHttpRedirect(origin, fetchOptions) : Promise.resolve(false),
  ]);

  const robots = robotsFromResponse(robotsRes?.status ?? null, robotsRes?.body ?? null);

  // One dependent hop, only when needed: the sitemap robots.txt announces, if /sitemap.xml is not one.
  let sitemap = sitemapXml;
  const declared = robots.state === 'found' ? robots.robots.sitemaps[0] : undefined;
  if (!sitemap.isSitemap && declared !== undefined) {
    let declaredUrl: URL | null = null;
    try {
      declaredUrl = new URL(declared, origin);
    } catch {
      declaredUrl = null;
    }
    if (declaredUrl && declaredUrl.href !== sitemapXml.url && /^https?:$/.test(declaredUrl.protocol)) {
      sitemap = await fetchSitemap(declaredUrl, fetchOptions);
    }
  }

  const llms = assessLlmsTxt(llmsRes?.status ?? null, llmsRes?.header('content-type') ?? null, llmsRes?.body ?? null);
  const fullStatus = llmsFullRes?.status ?? null;
  const fullFound =
    llmsFullRes !== null && fullStatus !== null && fullStatus >= 200 && fullStatus < 300 && !isHtml(llmsFullRes.header('content-type'), llmsFullRes.body);
  return {
    robots,
    sitemap,
    llms,
    llmsFull: { state: fullFound ? 'found' : 'missing', status: fullStatus, bytesRead: llmsFullRes?.bytesRead ?? 0, truncated: llmsFullRes?.truncated ?? false },
    httpRedirectsToHttps,
  };
}

function resolveHostMap(option: CheckOptions['hostMap']): HostMap {
  if (option === undefined) return hostMapFromEnv();
  return typeof option === 'string' ? parseHostMap(option) : option;
}

function unreachable(err: unknown): ProblemError {
  const reason =
    err instanceof FetchRefusedError || err instanceof FetchFailedError
      ? err.message
      : 'The page could not be fetched.';
  return new ProblemError('site-unreachable', reason);
}

/**
 * Runs the AI Visibility Check on one address.
 * @throws ProblemError 'invalid-url' (400) when the address is refused before any request,
 *   'site-unreachable' (422) when the page itself cannot be fetched. Any HTTP answer, 404 or 500
 *   included, produces a report: the status is a finding, not a failure of the check.
 */
export async function checkVisibility(input: string, options: CheckOptions = {}): Promise<VisibilityResult> {
  if (typeof input !== 'string') throw new ProblemError('invalid-url', 'The address must be a string.');
  const hostMap = resolveHostMap(options.hostMap);
  const target = normalizeTargetUrl(input, { allowHosts: hostMap.keys() });

  const budget = AbortSignal.timeout(options.budgetMs ?? CHECK_BUDGET_MS);
  // Aborted when the check ends either way, so probes whose answer is no longer needed (the page
  // failed, or redirected to another origin) stop instead of holding sockets until the budget.
  const finished = new AbortController();
  const signal = AbortSignal.any([budget, finished.signal, ...(options.signal ? [options.signal] : [])]);
  const fetchOptions: FetchOptions = { signal, hostMap, ...(options.lookup ? { lookup: options.lookup } : {}) };

  try {
    return await runCheck(target, fetchOptions);
  } finally {
    finished.abort();
  }
}

async function runCheck(target: URL, fetchOptions: FetchOptions): Promise<VisibilityResult> {
  const pagePromise = safeFetch(target, { ...fetchOptions, timeoutMs: PAGE_TIMEOUT_MS, maxBytes: PAGE_MAX_BYTES });
  const firstProbes = probeSite(new URL(target.origin), fetchOptions);

  let page: FetchResult;
  try {
    page = await pagePromise;
  } catch (err) {
    // The probes cannot reject; let them wind down on the shared signal.
    throw unreachable(err);
  }

  const finalUrl = new URL(page.url);
  const probes = finalUrl.origin === target.origin ? await firstProbes : await probeSite(new URL(finalUrl.origin), fetchOptions);

  const facts = extractPage(page.body, page.url, page, page.truncated);
  const pagePath = pathAndQueryOf(finalUrl);
  const verdicts = crawlerVerdicts(probes.robots, pagePath);
  const finalUrlHttps = finalUrl.protocol === 'https:';
  const https = { finalUrlHttps, httpRedirectsToHttps: finalUrlHttps ? probes.httpRedirectsToHttps : false };
  const robots = robotsSummary(probes.robots);
  const headTruncated = page.truncated && !/<\/head\s*>|<body[\s>]/i.test(page.body);

  const { score, scoring, findings } = scoreReport({
    finalUrl: page.url,
    status: page.status,
    contentType: page.header('content-type'),
    redirects: page.redirects.length,
    page: facts,
    headTruncated,
    // Verdicts come in CRAWLERS order; the matcher knows the exact line that decided each one.
    crawlers: verdicts.map((v, i) => ({ ...v, line: crawlerRobotsVerdict(probes.robots, CRAWLERS[i], pagePath).line })),
    robots,
    https,
    sitemapXml: probes.sitemap,
    llmsTxt: probes.llms,
    llmsFullTxt: probes.llmsFull,
  });

  const report: VisibilityReport = {
    checkVersion: CHECK_VERSION,
    checkedUrl: page.url,
    status: page.status,
    robotsTxt: probes.robots.state,
    crawlers: verdicts,
    llmsTxt: probes.llms.state,
    page: facts,
    site: {
      requestedUrl: page.requestedUrl,
      redirects: page.redirects.map((r) => ({ url: r.url, status: r.status })),
      https,
      ttfbMs: page.ttfbMs,
      robotsTxt: robots,
      sitemapXml: probes.sitemap,
      llmsTxt: probes.llms.state,
      llmsFullTxt: probes.llmsFull.state,
    },
    score,
    scoreMax: SCORE_MAX,
    rubricVersion: RUBRIC_VERSION,
    rubric: RUBRIC.map((item) => ({ ...item })),
    scoring,
    findings,
  };
  return { report, limits: [...VISIBILITY_LIMITS] };
}

/** The free GET description of the check: what is fetched, the crawler table, the rubric and the limits. */
export function visibilityCheckDescription() {
  return {
    name: 'AI Visibility Check',
    description:
      'Fetches one public page and its site files (robots.txt, sitemap, llms.txt, llms-full.txt), reports what 15 search and AI crawlers may fetch under robots.txt, and scores the page 0-100 against the published rubric, with findings ordered by severity. Nothing is charged when the page cannot be fetched.',
    checkVersion: CHECK_VERSION,
    rubricVersion: RUBRIC_VERSION,
    scoreMax: SCORE_MAX,
    scoringRule:
      `The score is the sum of the points earned per rubric item. A blocking failure (the page answers non-2xx, carries noindex for search crawlers, or robots.txt disallows it for Googlebot, an unreachable robots.txt included) caps the score at ${BLOCKING_SCORE_CAP}. Response time is reported but not scored.`,
    fetched: {
      page: `the address given, following up to 5 redirects, reading at most ${PAGE_MAX_BYTES / 1024} KB`,
      site: ['/robots.txt', '/sitemap.xml (else the first Sitemap: of robots.txt)', '/llms.txt', '/llms-full.txt', 'http://<host>/ for https pages'],
      budgetSeconds: CHECK_BUDGET_MS / 1000,
    },
    crawlers: CRAWLERS.map((c) => ({
      token: c.token,
      vendor: c.vendor,
      role: c.role,
      purpose: c.purpose,
      source: c.source,
      ...(c.fallback !== undefined ? { fallback: c.fallback } : {}),
      honorsRobots: c.honorsRobots,
      userTriggered: c.userTriggered,
      tokenOnly: c.tokenOnly,
    })),
    rubric: RUBRIC.map((item) => ({ ...item })),
    limits: [...VISIBILITY_LIMITS],
  };
}
