// The AI Visibility Check: fetch one page and the few site files that decide its visibility, then
// assemble the SPEC 2.3 report. All network access goes through safeFetch (SSRF guards, size caps).
//
// Request plan, chosen to keep the dependent chain short:
//   at once:  the page, the page again with `Accept: text/markdown`, /robots.txt, /sitemap.xml, /llms.txt,
//             /llms-full.txt, /.well-known/tdmrep.json, and (https only) http://host/
//   then:     only if the page redirected to another origin, the same site probes for that origin, since
//             robots.txt and friends belong to the host that answered (RFC 9309 is per authority);
//             at once, each as soon as the file it depends on arrived:
//               - up to 5 links of /llms.txt (site-signals.ts LLMS_LINKS_MAX);
//               - only if /sitemap.xml is not a sitemap, the first `Sitemap:` URL of robots.txt, and only if
//                 the sitemap is an index, its first child (the longest chain: 3 requests deep).
//             once the page is in, the access probes of its final address (access-probes.ts: a browser and
//             each crawler, 4 at a time), alongside the site files still in flight.
// The site signals (signal-fetches.ts) add at most 1 request per check and 7 per origin probed: 8 for a
// page that stays on its origin, 15 when it redirects to another one.
// Everything shares one AbortSignal carrying the whole-check budget.

import { TaskDeadlineError, TaskQueueTimeoutError, TaskThreadError } from '@/lib/worker-pool';
import { CRAWLERS, type CrawlerVerdict } from './crawlers';
import type { FetchedFile, FetchedPage, SiteFiles, SiteSignals } from './analysis';
import { ACCESS_PROBE_MAX_BYTES } from './access';
import { ACCESS_PROBE_CONCURRENCY, ACCESS_PROBE_MAX_REQUESTS, PROBED_CRAWLERS, runAccessProbes } from './access-probes';
import type { SiteAccess } from './access-types';
import { analyse } from './analysis-pool';
import type { PageFacts } from './extract';
import { ROBOTS_MAX_BYTES, type RobotsAccess } from './robots';
import {
  BLOCKING_SCORE_CAP,
  RUBRIC,
  RUBRIC_VERSION,
  SCORE_MAX,
  VISIBILITY_LIMITS,
  type Finding,
  type PublishedRubricItem,
  type ScoringLine,
} from './rubric';
import { DEFAULT_MAX_BYTES, MAX_REDIRECTS, FetchFailedError, FetchRefusedError, safeFetch, type FetchResult, type LookupFn, type SafeFetchOptions } from './safe-fetch';
import { resolveHostMap, type HostMap } from './host-map';
import { fetchLlmsLinks, fetchMarkdownAnswer, fetchTdmrep, SIGNAL_REQUESTS_PER_CHECK, SIGNAL_REQUESTS_PER_ORIGIN } from './signal-fetches';
import { InvalidTargetUrl, normalizeTargetUrl } from './target-url';
import { renderedView, withRenderedFindings, type PageRendering } from './render';
import { RENDER_MAX_REDIRECTS, RENDER_MAX_REQUESTS } from './render/render';

export { isSitemapDocument } from './analysis';

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

/** Site files fetched per origin: robots.txt, /sitemap.xml, llms.txt, llms-full.txt, http://host/, a declared sitemap. */
const SITE_FILES_PER_ORIGIN = 6;
/**
 * The most HTTP requests one check can make, redirects included: the page and its Markdown variant, the site
 * files and site-signal requests of at most two origins (the one asked for and the one the page redirected
 * to), the access probes, and, when the rendered view runs, the browser's subrequests (to any host). Stated in the
 * free GET; tests/visibility/request-bound.test.ts holds a check to it.
 */
export const MAX_REQUESTS_PER_CHECK =
  (1 + MAX_REDIRECTS) * (1 + SIGNAL_REQUESTS_PER_CHECK + 2 * (SITE_FILES_PER_ORIGIN + SIGNAL_REQUESTS_PER_ORIGIN)) +
  ACCESS_PROBE_MAX_REQUESTS +
  RENDER_MAX_REQUESTS * (1 + RENDER_MAX_REDIRECTS);

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
  /** Replaces CHECK_HOST_MAP (tests, local demos); refused in production (host-map.ts). */
  hostMap?: string | HostMap;
  /** Overrides CHECK_BUDGET_MS (tests of the budget). */
  budgetMs?: number;
  /** Overrides ANALYSIS_DEADLINE_MS, the time the parsing and scoring of one step may take (tests). */
  analysisDeadlineMs?: number;
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
  /** Visibility check v2: what agents can read beyond the page (site-signals.ts). */
  markdown: SiteSignals['markdown'];
  llmsTxtLinks: SiteSignals['llmsTxtLinks'];
  sitemapListsPage: SiteSignals['sitemapListsPage'];
  contentUsage: SiteSignals['contentUsage'];
  licensing: SiteSignals['licensing'];
  access: SiteAccess;
}

export interface VisibilityReport {
  checkVersion: string;
  checkedUrl: string;
  status: number;
  robotsTxt: RobotsAccess['state'];
  crawlers: CrawlerVerdict[];
  llmsTxt: PresenceState;
  page: PageFacts & { rendering: PageRendering };
  site: VisibilitySite;
  score: number;
  scoreMax: number;
  rubricVersion: string;
  rubric: PublishedRubricItem[];
  scoring: ScoringLine[];
  findings: Finding[];
}

export interface VisibilityResult {
  report: VisibilityReport;
  limits: string[];
}

type FetchOptions = Pick<SafeFetchOptions, 'signal' | 'lookup' | 'hostMap'>;
/**
 * How the check runs its analysis steps on the pool. Only the caller's signal drops a queued step: the
 * budget bounds the fetches, and files still pending when it ran out are analysed as not fetched.
 */
type AnalysisOptions = { signal?: AbortSignal; deadlineMs?: number };

/** A probe never throws: a site file that cannot be fetched is a fact about the site, not a failed check. */
async function tryFetch(url: URL, options: SafeFetchOptions): Promise<FetchResult | null> {
  try {
    return await safeFetch(url, options);
  } catch {
    return null;
  }
}

/** The parts of a fetch the analysis reads; a site file that could not be fetched is all null. */
function fetchedFile(res: FetchResult | null): FetchedFile {
  return {
    status: res?.status ?? null,
    contentType: res?.header('content-type') ?? null,
    body: res?.body ?? null,
    bytesRead: res?.bytesRead ?? 0,
    truncated: res?.truncated ?? false,
  };
}

async function fetchSitemap(url: URL, fetchOptions: FetchOptions): Promise<SiteFiles['sitemap']> {
  const res = await tryFetch(url, {
    ...fetchOptions,
    timeoutMs: PROBE_TIMEOUT_MS,
    maxBytes: SITEMAP_MAX_BYTES,
    accept: 'application/xml,text/xml;q=0.9,*/*;q=0.5',
  });
  return { ...fetchedFile(res), url: url.href };
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
async function probeSite(origin: URL, fetchOptions: FetchOptions, analysis: AnalysisOptions): Promise<SiteFiles> {
  const at = (path: string) => new URL(path, origin);
  const probe = { ...fetchOptions, timeoutMs: PROBE_TIMEOUT_MS };
  const [robotsRes, sitemapXml, llmsRes, llmsFullRes, httpRedirectsToHttps, tdmrep] = await Promise.all([
    tryFetch(at('/robots.txt'), { ...probe, maxBytes: ROBOTS_MAX_BYTES + 1 /* one byte over tells the matcher the file was cut */, accept: 'text/plain,*/*;q=0.5' }),
    fetchSitemap(at('/sitemap.xml'), fetchOptions),
    tryFetch(at('/llms.txt'), { ...probe, maxBytes: LLMS_MAX_BYTES, accept: 'text/markdown,text/plain;q=0.9,*/*;q=0.5' }),
    tryFetch(at('/llms-full.txt'), { ...probe, maxBytes: LLMS_FULL_MAX_BYTES, accept: 'text/markdown,text/plain;q=0.9,*/*;q=0.5' }),
    origin.protocol === 'https:' ? probeHttpRedirect(origin, fetchOptions) : Promise.resolve(false),
    fetchTdmrep(origin, probe),
  ]);
  const robots = fetchedFile(robotsRes);
  const llms = fetchedFile(llmsRes);

  const [{ sitemap, sitemapChild }, llmsLinks] = await Promise.all([
    followSitemap(origin, robots, sitemapXml, fetchOptions, analysis),
    analyse({ kind: 'llms-links', llms, url: at('/llms.txt').href }, analysis).then(({ links }) => fetchLlmsLinks(links, probe)),
  ]);

  return { robots, sitemap, sitemapChild, llms, llmsFull: fetchedFile(llmsFullRes), llmsLinks, tdmrep, httpRedirectsToHttps };
}

/** An absolute http(s) address, or null. */
function httpUrl(href: string, base: URL): URL | null {
  try {
    const url = new URL(href, base);
    return /^https?:$/.test(url.protocol) ? url : null;
  } catch {
    return null;
  }
}

/**
 * The dependent sitemap hops, only when needed: the sitemap robots.txt announces if /sitemap.xml is not
 * one, then the first child if the sitemap is an index (the page-listing question reads it).
 */
async function followSitemap(
  origin: URL,
  robots: FetchedFile,
  sitemapXml: SiteFiles['sitemap'],
  fetchOptions: FetchOptions,
  analysis: AnalysisOptions,
): Promise<Pick<SiteFiles, 'sitemap' | 'sitemapChild'>> {
  let sitemap = sitemapXml;
  const plan = await analyse({ kind: 'sitemap-plan', robots, sitemap: sitemapXml }, analysis);
  let child = plan.child;
  const declaredUrl = plan.declared === null ? null : httpUrl(plan.declared, origin);
  if (declaredUrl && declaredUrl.href !== sitemapXml.url) {
    sitemap = await fetchSitemap(declaredUrl, fetchOptions);
    child = (await analyse({ kind: 'sitemap-child', sitemap }, analysis)).child;
  }
  const childUrl = child === null ? null : httpUrl(child, origin);
  if (childUrl === null || childUrl.href === sitemap.url) return { sitemap, sitemapChild: null };
  const fetched = await fetchSitemap(childUrl, fetchOptions);
  return { sitemap, sitemapChild: { ...fetched, url: childUrl.href } };
}

/**
 * The site could not be checked: the page could not be fetched, or its files could not be analysed.
 * `message` is a reason fit to show the user (no addresses or internals). `costly` when the failure held an
 * analysis thread to its deadline or waited out the queue for one: the caller's costly-failure budget counts it.
 */
export class SiteUnreachable extends Error {
  constructor(
    reason: string,
    readonly costly = false,
  ) {
    super(reason);
    this.name = 'SiteUnreachable';
  }
}

function unreachable(err: unknown): SiteUnreachable {
  const reason =
    err instanceof FetchRefusedError || err instanceof FetchFailedError
      ? err.message
      : 'The page could not be fetched.';
  return new SiteUnreachable(reason);
}

/** A site whose files the analysis could not get through is a site that could not be checked. */
function analysisFailed(err: unknown, caller: AbortSignal | undefined): unknown {
  // The caller went away while a step queued: the same outcome as a page whose fetch it cut short.
  if (caller?.aborted && err === caller.reason) return new SiteUnreachable('The check was stopped before it finished.');
  if (err instanceof TaskDeadlineError) {
    return new SiteUnreachable(`The site's files took more than ${err.deadlineMs / 1000} s to analyse and were abandoned.`, true);
  }
  if (err instanceof TaskQueueTimeoutError) {
    return new SiteUnreachable(`The service is busy: the site's files waited more than ${err.waitedMs / 1000} s for analysis. Retry shortly.`, true);
  }
  // A thread that dies under a task has usually run out of memory on what the site sent.
  if (err instanceof TaskThreadError) return new SiteUnreachable("The site's files could not be analysed.", true);
  return err;
}

/**
 * Runs the AI Visibility Check on one address.
 * @throws InvalidTargetUrl when the address is refused before any request, SiteUnreachable when the
 *   page itself cannot be fetched (the edge answers them 400 invalid-url and 422 site-unreachable). Any
 *   HTTP answer, 404 or 500 included, produces a report: the status is a finding, not a failure of the check.
 * @example
 * const { report, limits } = await checkVisibility('https://example.com/pricing', { signal });
 * report.score // 0..100, scored against report.rubric; report.findings explain every point lost
 */
export async function checkVisibility(input: string, options: CheckOptions = {}): Promise<VisibilityResult> {
  if (typeof input !== 'string') throw new InvalidTargetUrl('The address must be a string.');
  const hostMap = resolveHostMap(options.hostMap);
  const target = normalizeTargetUrl(input, { allowHosts: hostMap.keys() });

  const budget = AbortSignal.timeout(options.budgetMs ?? CHECK_BUDGET_MS);
  // Aborted when the check ends either way, so probes whose answer is no longer needed (the page
  // failed, or redirected to another origin) stop instead of holding sockets until the budget.
  const finished = new AbortController();
  const signal = AbortSignal.any([budget, finished.signal, ...(options.signal ? [options.signal] : [])]);
  const fetchOptions: FetchOptions = { signal, hostMap, ...(options.lookup ? { lookup: options.lookup } : {}) };

  const analysis: AnalysisOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.analysisDeadlineMs !== undefined ? { deadlineMs: options.analysisDeadlineMs } : {}),
  };

  try {
    return await runCheck(target, fetchOptions, analysis);
  } catch (err) {
    throw analysisFailed(err, options.signal);
  } finally {
    finished.abort();
  }
}

async function runCheck(target: URL, fetchOptions: FetchOptions, analysis: AnalysisOptions): Promise<VisibilityResult> {
  const pagePromise = safeFetch(target, { ...fetchOptions, timeoutMs: PAGE_TIMEOUT_MS, maxBytes: PAGE_MAX_BYTES });
  const markdownPromise = fetchMarkdownAnswer(target, { ...fetchOptions, timeoutMs: PROBE_TIMEOUT_MS });
  const firstProbes = probeSite(new URL(target.origin), fetchOptions, analysis);
  // Settled below; until then a failure of the page must not leave this rejection unhandled.
  firstProbes.catch(() => {});

  let page: FetchResult;
  try {
    page = await pagePromise;
  } catch (err) {
    // The probes' fetches cannot reject; let them wind down on the shared signal.
    throw unreachable(err);
  }

  // Only now: a page that cannot be fetched is never rendered. Runs beside the site files; never rejects.
  const rendered = renderedView(page, { ...fetchOptions, signal: fetchOptions.signal!, hostMap: resolveHostMap(fetchOptions.hostMap), analysis });
  const finalUrl = new URL(page.url);
  const [files, probes] = await Promise.all([
    finalUrl.origin === target.origin ? firstProbes : probeSite(new URL(finalUrl.origin), fetchOptions, analysis),
    runAccessProbes(finalUrl, fetchOptions),
  ]);
  const fetchedPage: FetchedPage = {
    url: page.url,
    status: page.status,
    headers: page.headers,
    body: page.body,
    truncated: page.truncated,
    redirects: page.redirects.length,
  };
  const result = await analyse({ kind: 'site', page: fetchedPage, files, markdown: await markdownPromise, probes }, analysis);
  const view = await rendered;

  const report: VisibilityReport = {
    checkVersion: CHECK_VERSION,
    checkedUrl: page.url,
    status: page.status,
    robotsTxt: result.robotsState,
    crawlers: result.crawlers,
    llmsTxt: result.llms.state,
    page: { ...result.page, rendering: view.rendering },
    site: {
      requestedUrl: page.requestedUrl,
      redirects: page.redirects.map((r) => ({ url: r.url, status: r.status })),
      https: result.https,
      ttfbMs: page.ttfbMs,
      robotsTxt: result.robotsTxt,
      sitemapXml: result.sitemapXml,
      llmsTxt: result.llms.state,
      llmsFullTxt: result.llmsFullState,
      ...result.signals,
      access: result.access,
    },
    score: result.score,
    scoreMax: SCORE_MAX,
    rubricVersion: RUBRIC_VERSION,
    rubric: RUBRIC.map((item) => ({ ...item })),
    scoring: result.scoring,
    findings: withRenderedFindings(result.findings, view.findings),
  };
  return { report, limits: view.limits };
}

/**
 * The free GET description of the check: what is fetched, the crawler table, the rubric and the limits.
 * @example visibilityCheckDescription().rubric.length // 18
 */
export function visibilityCheckDescription() {
  return {
    name: 'AI Visibility Check',
    description:
      'Fetches one public page, the page again as Markdown, and its site files (robots.txt, sitemap, llms.txt and up to 5 of its links, llms-full.txt, tdmrep.json), reports what 15 search and AI crawlers may fetch under robots.txt and what agents can read beyond the page, and scores the page 0-100 against the published rubric, with findings ordered by severity. Nothing is charged when the page cannot be fetched.',
    checkVersion: CHECK_VERSION,
    rubricVersion: RUBRIC_VERSION,
    scoreMax: SCORE_MAX,
    scoringRule:
      `The score is the sum of the points earned per rubric item. A blocking failure (the page answers non-2xx, carries noindex for search crawlers, or robots.txt disallows it for Googlebot, an unreachable robots.txt included) caps the score at ${BLOCKING_SCORE_CAP}. Response time is reported but not scored.`,
    fetched: {
      page: `the address given, following up to 5 redirects, reading at most ${PAGE_MAX_BYTES / 1024} KB`,
      site: [
        'the page again with Accept: text/markdown',
        '/robots.txt',
        '/sitemap.xml (else the first Sitemap: of robots.txt; of a sitemap index, its first child)',
        '/llms.txt and up to 5 of its links',
        '/llms-full.txt',
        '/.well-known/tdmrep.json',
        'http://<host>/ for https pages',
      ],
      probes: `the final page address once as a desktop browser and once as each of the ${PROBED_CRAWLERS.length} crawlers that send requests, with its published user agent, at most ${ACCESS_PROBE_CONCURRENCY} at a time, reading at most ${ACCESS_PROBE_MAX_BYTES / 1024} KB each`,
      budgetSeconds: CHECK_BUDGET_MS / 1000,
      maxRequests: MAX_REQUESTS_PER_CHECK,
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
      rendersJavaScript: c.rendersJavaScript,
    })),
    rubric: RUBRIC.map((item) => ({ ...item })),
    limits: [...VISIBILITY_LIMITS],
  };
}
