// The AI Visibility Check: fetch one page and the few site files that decide its visibility, then
// assemble the published report. All network access goes through safeFetch (SSRF guards, size caps), and every
// request asks the check's outbound gate first (outbound.ts: a budget per domain and minute, a cap per check for
// any domain that is not the page's own).
//
// Request plan, chosen so that a page that fails costs the world one request:
//   first:    the page alone, following its redirects.
//   then, only if the page finally answered 2xx, at once:
//             the page again with `Accept: text/markdown` and, unless the page is `/`, `/` the same way
//             (markdown-pages.ts), and the site files of the origin that answered:
//             /robots.txt, /sitemap.xml, /llms.txt, /llms-full.txt, /.well-known/tdmrep.json, the seven well-known
//             agent surfaces (agent-surfaces.ts), one random path that cannot exist (its answer tells a
//             catch-all page from a file: soft-404.ts), and (https only) http://host/; each dependent request as soon
//             as the file it depends on arrived:
//               - the RSL licence robots.txt's License: line (or the page's Link rel="license" typed application/rsl+xml) names;
//               - the AI Catalog robots.txt's Agentmap: line, the page's rel="ai-catalog" link or header names (else the
//                 well-known one), then up to 2 cards it lists on the page's origin (ai-catalog.ts);
//               - the TDMRep policy the page's tdm-policy header or tdmrep.json names (whether it answers);
//               - up to 5 links of /llms.txt (site-signals.ts LLMS_LINKS_MAX);
//               - only if /sitemap.xml is not a sitemap, the first `Sitemap:` URL of robots.txt, and only if
//                 the sitemap is an index, its first child (the longest chain: 3 requests deep);
//             the access probes of the final address (access-probes.ts: a browser and each crawler, 4 at a
//             time), the final address once more unsigned when the page was fetched signed (signed-agent.ts),
//             and the rendered view (render/), whose browser fetches through safeFetch as well.
// Every request under our own user agent is signed with Web Bot Auth when the service has a key; the crawler
// and browser probes, sent under other user agents, never are.
//   A page that answers anything else is reported as it answered, with nothing else fetched.
// The site signals (signal-fetches.ts) add at most 2 requests per check and 7 per origin probed; the agent
// surfaces, the licence, the TDMRep policy, the AI Catalog and its cards 12 more per origin, each followed at most 2 redirects.
// Everything shares one AbortSignal carrying the whole-check budget.

import { TaskDeadlineError, TaskQueueTimeoutError, TaskThreadError } from '@/lib/worker-pool';
import { CRAWLERS, type CrawlerVerdict } from './crawlers';
import type { FetchedFile, FetchedPage, SiteFiles, SiteSignals } from './analysis';
import { ACCESS_PROBE_MAX_BYTES } from './access';
import { ACCESS_PROBE_CONCURRENCY, ACCESS_PROBE_MAX_REQUESTS, PROBED_CRAWLERS, runAccessProbes } from './access-probes';
import type { SiteAccess } from './access-types';
import { analyse } from './analysis-pool';
import { PAGE_READ_MAX_BYTES, VISIBILITY_SUMMARY } from './published';
import type { PageFacts } from './extract';
import { ROBOTS_MAX_BYTES, type RobotsAccess } from './robots';
import { SEVERITY_RULE } from '@/lib/checks/severity';
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
import { MAX_REDIRECTS, FetchFailedError, FetchRefusedError, OutboundRefusedError, safeFetch, type FetchResult, type LookupFn, type SafeFetchOptions } from '@/lib/outbound/safe-fetch';
import { createOutboundGate, MAX_LOOKUPS_PER_CHECK, THIRD_PARTY_REQUESTS_PER_DOMAIN, type OutboundGate, type OutboundRefused, type OutboundSpend, type OutboundSummary } from '@/lib/outbound/outbound';
import { resolveHostMap, type HostMap } from '@/lib/outbound/host-map';
import { createRequestLog, type RequestList } from '@/lib/outbound/request-log';
import {
  fetchAgentSurfaces,
  fetchAiCatalog,
  fetchAiCatalogCards,
  fetchLlmsLinks,
  fetchMarkdownAnswer,
  fetchRslLicence,
  fetchTdmPolicy,
  fetchTdmrep,
  SIGNAL_REQUESTS_PER_CHECK,
  SIGNAL_REQUESTS_PER_ORIGIN,
  SURFACE_MAX_REDIRECTS,
  SURFACE_REQUESTS_PER_ORIGIN,
} from './signal-fetches';
import { fetchNotFoundProbe, NOT_FOUND_PROBE_REQUESTS_PER_ORIGIN } from './not-found-probe';
import { InvalidTargetUrl, normalizeTargetUrl } from '@/lib/outbound/target-url';
import { renderedView, withRenderedFindings, type PageRendering } from './render';
import { RENDER_MAX_REDIRECTS, RENDER_MAX_REQUESTS } from './render/render';
import { capReport } from './report-caps';
import { compareSignedAgent, signedAgentNotCompared, SIGNED_AGENT_MAX_REQUESTS, type SignedAgentAccess } from './signed-agent';
import { processBotIdentity, type BotIdentity } from '@/lib/outbound/web-bot-auth';
import { scoreBasisOf, type ScoreBasis } from './score-basis';

export const CHECK_VERSION = '4.0.0';
/** Whole-check budget: every request of one check shares it. */
export const CHECK_BUDGET_MS = 20_000;
/** The page may use most of the budget; the site files are small and get less. */
export const PAGE_TIMEOUT_MS = 15_000;
const PROBE_TIMEOUT_MS = 10_000;
export const PAGE_MAX_BYTES = PAGE_READ_MAX_BYTES;
// Only the root element of a sitemap is looked at, and only presence and shape of llms-full.txt.
const SITEMAP_MAX_BYTES = 64 * 1024;
const LLMS_MAX_BYTES = 128 * 1024;
const LLMS_FULL_MAX_BYTES = 8 * 1024;

/** Site files fetched per origin: robots.txt, /sitemap.xml, llms.txt, llms-full.txt, http://host/, a declared sitemap, and the path that cannot exist. */
const SITE_FILES_PER_ORIGIN = 6 + NOT_FOUND_PROBE_REQUESTS_PER_ORIGIN;
/**
 * The most HTTP requests one check can make, redirects included: the page and its Markdown variant, the site
 * files and site-signal requests of the origin that answered, the access probes, and, when the rendered view
 * runs, the browser's subrequests (to any host). Stated in the free GET; tests/visibility/request-bound.test.ts
 * holds a check to it. Of these, any one domain other than the page's own gets at most
 * THIRD_PARTY_REQUESTS_PER_DOMAIN.
 */
export const MAX_REQUESTS_PER_CHECK =
  (1 + MAX_REDIRECTS) * (1 + SIGNAL_REQUESTS_PER_CHECK + SITE_FILES_PER_ORIGIN + SIGNAL_REQUESTS_PER_ORIGIN) +
  (1 + SURFACE_MAX_REDIRECTS) * SURFACE_REQUESTS_PER_ORIGIN +
  ACCESS_PROBE_MAX_REQUESTS +
  SIGNED_AGENT_MAX_REQUESTS +
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
  /** Overrides ANALYSIS_CPU_BUDGET_MS, the processor time the parsing and scoring of one step may use (tests). */
  analysisCpuBudgetMs?: number;
  /**
   * Counts each request against its registrable domain's budget for the minute (outbound.ts). The paid
   * operation passes one over the store; without it only the per-check cap for third parties applies.
   */
  spendOutbound?: OutboundSpend;
  /** Told once the page first answered (any HTTP status), before anything else is requested. */
  siteAnswered?: () => void;
  /**
   * Who pays for the check (a credits key's hash, or the verified payer): the renderer gives each owner one
   * rendering slot at a time and serves owners in turn. Unset: the check is an owner of its own.
   */
  renderOwner?: string;
  /** Signs the check's own requests (Web Bot Auth); unset: the process's key (WEB_BOT_AUTH_KEY), null: unsigned. */
  signer?: BotIdentity | null;
}

type PresenceState = 'found' | 'missing' | 'soft-404';

interface VisibilitySite {
  requestedUrl: string;
  redirects: Array<{ url: string; status: number }>;
  https: { finalUrlHttps: boolean; httpRedirectsToHttps: boolean | null };
  ttfbMs: number;
  robotsTxt: { state: RobotsAccess['state'] | 'soft-404'; status: number | null; sitemaps: string[]; contentSignals: string[] };
  sitemapXml: { url: string | null; status: number | null; isSitemap: boolean };
  llmsTxt: PresenceState;
  llmsFullTxt: PresenceState;
  /** Visibility check v2: what agents can read beyond the page (site-signals.ts). */
  markdown: SiteSignals['markdown'];
  llmsTxtLinks: SiteSignals['llmsTxtLinks'];
  sitemapListsPage: SiteSignals['sitemapListsPage'];
  contentUsage: SiteSignals['contentUsage'];
  licensing: SiteSignals['licensing'];
  /** Visibility check v3: the agent surfaces, one answer on AI use, and the payment challenges seen. */
  agentSurfaces: SiteSignals['agentSurfaces'];
  aiUse: SiteSignals['aiUse'];
  commerce: SiteSignals['commerce'];
  /** v4 adds `signedAgent`: the page signed and unsigned (signed-agent.ts). */
  access: SiteAccess & { signedAgent: SignedAgentAccess };
  /** Visibility check v4: each site file's state, a site's catch-all page (soft 404) told apart. */
  siteFiles: SiteSignals['siteFiles'];
  /** Where this check's requests went, per registrable domain, and the ones it did not send. */
  outbound: OutboundSummary;
}

export interface VisibilityReport {
  checkVersion: string;
  checkedUrl: string;
  status: number;
  robotsTxt: RobotsAccess['state'] | 'soft-404';
  crawlers: CrawlerVerdict[];
  llmsTxt: PresenceState;
  page: PageFacts & { rendering: PageRendering };
  site: VisibilitySite;
  score: number;
  scoreMax: number;
  /** How much of the page the score rests on (score-basis.ts). */
  scoreBasis: ScoreBasis;
  rubricVersion: string;
  rubric: PublishedRubricItem[];
  scoring: ScoringLine[];
  findings: Finding[];
  /** Visibility check v4: every request the check sent or did not send, in the order they started (request-log.ts). */
  requests: RequestList;
}

export interface VisibilityResult {
  report: VisibilityReport;
  limits: string[];
}

type FetchOptions = Pick<SafeFetchOptions, 'signal' | 'lookup' | 'hostMap' | 'outbound' | 'signer'>;
/**
 * How the check runs its analysis steps on the pool. Only the caller's signal drops a queued step: the
 * budget bounds the fetches, and files still pending when it ran out are analysed as not fetched.
 */
type AnalysisOptions = { signal?: AbortSignal; cpuBudgetMs?: number };

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

async function fetchSitemap(url: URL, fetchOptions: FetchOptions, purpose: string): Promise<SiteFiles['sitemap']> {
  const res = await tryFetch(url, {
    ...fetchOptions,
    purpose,
    timeoutMs: PROBE_TIMEOUT_MS,
    maxBytes: SITEMAP_MAX_BYTES,
    accept: 'application/xml,text/xml;q=0.9,*/*;q=0.5',
  });
  return { ...fetchedFile(res), url: url.href };
}

async function probeHttpRedirect(origin: URL, fetchOptions: FetchOptions): Promise<boolean | null> {
  const httpUrl = new URL('/', origin);
  httpUrl.protocol = 'http:';
  const res = await tryFetch(httpUrl, { ...fetchOptions, timeoutMs: PROBE_TIMEOUT_MS, maxBytes: 1024, purpose: 'http:// to https:// redirect' });
  // No answer over http at all (port 80 closed, timeout) says nothing about a redirect: null.
  if (res === null) return null;
  return res.redirects.length > 0 && new URL(res.url).protocol === 'https:';
}

/**
 * The site files of one origin, all requested at once; the RSL licence as soon as robots.txt (or the page's
 * `Link` header) named it, and the TDMRep policy as soon as the page's header or tdmrep.json named it.
 */
async function probeSite(origin: URL, pageHeaders: Array<[string, string]>, pageUrl: string, pageBody: string, fetchOptions: FetchOptions, analysis: AnalysisOptions): Promise<SiteFiles> {
  const at = (path: string) => new URL(path, origin);
  const probe = { ...fetchOptions, timeoutMs: PROBE_TIMEOUT_MS };
  const surfaces = fetchAgentSurfaces(origin, probe);
  const [robotsRes, sitemapXml, llmsRes, llmsFullRes, httpRedirectsToHttps, tdmrep, notFoundProbe] = await Promise.all([
    tryFetch(at('/robots.txt'), { ...probe, maxBytes: ROBOTS_MAX_BYTES + 1 /* one byte over tells the matcher the file was cut */, accept: 'text/plain,*/*;q=0.5', purpose: 'robots.txt' }),
    fetchSitemap(at('/sitemap.xml'), fetchOptions, 'sitemap.xml'),
    tryFetch(at('/llms.txt'), { ...probe, maxBytes: LLMS_MAX_BYTES, accept: 'text/markdown,text/plain;q=0.9,*/*;q=0.5', purpose: 'llms.txt' }),
    tryFetch(at('/llms-full.txt'), { ...probe, maxBytes: LLMS_FULL_MAX_BYTES, accept: 'text/markdown,text/plain;q=0.9,*/*;q=0.5', purpose: 'llms-full.txt' }),
    origin.protocol === 'https:' ? probeHttpRedirect(origin, fetchOptions) : Promise.resolve(false),
    fetchTdmrep(origin, probe),
    fetchNotFoundProbe(origin, probe),
  ]);
  const robots = fetchedFile(robotsRes);
  const llms = fetchedFile(llmsRes);

  const pageHeader = (name: string) => pageHeaders.find(([n]) => n === name)?.[1] ?? null;
  const pageLinks = pageHeaders.filter(([n]) => n === 'link').map(([, v]) => v);
  // What robots.txt and the page name: the RSL licence and the AI Catalog.
  const named = analyse({ kind: 'licence-url', robots, pageLinks, pageUrl, pageBody }, analysis);
  const [{ sitemap, sitemapChild }, llmsLinks, rsl, tdmPolicy, aiCatalog] = await Promise.all([
    followSitemap(origin, robots, sitemapXml, fetchOptions, analysis),
    analyse({ kind: 'llms-links', llms, url: at('/llms.txt').href }, analysis).then(({ links }) => fetchLlmsLinks(links, probe)),
    named.then(({ url }) => (url === null ? null : fetchRslLicence(new URL(url), probe))),
    analyse({ kind: 'tdm-policy-url', tdmrep, header: { reservation: pageHeader('tdm-reservation'), policy: pageHeader('tdm-policy') }, pageUrl }, analysis).then(({ url }) =>
      url === null ? null : fetchTdmPolicy(new URL(url), probe),
    ),
    // The AI Catalog once robots.txt is known (its Agentmap: line comes first), then the cards it lists.
    named.then(async ({ aiCatalog: location }) => {
      const file = await fetchAiCatalog(location, probe);
      const { urls } = await analyse({ kind: 'ai-catalog-follow', catalog: file, pageUrl }, analysis);
      return { location, file, cards: await fetchAiCatalogCards(urls, probe) };
    }),
  ]);

  return { robots, sitemap, sitemapChild, llms, llmsFull: fetchedFile(llmsFullRes), llmsLinks, tdmrep, httpRedirectsToHttps, surfaces: await surfaces, rsl, tdmPolicy, notFoundProbe, aiCatalog };
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
    sitemap = await fetchSitemap(declaredUrl, fetchOptions, 'sitemap named in robots.txt');
    child = (await analyse({ kind: 'sitemap-child', sitemap }, analysis)).child;
  }
  const childUrl = child === null ? null : httpUrl(child, origin);
  if (childUrl === null || childUrl.href === sitemap.url) return { sitemap, sitemapChild: null };
  const fetched = await fetchSitemap(childUrl, fetchOptions, 'first sitemap of the index');
  return { sitemap, sitemapChild: { ...fetched, url: childUrl.href } };
}

/**
 * The site could not be checked: the page could not be fetched, or its files could not be analysed.
 * `message` is a reason fit to show the user (no addresses or internals). `costly` when what the site sent used
 * up an analysis thread's processor time, held the thread to its wall-clock backstop, or killed it: the caller's
 * costly-failure budget counts it. A wait in the queue, or a thread that would not start, is not costly: it says
 * the service is busy, not that this caller's site is hostile, and counting it would turn away ordinary callers
 * whenever the service is loaded.
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

/**
 * The check would have to send more requests to `domain` than its budget for the minute allows (the page
 * itself, or the files and probes a report needs). Nothing past the budget was sent; the edge answers 429
 * with Retry-After and charges nothing.
 */
export class OutboundBudgetSpent extends Error {
  readonly domain: string;
  /** The address whose budget is spent, when it was the address's rather than the domain's. */
  readonly address: string | undefined;
  /** Whole seconds until the budget's window ends, at least 1. */
  readonly retryAfterSeconds: number;
  constructor(domain: string, retryAfterMs: number, address?: string) {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    super(`${address ? `The address ${address} (of ${domain})` : domain} has had as many requests from this service as it gets in a minute, so the check stopped. Retry in ${seconds} s. Nothing was charged.`);
    this.name = 'OutboundBudgetSpent';
    this.domain = domain;
    this.address = address;
    this.retryAfterSeconds = seconds;
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
    const seconds = err.deadlineMs / 1000;
    return new SiteUnreachable(
      err.limit === 'cpu'
        ? `The site's files took more than ${seconds} s of processor time to analyse and were abandoned.`
        : `The site's files were still being analysed after ${seconds} s and were abandoned.`,
      true,
    );
  }
  if (err instanceof TaskQueueTimeoutError) {
    return new SiteUnreachable(`The service is busy: the site's files waited more than ${err.waitedMs / 1000} s for analysis. Retry shortly.`);
  }
  // A thread that could not start says the service is in trouble, not that the site is hostile.
  if (err instanceof TaskThreadError && err.starting) return new SiteUnreachable("The service is busy: the site's files could not be analysed. Retry shortly.");
  // A thread that dies under a task has usually run out of memory on what the site sent.
  if (err instanceof TaskThreadError) return new SiteUnreachable("The site's files could not be analysed.", true);
  return err;
}

/**
 * Runs the AI Visibility Check on one address.
 * @throws InvalidTargetUrl when the address is refused before any request, SiteUnreachable when the
 *   page itself cannot be fetched, OutboundBudgetSpent when the page's own domain has no requests left for the
 *   minute (the edge answers them 400 invalid-url, 422 site-unreachable and 429 rate-limited). Any HTTP answer,
 *   404 or 500 included, produces a report: the status is a finding, not a failure of the check.
 * @example
 * const { report, limits } = await checkVisibility('https://example.com/pricing', { signal, spendOutbound });
 * report.score // 0..100, scored against report.rubric; report.findings explain every point lost
 */
export async function checkVisibility(input: string, options: CheckOptions = {}): Promise<VisibilityResult> {
  if (typeof input !== 'string') throw new InvalidTargetUrl('The address must be a string.');
  const hostMap = resolveHostMap(options.hostMap);
  const target = normalizeTargetUrl(input, { allowHosts: hostMap.keys() });

  const budget = AbortSignal.timeout(options.budgetMs ?? CHECK_BUDGET_MS);
  // Aborted when the check ends either way, so requests whose answer is no longer needed stop instead of
  // holding sockets until the budget.
  const finished = new AbortController();
  const signal = AbortSignal.any([budget, finished.signal, ...(options.signal ? [options.signal] : [])]);
  const gate = createOutboundGate({ own: [target.hostname], log: createRequestLog(), ...(options.spendOutbound ? { spend: options.spendOutbound } : {}) });
  // Resolved once, so every request of the check is signed by the same key (or none is).
  const signer = options.signer !== undefined ? options.signer : await processBotIdentity();
  const fetchOptions: FetchOptions = { signal, hostMap, outbound: gate, signer, ...(options.lookup ? { lookup: options.lookup } : {}) };

  const analysis: AnalysisOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.analysisCpuBudgetMs !== undefined ? { cpuBudgetMs: options.analysisCpuBudgetMs } : {}),
  };

  try {
    return await runCheck(target, fetchOptions, gate, analysis, options.renderOwner, options.siteAnswered);
  } catch (err) {
    throw analysisFailed(err, options.signal);
  } finally {
    finished.abort();
  }
}

/** What a report holds for the site files when the page did not answer 2xx and none were requested. */
const NOT_FETCHED_FILES: SiteFiles = {
  robots: fetchedFile(null),
  sitemap: { ...fetchedFile(null), url: null },
  sitemapChild: null,
  llms: fetchedFile(null),
  llmsFull: fetchedFile(null),
  llmsLinks: [],
  tdmrep: fetchedFile(null),
  httpRedirectsToHttps: null,
};

/**
 * Findings that read the site files, the Markdown variant or the probes. When the page did not answer 2xx none
 * of those were requested, so these findings would describe requests never made and are left out.
 */
const SITE_FILE_FINDINGS: ReadonlySet<string> = new Set([
  'search-crawlers-blocked', 'search-crawlers-refused', 'ai-answer-crawlers-blocked', 'ai-answer-crawlers-refused',
  'robots-unreachable', 'robots-too-complex', 'training-crawlers-blocked', 'user-fetchers-blocked', 'noindex-hidden-by-robots',
  'content-signals', 'content-signal-conflict', 'http-not-redirected', 'sitemap-missing', 'page-not-in-sitemap',
  'markdown-not-offered', 'markdown-not-the-page', 'soft-404', 'crawler-blocked-by-server', 'agent-surface-invalid', 'agent-surfaces', 'ai-catalog-invalid', 'ai-use-conflict', 'rsl-license-unusable', 'tdm-policy-unreachable', 'pay-per-crawl',
]);
const isSiteFileFinding = (id: string) => SITE_FILE_FINDINGS.has(id) || id.startsWith('llms-txt') || id.startsWith('llms-full-txt');

/** The limit line of a report whose page did not answer 2xx. */
function notFetchedLimit(status: number): string {
  return `The page answered ${status}, so nothing else was requested: robots.txt, the sitemap, llms.txt, llms-full.txt, tdmrep.json, the well-known agent surfaces, the AI Catalog, the RSL licence, http://, the path that cannot exist, the Markdown variants and the crawler probes were not fetched, and the report makes no finding about them (their states read unreachable, missing or not-probed only because they were not asked for).`;
}

/** The limit line of a report some of whose requests the outbound gate did not send. */
function refusedLimit(refusals: readonly OutboundRefused[]): string | null {
  if (refusals.length === 0) return null;
  const domains = [...new Set(refusals.map((r) => r.domain))];
  const budget = refusals.filter((r) => r.reason === 'budget').length;
  const lookups = refusals.filter((r) => r.reason === 'lookup-cap').length;
  const cap = refusals.length - budget - lookups;
  const parts = [
    budget > 0 ? `${budget} because the domain or its address had used its requests for the minute` : null,
    cap > 0 ? `${cap} because this check sends a site other than the one checked at most ${THIRD_PARTY_REQUESTS_PER_DOMAIN} requests` : null,
    lookups > 0 ? `${lookups} because this check looks up at most ${MAX_LOOKUPS_PER_CHECK} names` : null,
  ].filter((p): p is string => p !== null);
  return `${refusals.length} requests of this check were not sent (${parts.join('; ')}), to ${domains.slice(0, 5).join(', ')}${domains.length > 5 ? ' and others' : ''}: site.outbound counts them, and what they were for reads as not answered.`;
}

async function runCheck(
  target: URL,
  fetchOptions: FetchOptions,
  gate: OutboundGate,
  analysis: AnalysisOptions,
  renderOwner: string | undefined,
  siteAnswered: (() => void) | undefined,
): Promise<VisibilityResult> {
  let page: FetchResult;
  try {
    page = await safeFetch(target, { ...fetchOptions, timeoutMs: PAGE_TIMEOUT_MS, maxBytes: PAGE_MAX_BYTES, purpose: 'the page' });
  } catch (err) {
    if (err instanceof OutboundRefusedError && err.code === 'budget') throw gate.failure() ?? new OutboundBudgetSpent(err.domain, err.retryAfterMs, err.address);
    throw unreachable(err);
  }
  siteAnswered?.();

  const finalUrl = new URL(page.url);
  gate.addOwn(finalUrl.hostname);
  const answered = page.status >= 200 && page.status <= 299;
  // The site phase's own view of the gate, so its refusals can be told from the renderer's.
  const siteRefusals: OutboundRefused[] = [];
  const noted = <R extends OutboundRefused | null>(refused: R): R => {
    if (refused) siteRefusals.push(refused);
    return refused;
  };
  const siteFetches: FetchOptions = {
    ...fetchOptions,
    outbound: {
      ...gate,
      admit: async (url) => noted(await gate.admit(url)),
      resolve: async (url, lookup) => {
        const answer = await gate.resolve(url, lookup);
        return Array.isArray(answer) ? answer : noted(answer);
      },
      admitAddress: async (url, key) => noted(await gate.admitAddress(url, key)),
    },
  };

  // Only now: a page that cannot be fetched is never rendered (nor one that answered non-2xx). Runs beside the
  // site files; never rejects.
  const rendered = renderedView(page, {
    ...fetchOptions,
    signal: fetchOptions.signal!,
    hostMap: resolveHostMap(fetchOptions.hostMap),
    analysis,
    ...(renderOwner !== undefined ? { owner: renderOwner } : {}),
  });
  const signedPage = { signed: fetchOptions.signer != null, url: page.url, status: page.status };
  // `/` is asked for Markdown too, to tell the page's own Markdown from one document served for every address;
  // when the page asked for is `/`, its answer is `/`'s (null).
  const home = new URL('/', target.origin);
  const pageIsHome = target.href === home.href;
  const noAnswer = { status: null, contentType: null, body: null };
  const [files, markdown, probes, signedAgent, markdownHome] = answered
    ? await Promise.all([
        probeSite(new URL(finalUrl.origin), page.headers, page.url, page.body, siteFetches, analysis),
        fetchMarkdownAnswer(target, { ...siteFetches, timeoutMs: PROBE_TIMEOUT_MS }),
        runAccessProbes(finalUrl, siteFetches),
        compareSignedAgent(signedPage, siteFetches),
        pageIsHome ? null : fetchMarkdownAnswer(home, { ...siteFetches, timeoutMs: PROBE_TIMEOUT_MS }),
      ])
    : [NOT_FETCHED_FILES, noAnswer, null, signedAgentNotCompared(signedPage), pageIsHome ? null : noAnswer];
  // A report whose own site's files were refused by the budget would score requests that were never sent:
  // the check stops instead, uncharged, as when the page itself is refused.
  const ownSpent = siteRefusals.find((r) => r.reason === 'budget' && gate.isOwn(r.domain));
  if (ownSpent) throw gate.failure() ?? new OutboundBudgetSpent(ownSpent.domain, ownSpent.retryAfterMs, ownSpent.address);

  const fetchedPage: FetchedPage = {
    url: page.url,
    status: page.status,
    headers: page.headers,
    body: page.body,
    truncated: page.truncated,
    redirects: page.redirects.length,
  };
  const result = await analyse({ kind: 'site', page: fetchedPage, files, markdown, markdownHome, ...(probes ? { probes } : {}) }, analysis);
  const view = await rendered;

  const report: VisibilityReport = {
    checkVersion: CHECK_VERSION,
    checkedUrl: page.url,
    status: page.status,
    robotsTxt: result.robotsState,
    // Unfetched, robots.txt decides nothing: the verdicts say so rather than quote an answer never asked for.
    crawlers: answered ? result.crawlers : result.crawlers.map((c) => ({ ...c, rule: `robots.txt was not requested: the page answered ${page.status}` })),
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
      agentSurfaces: { ...result.signals.agentSurfaces, webMcp: view.webMcp },
      access: { ...result.access, signedAgent },
      outbound: gate.summary(),
    },
    score: result.score,
    scoreMax: SCORE_MAX,
    scoreBasis: scoreBasisOf(page, result.page.truncated),
    rubricVersion: RUBRIC_VERSION,
    rubric: RUBRIC.map((item) => ({ ...item })),
    scoring: result.scoring,
    findings: withRenderedFindings(answered ? result.findings : result.findings.filter((f) => !isSiteFileFinding(f.id)), view.findings),
    requests: gate.log!.list(),
  };
  const extra = [answered ? null : notFetchedLimit(page.status), refusedLimit(gate.refusals())].filter((l): l is string => l !== null);
  // Much of the report is the site's own text: cut to the published bounds before it is stored or sent.
  return { report: capReport(report), limits: [...view.limits, ...extra] };
}

/**
 * The free GET description of the check: what is fetched, the crawler table, the rubric and the limits.
 * @example visibilityCheckDescription().rubric.length // 23
 */
export function visibilityCheckDescription() {
  return {
    name: 'AI Visibility Check',
    description: VISIBILITY_SUMMARY,
    checkVersion: CHECK_VERSION,
    rubricVersion: RUBRIC_VERSION,
    scoreMax: SCORE_MAX,
    severityRule: SEVERITY_RULE,
    scoringRule:
      `The score is the sum of the points earned per rubric item. A blocking failure (the page answers non-2xx, carries noindex for search crawlers, or robots.txt disallows it for Googlebot, an unreachable robots.txt included) caps the score at ${BLOCKING_SCORE_CAP}. Response time is reported but not scored.`,
    fetched: {
      page: `the address given, following up to 5 redirects, reading at most ${PAGE_MAX_BYTES / 1024} KB; everything below only once it finally answered 2xx (a page that fails or answers otherwise costs its site that one request and its redirects)`,
      site: [
        'the page again with Accept: text/markdown, and / the same way unless the page is /',
        'one random path that cannot exist, to tell the site\'s catch-all page (a soft 404) from a published file (16 KB)',
        '/robots.txt',
        '/sitemap.xml (else the first Sitemap: of robots.txt; of a sitemap index, its first child)',
        '/llms.txt and up to 5 of its links',
        '/llms-full.txt',
        '/.well-known/tdmrep.json',
        'http://<host>/ for https pages',
        '/.well-known/api-catalog, /.well-known/mcp/server-card, /.well-known/agent-card.json, /.well-known/oauth-authorization-server, /.well-known/oauth-protected-resource and /.well-known/http-message-signatures-directory (64 KB each, at most 2 redirects)',
        'the RSL licence robots.txt License: (or the page\'s Link rel="license" of type application/rsl+xml) names (64 KB, at most 2 redirects)',
        'the TDMRep policy the tdm-policy header or tdmrep.json names, to see that it answers (1 KB, at most 2 redirects)',
      ],
      probes: `the final page address once as a desktop browser and once as each of the ${PROBED_CRAWLERS.length} crawlers that send requests, with its published user agent, at most ${ACCESS_PROBE_CONCURRENCY} at a time, reading at most ${ACCESS_PROBE_MAX_BYTES / 1024} KB each; and, when this service signs its requests (Web Bot Auth), once more under its own user agent unsigned, to compare with the signed page fetch`,
      budgetSeconds: CHECK_BUDGET_MS / 1000,
      maxRequests: MAX_REQUESTS_PER_CHECK,
      thirdPartyRequestsPerDomain: THIRD_PARTY_REQUESTS_PER_DOMAIN,
      maxLookups: MAX_LOOKUPS_PER_CHECK,
      outbound: `Every request, each redirect hop included, is counted against the registrable domain it names and against the address it connects to (an IPv4 address, an IPv6 /64). One check sends at most ${MAX_REQUESTS_PER_CHECK} requests in all, and at most ${THIRD_PARTY_REQUESTS_PER_DOMAIN} to any domain, or any address, other than the page's own (the domain asked for, the one the page finally answered from, and the addresses they led to): render subrequests, llms.txt links, sitemap children and redirects elsewhere. It resolves each name once and at most ${MAX_LOOKUPS_PER_CHECK} names, and only after the limits above let the request through. Across all checks, each domain and each address gets at most a set number of requests a minute (120 each by default); requests past any limit are not sent and are counted in report.site.outbound. Once a check has sent its first request, it runs to its end and is charged even if its caller goes away.`,
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
