// The CPU half of the AI Visibility Check: everything that reads what a site sent (robots.txt, the page's
// HTML, the sitemap, llms.txt) and turns it into the report's facts, verdicts and score. Plain data in,
// plain data out, no I/O: check.ts fetches, then hands the bytes to these functions on a worker thread
// (analysis-pool.ts), where a file that makes them run away is stopped without stopping the server.

import { assessAccess, type AccessProbes } from './access';
import type { SiteAccess } from './access-types';
import { BROWSER_USER_AGENT, decideCrawlers, type CrawlerVerdict } from './crawlers';
import { extractPageWithExtras, type PageFacts } from './extract';
import { pathAndQueryOf, robotsFromResponse, robotsSummary, type RobotsAccess } from './robots';
import { assessLlmsTxt, isHtml, type LlmsTxtAssessment } from './llms-txt';
import { scoreReport, type Finding, type ScoringLine } from './rubric';
import {
  assessLlmsLinks,
  contentSignalConflicts,
  contentUsage,
  firstSitemapChild,
  licensing,
  llmsTxtLinkTargets,
  markdownOffer,
  rslLicense,
  sitemapListsPage,
  tdmFromFile,
  tdmFromPairs,
  type ContentUsage,
  type Licensing,
  type LlmsLinkFetch,
  type LlmsTxtLinks,
  type MarkdownOffer,
} from './site-signals';
import { aiCatalogFollowUrls, aiCatalogLocation, assessAiCatalog, type AiCatalogFiles, type AiCatalogLocation } from './ai-catalog';
import { agentSurfaces, linkHeaderRelations, SURFACE_KINDS, SURFACE_PATHS, type AgentSurfaces, type SurfaceFile, type SurfaceKind } from './agent-surfaces';
import { aiUse, type AiUse } from './ai-use';
import { commerce, type Commerce } from './commerce';
import { assessRsl, type RslFile, type RslReport } from './rsl';
import { compareRendering, type RenderCapture, type RenderComparison, type ServedPage } from './render/compare';
import { catchAllOf, presence, siteFileStates, type SiteFileStates } from './soft-404';
import { markdownPages, type MarkdownPages } from './markdown-pages';

/** One fetched site file as the analysis needs it; `status: null` when it could not be fetched. */
export interface FetchedFile {
  status: number | null;
  contentType: string | null;
  body: string | null;
  bytesRead: number;
  truncated: boolean;
}

/** The page after redirects, with the headers extraction reads (lowercased names, repeats kept). */
export interface FetchedPage {
  url: string;
  status: number;
  headers: Array<[string, string]>;
  body: string;
  truncated: boolean;
  redirects: number;
}

export interface SiteFiles {
  robots: FetchedFile;
  /** /sitemap.xml, or the sitemap robots.txt declares when /sitemap.xml is not one. */
  sitemap: FetchedFile & { url: string | null };
  /** When `sitemap` is a sitemap index, its first child as fetched; else null. */
  sitemapChild: (FetchedFile & { url: string }) | null;
  llms: FetchedFile;
  llmsFull: FetchedFile;
  /** The first links of /llms.txt (site-signals.ts LLMS_LINKS_MAX), as fetched. */
  llmsLinks: LlmsLinkFetch[];
  /** /.well-known/tdmrep.json. */
  tdmrep: FetchedFile;
  httpRedirectsToHttps: boolean | null;
  /** The well-known agent surfaces (agent-surfaces.ts); absent when they were not requested. */
  surfaces?: Record<SurfaceKind, SurfaceFile>;
  /** The RSL licence robots.txt or the page's Link header names; null or absent when none was fetched. */
  rsl?: RslFile | null;
  /** The TDMRep policy the header or tdmrep.json names, as it answered; null or absent when none was fetched. */
  tdmPolicy?: { url: string; status: number | null } | null;
  /** What a path of the origin that cannot exist answered (not-found-probe.ts); null or absent when it was not asked. */
  notFoundProbe?: FetchedFile | null;
  /** The AI Catalog and the cards followed from it (ai-catalog.ts); absent when it was not looked for. */
  aiCatalog?: AiCatalogFiles;
}

/** The page URL fetched with `Accept: text/markdown`: its status and content type, null when it got no answer. */
export interface MarkdownAnswer {
  status: number | null;
  contentType: string | null;
  /** The first 64 KiB of a text/markdown answer, to compare with the page; null (or absent) otherwise. */
  body?: string | null;
}

interface SitemapPlan {
  isSitemap: boolean;
  /** The first `Sitemap:` of robots.txt, to fetch when /sitemap.xml is not a sitemap; else null. */
  declared: string | null;
  /** When /sitemap.xml is a sitemap index, the address of its first child; else null. */
  child: string | null;
}

/** The report's site signals beyond the page (visibility check v2). */
export interface SiteSignals {
  /** The v2 offer, and (v4) what the page and `/` each answered to `Accept: text/markdown`. */
  markdown: MarkdownOffer & MarkdownPages;
  llmsTxtLinks: LlmsTxtLinks;
  sitemapListsPage: boolean | null;
  contentUsage: ContentUsage[];
  /** `tdmPolicyReachable`: whether the policy in effect answered 2xx; null when none is named or it was not fetched (a policy only the meta tag names). */
  licensing: Licensing & { rsl: RslReport | null; tdmPolicyReachable: boolean | null };
  /** Visibility check v3: what the site offers agents, one answer on AI use, and what a crawler must pay. */
  agentSurfaces: AgentSurfaces;
  aiUse: AiUse;
  commerce: Commerce;
  /** Visibility check v4: each site file's state, soft 404s told apart (soft-404.ts). */
  siteFiles: SiteFileStates;
}

export interface SiteAnalysis {
  page: PageFacts;
  crawlers: CrawlerVerdict[];
  robotsState: RobotsAccess['state'] | 'soft-404';
  robotsTxt: Omit<ReturnType<typeof robotsSummary>, 'state'> & { state: RobotsAccess['state'] | 'soft-404' };
  sitemapXml: { url: string | null; status: number | null; isSitemap: boolean };
  llms: LlmsTxtAssessment;
  llmsFullState: 'found' | 'missing' | 'soft-404';
  https: { finalUrlHttps: boolean; httpRedirectsToHttps: boolean | null };
  signals: SiteSignals;
  access: SiteAccess;
  score: number;
  scoring: ScoringLine[];
  findings: Finding[];
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

/**
 * Whether /sitemap.xml is a sitemap and, when it is not, which sitemap robots.txt declares instead.
 * @example planSitemap(robotsFile, sitemapFile) // { isSitemap: false, declared: 'https://site.test/map.xml', child: null }
 */
function planSitemap(robots: FetchedFile, sitemap: FetchedFile & { url?: string | null }): SitemapPlan {
  const isSitemap = isSitemapDocument(sitemap.status, sitemap.body);
  if (isSitemap) return { isSitemap, declared: null, child: firstSitemapChild(sitemap.body, sitemap.url ?? null) };
  const access = robotsFromResponse(robots.status, robots.body);
  return { isSitemap, declared: access.state === 'found' ? (access.robots.sitemaps[0] ?? null) : null, child: null };
}

/**
 * The first child of a sitemap index (the declared sitemap, fetched after robots.txt named it); null when
 * it is not an index.
 * @example sitemapChildOf(declaredSitemap) // 'https://site.test/sitemap-1.xml'
 */
function sitemapChildOf(sitemap: FetchedFile & { url: string | null }): string | null {
  return isSitemapDocument(sitemap.status, sitemap.body) ? firstSitemapChild(sitemap.body, sitemap.url) : null;
}

/**
 * The links of /llms.txt to follow: none unless it answered 2xx with something other than an HTML page.
 * @example llmsLinksOf(llmsFile, 'https://site.test/llms.txt') // ['https://site.test/guide.md', …]
 */
function llmsLinksOf(llms: FetchedFile, url: string): string[] {
  if (llms.status === null || llms.status < 200 || llms.status > 299 || !llms.body || isHtml(llms.contentType, llms.body)) return [];
  return llmsTxtLinkTargets(llms.body, url);
}

/**
 * The well-known surfaces as a report shows them when they were not requested: no answer from any.
 * @example notFetchedSurfaces('https://s.test').apiCatalog.status // null
 */
function notFetchedSurfaces(origin: string): Record<SurfaceKind, SurfaceFile> {
  return Object.fromEntries(SURFACE_KINDS.map((k) => [k, { url: new URL(SURFACE_PATHS[k], origin).href, status: null, contentType: null, body: null, truncated: false }])) as Record<SurfaceKind, SurfaceFile>;
}

/**
 * The address of the RSL licence to fetch: the robots.txt `License:` line, else the page's `Link` header with
 * `rel="license"` and `type="application/rsl+xml"`; an http(s) address resolved against the page, or null.
 * @example licenceUrl(robotsFile, [], 'https://s.test/a') // 'https://s.test/license.xml'
 */
function licenceUrl(robots: FetchedFile, pageLinks: readonly string[], pageUrl: string): string | null {
  const ok = robots.status !== null && robots.status >= 200 && robots.status < 300;
  // A Link rel="license" counts only when typed as RSL: most name a human-readable licence (Creative Commons),
  // which is not an RSL document and must not be reported as a broken one.
  const named = (ok ? rslLicense(robots.body) : null) ?? linkHeaderRelations(pageLinks, pageUrl).find((l) => l.rel === 'license' && l.type === 'application/rsl+xml')?.href ?? null;
  if (named === null) return null;
  try {
    const url = new URL(named, pageUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** An http(s) address resolved against the page, or null. */
function httpHref(href: string | null, base: string): string | null {
  if (href === null) return null;
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The TDMRep policy to fetch, from the channels known before the page is parsed: the header, else the rule of
 * tdmrep.json for the page (the meta tag, which beats both, is read only with the page).
 * @example tdmPolicyUrl(tdmrepFile, { reservation: '1', policy: '/policy.json' }, 'https://s.test/a') // 'https://s.test/policy.json'
 */
function tdmPolicyUrl(tdmrep: FetchedFile, header: { reservation: string | null; policy: string | null }, pageUrl: string): string | null {
  const fromHeader = tdmFromPairs(header.reservation, header.policy);
  if (fromHeader) return httpHref(fromHeader.policy, pageUrl);
  const ok = tdmrep.status !== null && tdmrep.status >= 200 && tdmrep.status < 300;
  return ok ? httpHref(tdmFromFile(tdmrep.body, new URL(pageUrl).pathname)?.policy ?? null, pageUrl) : null;
}

/** Whether the policy in effect answered 2xx: null when none is named, or the one fetched is not the one in effect. */
function tdmPolicyReachable(policy: string | null, fetched: { url: string; status: number | null } | null, pageUrl: string): boolean | null {
  if (policy === null || fetched === null || httpHref(policy, pageUrl) !== fetched.url) return null;
  return fetched.status !== null && fetched.status >= 200 && fetched.status < 300;
}

/**
 * Reads the page and the site files and scores them against the rubric. `markdownHome` is what `/` answered to
 * `Accept: text/markdown`; null when the page is `/` (its own answer is `/`'s).
 * @example analyseSite(page, files).score // 0..100
 */
export function analyseSite(
  page: FetchedPage,
  files: SiteFiles,
  markdown: MarkdownAnswer = { status: null, contentType: null },
  probes: AccessProbes | null = null,
  markdownHome: MarkdownAnswer | null = { status: null, contentType: null },
): SiteAnalysis {
  const headers = { headerAll: (name: string) => page.headers.filter(([n]) => n === name.toLowerCase()).map(([, v]) => v) };
  const contentType = headers.headerAll('content-type')[0] ?? null;
  const pageText: string[] = [];
  const { facts, extras } = extractPageWithExtras(page.body, page.url, headers, page.truncated, pageText);
  const finalUrl = new URL(page.url);
  const pagePath = pathAndQueryOf(finalUrl);
  const decided = decideCrawlers(robotsFromResponse(files.robots.status, files.robots.body), pagePath);
  const access = assessAccess(probes, BROWSER_USER_AGENT);
  const decisions = {
    ...decided,
    crawlers: decided.crawlers.map(({ verdict, line }) => ({ verdict: { ...verdict, access: access.byToken.get(verdict.token)?.access ?? verdict.access }, line })),
  };
  const robots = decisions.access;
  const sitemapIsSitemap = isSitemapDocument(files.sitemap.status, files.sitemap.body);
  const llmsAssessed = assessLlmsTxt(files.llms.status, files.llms.contentType, files.llms.body);
  const siteFiles = siteFileStates(files, { llms: llmsAssessed, isSitemap: sitemapIsSitemap });
  // The crawler verdicts read robots.txt as crawlers do (a catch-all page holds no rules: all allowed); the
  // report's state says what the file is.
  const robotsSoft = siteFiles.robotsTxt.state === 'soft-404';
  const robotsRead = robotsSummary(robots);
  const robotsTxt = { ...robotsRead, ...(robotsSoft ? { state: 'soft-404' as const } : {}) };
  const finalUrlHttps = finalUrl.protocol === 'https:';
  const https = { finalUrlHttps, httpRedirectsToHttps: finalUrlHttps ? files.httpRedirectsToHttps : false };
  const headTruncated = page.truncated && !/<\/head\s*>|<body[\s>]/i.test(page.body);
  const sitemapXml = { url: files.sitemap.url, status: files.sitemap.status, isSitemap: sitemapIsSitemap };
  const llms: LlmsTxtAssessment = { ...llmsAssessed, state: presence(siteFiles.llmsTxt) };
  const full = files.llmsFull;
  const llmsFullState = presence(siteFiles.llmsFullTxt);

  // Each crawler's live probe (not-probed without probes): the scored access items read it next to robots.txt.
  const crawlers = decisions.crawlers;
  const tdmrepOk = files.tdmrep.status !== null && files.tdmrep.status >= 200 && files.tdmrep.status < 300;
  const rsl = files.rsl ? assessRsl(files.rsl, page.url) : null;
  const contentUsageList = contentUsage(robots.state === 'found' ? robots.robots : null);
  const licensingSignals = licensing(
    {
      file: tdmrepOk ? tdmFromFile(files.tdmrep.body, finalUrl.pathname) : null,
      header: tdmFromPairs(headers.headerAll('tdm-reservation')[0] ?? null, headers.headerAll('tdm-policy')[0] ?? null),
      meta: tdmFromPairs(extras.tdmMeta.reservation, extras.tdmMeta.policy),
    },
    robots.state === 'found' ? rslLicense(files.robots.body) : null,
  );
  const commerceAnswers = [
    { source: 'page', status: page.status, headers: page.headers },
    ...(probes ? probes.crawlers.map((p) => ({ source: p.token, status: p.status, headers: p.headers })) : []),
  ];
  const offer = markdownOffer(markdown, extras.markdownAlternate, { title: facts.title, text: pageText });
  const pages = markdownPages(markdown, markdownHome, markdownHome === null, { title: facts.title, html: page.body, text: pageText });
  // Credit only for Markdown of this page: the same Markdown for every address is another page's.
  const matchesPage = pages.page === 'nothing' ? offer.matchesPage : pages.page === 'this-page';
  const signals: SiteSignals = {
    markdown: { ...offer, matchesPage, offered: matchesPage === true || offer.alternate !== null, ...pages },
    llmsTxtLinks: assessLlmsLinks(files.llmsLinks),
    sitemapListsPage: sitemapListsPage(
      page.url,
      { isSitemap: sitemapXml.isSitemap, body: files.sitemap.body, truncated: files.sitemap.truncated },
      files.sitemapChild && { isSitemap: isSitemapDocument(files.sitemapChild.status, files.sitemapChild.body), body: files.sitemapChild.body, truncated: files.sitemapChild.truncated },
    ),
    contentUsage: contentUsageList,
    licensing: { ...licensingSignals, rsl, tdmPolicyReachable: tdmPolicyReachable(licensingSignals.tdmPolicy, files.tdmPolicy ?? null, page.url) },
    agentSurfaces: {
      ...agentSurfaces(headers.headerAll('link'), files.surfaces ?? notFetchedSurfaces(finalUrl.origin), page.url, catchAllOf(files.notFoundProbe)),
      aiCatalog: files.aiCatalog ? assessAiCatalog(files.aiCatalog, finalUrl.origin, catchAllOf(files.notFoundProbe)) : null,
    },
    aiUse: aiUse({
      pagePath,
      robotsBody: robots.state === 'found' ? files.robots.body : null,
      robotsFound: robots.state === 'found',
      crawlers: decisions.crawlers.map((c) => c.verdict),
      contentUsage: contentUsageList,
      contentSignalHeader: headers.headerAll('content-signal'),
      contentUsageHeader: headers.headerAll('content-usage'),
      licensing: licensingSignals,
      rsl,
      noindex: facts.noindexMeta || facts.noindexHeader,
    }),
    commerce: commerce(commerceAnswers),
    siteFiles,
  };

  const { score, scoring, findings } = scoreReport({
    finalUrl: page.url,
    status: page.status,
    contentType,
    redirects: page.redirects,
    page: facts,
    headTruncated,
    bytesTruncated: page.truncated,
    parseLimit: extras.parseLimit,
    crawlers: crawlers.map(({ verdict, line }) => ({ ...verdict, line })),
    robots: { ...robotsRead, ...(robots.state === 'unreachable' && robots.tooComplex ? { tooComplex: robots.tooComplex } : {}) },
    https,
    sitemapXml,
    llmsTxt: llms,
    llmsFullTxt: { state: llmsFullState, status: full.status, bytesRead: full.bytesRead, truncated: full.truncated },
    signals: { ...signals, contentSignalConflicts: contentSignalConflicts(robots, decisions.crawlers.map((c) => c.verdict)) },
    access: { browserStatus: access.site.browserStatus, evidence: Object.fromEntries([...access.byToken].map(([token, r]) => [token, r.evidence])) },
  });

  return {
    page: facts,
    crawlers: crawlers.map((c) => c.verdict),
    robotsState: robotsSoft ? 'soft-404' : robots.state,
    robotsTxt,
    sitemapXml,
    llms,
    llmsFullState,
    https,
    signals,
    access: access.site,
    score,
    scoring,
    findings,
  };
}

/** The work an analysis thread can be asked to do (analysis-pool.ts). */
export type AnalysisTask =
  | { kind: 'sitemap-plan'; robots: FetchedFile; sitemap: FetchedFile & { url?: string | null } }
  | { kind: 'sitemap-child'; sitemap: FetchedFile & { url: string | null } }
  | { kind: 'llms-links'; llms: FetchedFile; url: string }
  | { kind: 'licence-url'; robots: FetchedFile; pageLinks: string[]; pageUrl: string; pageBody: string }
  | { kind: 'tdm-policy-url'; tdmrep: FetchedFile; header: { reservation: string | null; policy: string | null }; pageUrl: string }
  | { kind: 'ai-catalog-follow'; catalog: SurfaceFile; pageUrl: string }
  | { kind: 'site'; page: FetchedPage; files: SiteFiles; markdown?: MarkdownAnswer; probes?: AccessProbes; markdownHome?: MarkdownAnswer | null }
  | { kind: 'rendering'; served: ServedPage; capture: RenderCapture };

/** What each kind of task answers. */
export interface AnalysisResults {
  'sitemap-plan': SitemapPlan;
  'sitemap-child': { child: string | null };
  'llms-links': { links: string[] };
  /** The RSL licence and the AI Catalog robots.txt and the page name: one task, as both read the same files. */
  'licence-url': { url: string | null; aiCatalog: AiCatalogLocation };
  'tdm-policy-url': { url: string | null };
  'ai-catalog-follow': { urls: string[] };
  site: SiteAnalysis;
  rendering: RenderComparison;
}

export type AnalysisResult = AnalysisResults[keyof AnalysisResults];

/**
 * Runs one task; what the analysis thread calls for each message.
 * @example runAnalysisTask({ kind: 'sitemap-plan', robots, sitemap }) // { isSitemap, declared, child }
 */
export function runAnalysisTask(task: AnalysisTask): AnalysisResult {
  switch (task.kind) {
    case 'sitemap-plan':
      return planSitemap(task.robots, task.sitemap);
    case 'sitemap-child':
      return { child: sitemapChildOf(task.sitemap) };
    case 'llms-links':
      return { links: llmsLinksOf(task.llms, task.url) };
    case 'licence-url': {
      const robotsOk = task.robots.status !== null && task.robots.status >= 200 && task.robots.status < 300;
      const aiCatalog = aiCatalogLocation({ robots: task.robots.body, robotsOk, pageBody: task.pageBody, pageLinks: task.pageLinks, pageUrl: task.pageUrl });
      return { url: licenceUrl(task.robots, task.pageLinks, task.pageUrl), aiCatalog };
    }
    case 'tdm-policy-url':
      return { url: tdmPolicyUrl(task.tdmrep, task.header, task.pageUrl) };
    case 'ai-catalog-follow':
      return { urls: aiCatalogFollowUrls(task.catalog, task.pageUrl) };
    case 'site':
      return analyseSite(task.page, task.files, task.markdown, task.probes ?? null, task.markdownHome === undefined ? { status: null, contentType: null } : task.markdownHome);
    case 'rendering':
      return compareRendering(task.served, task.capture);
  }
}
