// The published 100-point rubric of the AI Visibility Check, and the pure scoring of one site's facts
// against it. Facts in, { score, scoring, findings } out: no I/O, no clock, so the same facts always give
// the same bytes. Timing (TTFB) is reported by the check but deliberately not scored: a single sample
// from our location would make the score of an unchanged site move between runs.

import { SEARCH_ROBOT_SCOPES, type PageFacts, type RobotsDirectives } from './extract';
import { ROBOTS_MATCH_BUDGET } from './robots';
import { SEVERITY_ORDER, type Severity } from '@/lib/checks/severity';

export const RUBRIC_VERSION = '1.0.0';
export const SCORE_MAX = 100;

/**
 * Blocking failures (the page answers non-2xx, it carries noindex for search crawlers, or robots.txt
 * disallows it for Googlebot, including a 5xx/unreachable robots.txt, which RFC 9309 makes a full
 * disallow) cap the total at this value. Like Lighthouse's is-crawlable audit, which is weighted so
 * failing it alone fails the SEO category, a page search engines will not index cannot score in the
 * upper range however polished the rest is: 40 keeps it in the failing band (below 50), under a
 * plain unblocked page that lets every search and AI-answer crawler in (46 from access and indexability
 * alone). Applied after summing, so scoring[] still shows what each item earned.
 */
export const BLOCKING_SCORE_CAP = 40;

export { SEVERITY_ORDER, type Severity };

export interface RubricItem {
  id: string;
  category: string;
  points: number;
  criterion: string;
}

export const RUBRIC: readonly RubricItem[] = [
  { id: 'fetch.ok', category: 'access', points: 8, criterion: 'The page answers 200 with an HTML content type (after at most 5 redirects) and its title does not read as an error page (soft 404).' },
  { id: 'crawl.search-allowed', category: 'access', points: 12, criterion: 'robots.txt allows the page for the search crawlers: Googlebot 6, Bingbot 4, Applebot 2 (Applebot follows the Googlebot group when no group names it).' },
  { id: 'crawl.ai-answers-allowed', category: 'access', points: 10, criterion: 'robots.txt allows the page for the AI answer crawlers OAI-SearchBot, Claude-SearchBot and PerplexityBot: round(10 x allowed / 3). User-triggered fetchers are reported, not scored.' },
  { id: 'robots.state', category: 'access', points: 4, criterion: 'robots.txt answers 2xx, or 4xx (no rules: everything allowed). A 5xx, 429 or no answer makes RFC 9309 crawlers treat the whole site as disallowed.' },
  { id: 'index.noindex', category: 'indexability', points: 12, criterion: 'No noindex or none in a robots meta tag or X-Robots-Tag header addressed to all robots or to Googlebot, Bingbot, MSNBot or Applebot.' },
  { id: 'index.snippet', category: 'indexability', points: 5, criterion: 'No nosnippet and no max-snippet below 50 for search crawlers, so the page stays eligible for snippets and AI Overviews (max-snippet 1-49: 2 points).' },
  { id: 'canonical.valid', category: 'indexability', points: 5, criterion: 'Exactly one rel=canonical, an http(s) URL equal to the page address (one canonical pointing elsewhere: 2 points; several or invalid: 0).' },
  { id: 'meta.title', category: 'content', points: 5, criterion: 'A <title> of 10-70 characters (present but outside that range: 3 points).' },
  { id: 'meta.description', category: 'content', points: 4, criterion: 'A meta description of 50-170 characters (present but outside that range: 2 points).' },
  { id: 'content.text', category: 'content', points: 10, criterion: 'At least 250 words of text in the HTML as served, outside script, style, noscript, template and svg (80-249 words: 5 points). Most AI fetchers do not run JavaScript.' },
  { id: 'content.h1', category: 'content', points: 3, criterion: 'Exactly one <h1> (several: 1 point).' },
  { id: 'content.lang', category: 'content', points: 2, criterion: '<html lang> is present and a well-formed BCP 47 language tag.' },
  { id: 'sd.jsonld', category: 'structured data', points: 6, criterion: 'At least one JSON-LD block and none that fails to parse (some invalid, some valid: 3 points).' },
  { id: 'sd.key-types', category: 'structured data', points: 4, criterion: 'JSON-LD names the publisher (Organization or WebSite: 2 points) and the content (Article, Product, Service or FAQPage, subtypes included: 2 points).' },
  { id: 'social.og', category: 'structured data', points: 2, criterion: 'og:title, og:description and og:image are all present (one or two of them: 1 point).' },
  { id: 'site.https', category: 'technical', points: 4, criterion: 'The final address is https (3 points) and http://<host>/ redirects to https or is not served over http at all (1 point).' },
  { id: 'site.sitemap', category: 'discovery', points: 2, criterion: '/sitemap.xml, or else the first Sitemap: of robots.txt, answers 2xx with a <urlset> or <sitemapindex> document.' },
  { id: 'site.llms-txt', category: 'discovery', points: 2, criterion: '/llms.txt follows llmstxt.org: an H1 first, a > summary, and an H2 section with at least one [name](url) link (present with an H1 but incomplete: 1 point).' },
];

/** What a fetch-only check cannot see; returned with every report (SPEC 1 item 7). */
export const VISIBILITY_LIMITS: readonly string[] = [
  'Only the HTML as served is read. Content that JavaScript renders in the browser is not seen; Google renders pages, most AI fetchers do not.',
  'One request is made, from our server, with our own user agent. CDN, WAF or bot-management rules that treat crawlers differently by user agent, IP address, network or verified-bot status are not visible: a site can answer us and block GPTBot, or the reverse.',
  'Logged-in, paywalled, cookie-, geography- or experiment-dependent variants of the page are not seen.',
  'Crawler behaviour is not observed: whether a crawler honours robots.txt, how often it crawls, how long it caches robots.txt (up to 24 hours), or whether a user-triggered fetcher ignores robots.txt, as some vendors say theirs may.',
  'Nothing is known about outcomes: whether the page is indexed, ranked, cited in AI answers or used for training. The score implies no ranking, traffic or citation result.',
  'Only this page is examined. Other pages are not crawled; the sitemap and llms.txt are checked for existence and shape, not for the pages they list.',
  'Robots rules and headers on other hosts (CDN, image or script hosts) and blocked CSS or JavaScript resources are not checked.',
  'Licensing or legal signals other than robots.txt, Content-Signal, robots meta tags and X-Robots-Tag (for example TDMRep, ai.txt or contracts) are not read.',
  'Response time is one sample from our location and varies; it is reported but not scored.',
  'Pages larger than 512 KB are read only up to 512 KB; content after that point is not seen.',
];

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

export interface ScoredCrawler {
  token: string;
  role: string;
  allowed: boolean;
  /** The robots.txt line that decided, or the status explanation when robots.txt was not a 2xx. */
  rule: string | null;
  group: string | null;
  line?: number | null;
}

export type LlmsTxtLevel = 'valid' | 'partial' | 'invalid' | 'missing' | 'error';

export interface LlmsTxtAssessment {
  /** What the report shows: a non-HTML 2xx body is "found", anything else "missing". */
  state: 'found' | 'missing';
  level: LlmsTxtLevel;
  status: number | null;
  /** Why it is not valid, in plain words; empty when valid. */
  problems: string[];
}

export interface ScoreInput {
  /** The address that answered, after redirects. */
  finalUrl: string;
  status: number;
  contentType: string | null;
  redirects: number;
  page: PageFacts;
  /** True when the 512 KB cut fell before </head> closed, so head metadata may be missing. */
  headTruncated: boolean;
  crawlers: readonly ScoredCrawler[];
  robots: {
    state: 'found' | 'missing' | 'unreachable';
    status: number | null;
    contentSignals: readonly string[];
    /** Set when a 2xx robots.txt was too costly to match (robots.ts ROBOTS_MATCH_BUDGET) and counts as unreachable. */
    tooComplex?: { rules: number; pathLength: number; cost: number };
  };
  https: { finalUrlHttps: boolean; httpRedirectsToHttps: boolean | null };
  sitemapXml: { url: string | null; status: number | null; isSitemap: boolean };
  llmsTxt: LlmsTxtAssessment;
  llmsFullTxt: { state: 'found' | 'missing'; status: number | null; bytesRead: number; truncated: boolean };
}

export interface Finding {
  id: string;
  severity: Severity;
  rubric: string | null;
  pointsLost: number;
  observed: string;
  why: string;
  fix: string;
}

export interface ScoringLine {
  id: string;
  points: number;
  earned: number;
}

export interface ScoreResult {
  score: number;
  scoring: ScoringLine[];
  findings: Finding[];
}

// ---------------------------------------------------------------------------------------------
// llms.txt (research/llms-txt.md, "Validation levels")
// ---------------------------------------------------------------------------------------------

function looksLikeHtml(contentType: string | null, body: string): boolean {
  if (contentType && /text\/html|application\/xhtml/i.test(contentType)) return true;
  const head = body.slice(0, 1024).trimStart().toLowerCase();
  return head.startsWith('<!doctype') || head.startsWith('<html') || head.includes('<html');
}

/**
 * `[name](url)`. Neither part may contain a bracket, so a failed attempt never scans past the next
 * possible start and the search stays linear; the earlier form was cubic (one 16 KB line took 94 s).
 */
const MARKDOWN_LINK = /\[[^[\]]+\]\([^\s()[\]][^)[\]]*\)/;

/** Classifies a /llms.txt (or llms-full.txt) answer. A 2xx HTML page is a soft 404, not a file. */
export function assessLlmsTxt(status: number | null, contentType: string | null, body: string | null): LlmsTxtAssessment {
  if (status === null) return { state: 'missing', level: 'error', status, problems: ['/llms.txt could not be fetched'] };
  if (status >= 400 && status < 500) return { state: 'missing', level: 'missing', status, problems: [`/llms.txt answered ${status}`] };
  if (status < 200 || status >= 300) return { state: 'missing', level: 'error', status, problems: [`/llms.txt answered ${status}`] };
  const text = body ?? '';
  if (looksLikeHtml(contentType, text)) {
    return { state: 'missing', level: 'error', status, problems: ['/llms.txt answered with an HTML page, not a Markdown file'] };
  }
  const lines = text.split(/\r\n|\r|\n/);
  const firstLine = lines.find((l) => l.trim() !== '') ?? '';
  if (!/^#\s+\S/.test(firstLine)) {
    const hasH1 = lines.some((l) => /^#\s+\S/.test(l));
    return {
      state: 'found',
      level: 'invalid',
      status,
      problems: [hasH1 ? 'the first non-blank line is not the H1 title' : 'there is no H1 title line (# Name)'],
    };
  }
  const problems: string[] = [];
  if (!lines.some((l) => /^>\s?\S/.test(l))) problems.push('no > blockquote summary');
  let inH2 = false;
  let linkInH2 = false;
  for (const l of lines) {
    if (/^##\s+\S/.test(l)) inH2 = true;
    else if (/^#\s/.test(l)) inH2 = false;
    else if (inH2 && MARKDOWN_LINK.test(l)) {
      linkInH2 = true;
      break;
    }
  }
  if (!linkInH2) problems.push('no H2 section with a [name](url) link list');
  return { state: 'found', level: problems.length === 0 ? 'valid' : 'partial', status, problems };
}

// ---------------------------------------------------------------------------------------------
// Scoring
// ---------------------------------------------------------------------------------------------

interface Outcome {
  earned: number;
  finding?: Omit<Finding, 'rubric' | 'pointsLost'>;
}

const SEARCH_WEIGHTS: ReadonlyArray<[token: string, points: number]> = [
  ['Googlebot', 6],
  ['Bingbot', 4],
  ['Applebot', 2],
];
const AI_ANSWER_TOKENS = ['OAI-SearchBot', 'Claude-SearchBot', 'PerplexityBot'];
const USER_TRIGGERED_TOKENS = ['ChatGPT-User', 'Claude-User', 'Perplexity-User'];

function crawler(input: ScoreInput, token: string): ScoredCrawler | undefined {
  const t = token.toLowerCase();
  return input.crawlers.find((c) => c.token.toLowerCase() === t);
}

/** A crawler absent from the table is not evidence of a block. */
function isAllowed(input: ScoreInput, token: string): boolean {
  return crawler(input, token)?.allowed ?? true;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname || '/';
  } catch {
    return '/';
  }
}

function quoteVerdict(c: ScoredCrawler): string {
  if (c.rule === null) return `${c.token}: blocked`;
  if (c.line === null || c.line === undefined) return `${c.token}: ${c.rule}`;
  return `${c.token}: "${c.rule}" (robots.txt line ${c.line}, group "User-agent: ${c.group ?? '*'}")`;
}

function robotsFix(input: ScoreInput, blocked: ScoredCrawler[]): string {
  if (input.robots.tooComplex) {
    return 'Simplify /robots.txt: replace the many wildcard rules with fewer, more specific paths, so it can be evaluated.';
  }
  if (input.robots.state === 'unreachable') {
    return 'Make /robots.txt answer 200 with your rules (or 404 if you have none). While it fails, RFC 9309 crawlers treat every path as disallowed.';
  }
  const path = pathOf(input.finalUrl);
  // Crawlers decided by the same line get one edit, in the order they were listed.
  const byRule = new Map<string, ScoredCrawler[]>();
  for (const c of blocked) {
    const key = `${c.group ?? ''}\n${c.line ?? ''}\n${c.rule ?? ''}`;
    byRule.set(key, [...(byRule.get(key) ?? []), c]);
  }
  const edits = [...byRule.values()].map((list) => {
    const { group, rule, line } = list[0];
    const tokens = list.map((c) => c.token);
    const names = tokens.join(', ');
    const narrow = rule && line ? `remove or narrow "${rule}" (line ${line})` : null;
    const ownGroup = group !== null && list.every((c) => c.token.toLowerCase() === group.toLowerCase());
    if (ownGroup) {
      return `in the "User-agent: ${group}" group, ${narrow ? `${narrow} or ` : ''}add "Allow: ${path}"`;
    }
    // A group that names a crawler replaces the one it falls back to, so the new group is the targeted
    // fix; editing the shared group would change the rules for every crawler that follows it.
    const newGroup = `add a group ${tokens.map((t) => `"User-agent: ${t}"`).join(' + ')} + "Allow: ${path}" (it replaces the "${group ?? '*'}" group for ${list.length > 1 ? 'them' : 'it'}, so copy over any rules from that group you still want applied)`;
    return narrow ? `for ${names}, ${newGroup}, or ${narrow} in the "User-agent: ${group ?? '*'}" group` : `for ${names}, ${newGroup}`;
  });
  return `In robots.txt: ${edits.join('; ')}. The longest matching rule wins and Allow wins ties (RFC 9309).`;
}

const SOFT_404_TITLE = /\b(404|not found|page (?:does not|doesn['’]t) exist|no longer available)\b/i;

function evalFetchOk(input: ScoreInput): Outcome {
  const { status, contentType, page } = input;
  if (status < 200 || status > 299) {
    return {
      earned: 0,
      finding: {
        id: 'page-status',
        severity: 'critical',
        observed: `GET ${input.finalUrl} answered ${status}${input.redirects > 0 ? ` after ${input.redirects} redirect(s)` : ''}`,
        why: 'Search engines and AI crawlers drop pages that do not answer 2xx; nothing on this page can be indexed or cited.',
        fix: `Serve the page with status 200 (check the server or CMS route for ${pathOf(input.finalUrl)}), or submit the address that does.`,
      },
    };
  }
  if (status !== 200) {
    return {
      earned: 0,
      finding: {
        id: 'page-status',
        severity: 'high',
        observed: `GET ${input.finalUrl} answered ${status}`,
        why: 'Crawlers expect 200 for a page with content; other 2xx codes (204, 206, ...) are not treated as a normal page everywhere.',
        fix: 'Answer the page request with 200 and the full HTML.',
      },
    };
  }
  if (!contentType || !/text\/html|application\/xhtml\+xml/i.test(contentType)) {
    return {
      earned: 0,
      finding: {
        id: 'page-not-html',
        severity: 'high',
        observed: contentType ? `Content-Type: ${contentType}` : 'no Content-Type header',
        why: 'Crawlers decide how to read a response from its content type; without text/html the page may not be parsed as a web page.',
        fix: 'Send "Content-Type: text/html; charset=utf-8" with the page.',
      },
    };
  }
  if (page.title && SOFT_404_TITLE.test(page.title)) {
    return {
      earned: 0,
      finding: {
        id: 'soft-404',
        severity: 'high',
        observed: `<title>${page.title}</title> on a 200 response`,
        why: 'A page that says it is missing while answering 200 is a soft 404: search engines classify it as an error page and do not index it.',
        fix: 'If the page is gone, answer 404 or 410; if it exists, give it its real title and content.',
      },
    };
  }
  return { earned: 8 };
}

function evalSearchAllowed(input: ScoreInput): Outcome {
  let earned = 0;
  const blocked: ScoredCrawler[] = [];
  for (const [token, points] of SEARCH_WEIGHTS) {
    const c = crawler(input, token);
    if (!c || c.allowed) earned += points;
    else blocked.push(c);
  }
  if (blocked.length === 0) return { earned };
  const googlebotBlocked = blocked.some((c) => c.token.toLowerCase() === 'googlebot');
  return {
    earned,
    finding: {
      id: 'search-crawlers-blocked',
      severity: googlebotBlocked ? 'critical' : blocked.some((c) => c.token.toLowerCase() === 'bingbot') ? 'high' : 'medium',
      observed: blocked.map(quoteVerdict).join('; '),
      why: `robots.txt keeps ${blocked.map((c) => c.token).join(', ')} from fetching this page, so it cannot appear in ${googlebotBlocked ? 'Google Search or Google\'s AI Overviews' : 'those search engines'}; Bing's index also feeds several AI assistants.`,
      fix: robotsFix(input, blocked),
    },
  };
}

function evalAiAnswersAllowed(input: ScoreInput): Outcome {
  const blocked = AI_ANSWER_TOKENS.map((t) => crawler(input, t)).filter((c): c is ScoredCrawler => c !== undefined && !c.allowed);
  const allowedCount = AI_ANSWER_TOKENS.length - blocked.length;
  const earned = Math.round((10 * allowedCount) / AI_ANSWER_TOKENS.length);
  if (blocked.length === 0) return { earned };
  return {
    earned,
    finding: {
      id: 'ai-answer-crawlers-blocked',
      severity: 'high',
      observed: blocked.map(quoteVerdict).join('; '),
      why: `${blocked.map((c) => c.token).join(', ')} build the indexes behind ChatGPT search, Claude and Perplexity answers; while they are disallowed the page cannot be shown or linked there. These are search crawlers, not training crawlers.`,
      fix: robotsFix(input, blocked),
    },
  };
}

function evalRobotsState(input: ScoreInput): Outcome {
  if (input.robots.state !== 'unreachable') return { earned: 4 };
  const { tooComplex } = input.robots;
  if (tooComplex) {
    return {
      earned: 0,
      finding: {
        id: 'robots-too-complex',
        severity: 'high',
        observed: `GET /robots.txt answered ${input.robots.status}, but matching its ${tooComplex.rules} rules against this ${tooComplex.pathLength}-character address needs about ${tooComplex.cost} character comparisons, more than this check spends (${ROBOTS_MATCH_BUDGET}); it was treated as unreachable`,
        why: 'Each wildcard rule (*) scans the whole address, so this file costs every crawler that much work per page. The check bounds that work and does not know the verdicts past it: it counts the file like an unreachable robots.txt, which RFC 9309 makes a full disallow.',
        fix: 'Replace wildcard rules that all start with the same prefix (such as "Disallow: /*x") with fewer, more specific paths, and keep robots.txt to the rules you need.',
      },
    };
  }
  return {
    earned: 0,
    finding: {
      id: 'robots-unreachable',
      severity: 'high',
      observed: input.robots.status === null ? 'GET /robots.txt got no HTTP answer' : `GET /robots.txt answered ${input.robots.status}`,
      why: 'RFC 9309 (2.3.1.4) tells crawlers to assume the whole site is disallowed while robots.txt answers 5xx or cannot be reached; Google handles 429 the same way.',
      fix: 'Serve /robots.txt with status 200 (or 404 when you have no rules) from every host of the site.',
    },
  };
}

function appliesToSearch(r: RobotsDirectives): boolean {
  return r.bot === null || SEARCH_ROBOT_SCOPES.has(r.bot);
}

function withDirective(list: readonly RobotsDirectives[], test: (d: string) => boolean): RobotsDirectives[] {
  return list.filter((r) => appliesToSearch(r) && r.directives.some(test));
}

function uniqueRaw(list: RobotsDirectives[]): string[] {
  return [...new Set(list.map((r) => r.raw))];
}

function evalNoindex(input: ScoreInput): Outcome {
  const { page } = input;
  if (!page.noindexMeta && !page.noindexHeader) return { earned: 12 };
  const isNoindex = (d: string) => d === 'noindex' || d === 'none';
  const meta = uniqueRaw(withDirective(page.robots.meta, isNoindex));
  const header = uniqueRaw(withDirective(page.robots.header, isNoindex));
  const bots = [...new Set([...withDirective(page.robots.meta, isNoindex), ...withDirective(page.robots.header, isNoindex)].map((r) => r.bot ?? 'all robots'))];
  const edits = [
    ...meta.map((m) => `remove noindex/none from ${m}`),
    ...header.map((h) => `remove noindex/none from the response header "${h}" (server, CDN or framework config)`),
  ];
  return {
    earned: 0,
    finding: {
      id: 'noindex',
      severity: 'critical',
      observed: [...meta, ...header].join('; '),
      why: `The page tells ${bots.join(', ')} not to index it, so it is kept out of search results and out of the AI answers built on them (Google's AI features use only indexed pages).`,
      fix: `${edits.join('; ')}. Keep noindex only on pages you want hidden.`,
    },
  };
}

function evalSnippet(input: ScoreInput): Outcome {
  const { robots } = input.page;
  const limited = robots.nosnippet || robots.maxSnippet === 0;
  const short = !limited && robots.maxSnippet > 0 && robots.maxSnippet < 50;
  if (!limited && !short) return { earned: 5 };
  const sources = uniqueRaw([
    ...withDirective(robots.meta, (d) => d === 'nosnippet' || d.startsWith('max-snippet:')),
    ...withDirective(robots.header, (d) => d === 'nosnippet' || d.startsWith('max-snippet:')),
  ]);
  return {
    earned: limited ? 0 : 2,
    finding: {
      id: 'snippet-restricted',
      severity: limited ? 'high' : 'medium',
      observed: sources.join('; '),
      why: limited
        ? 'nosnippet (or max-snippet:0) forbids text snippets, which also makes the page ineligible as a source in Google\'s AI Overviews and AI Mode.'
        : `max-snippet:${robots.maxSnippet} limits quotes to ${robots.maxSnippet} characters, which leaves little for search results and AI answers to show.`,
      fix: 'Remove nosnippet and max-snippet from the robots meta tag and X-Robots-Tag header (or set max-snippet:-1), and use data-nosnippet on the specific passages you want kept out.',
    },
  };
}

function evalCanonical(input: ScoreInput): Outcome {
  const { page, finalUrl } = input;
  const fixSelf = `Put exactly one <link rel="canonical" href="${finalUrl}"> in the <head>.`;
  if (page.canonicalCount === 0) {
    return {
      earned: 0,
      finding: {
        id: 'canonical-missing',
        severity: 'low',
        observed: 'no <link rel="canonical"> in the page',
        why: 'Without a canonical, crawlers pick one of the page\'s duplicate addresses (tracking parameters, trailing slashes, http/https) themselves, and signals can be split between them.',
        fix: fixSelf,
      },
    };
  }
  if (page.canonicalCount > 1) {
    return {
      earned: 0,
      finding: {
        id: 'canonical-multiple',
        severity: 'medium',
        observed: `${page.canonicalCount} <link rel="canonical"> elements; the first points to ${page.canonical ?? '(invalid)'}`,
        why: 'When a page declares several canonicals, Google ignores them all.',
        fix: `Remove the extra canonical links (often one from the CMS and one from an SEO plugin). ${fixSelf}`,
      },
    };
  }
  if (page.canonical === null) {
    return {
      earned: 0,
      finding: {
        id: 'canonical-invalid',
        severity: 'medium',
        observed: '<link rel="canonical"> has an empty, unparsable or non-http(s) href',
        why: 'An invalid canonical is ignored, so the page gets no canonical at all.',
        fix: fixSelf,
      },
    };
  }
  if (!page.canonicalIsSelf) {
    return {
      earned: 2,
      finding: {
        id: 'canonical-elsewhere',
        severity: 'medium',
        observed: `<link rel="canonical" href="${page.canonical}"> on ${finalUrl}`,
        why: 'The page declares another address as its canonical, so search engines index and cite that address instead of this one.',
        fix: `If this page is the one to show, point the canonical at ${finalUrl}; if the other address is, check that one instead.`,
      },
    };
  }
  return { earned: 5 };
}

function evalTitle(input: ScoreInput): Outcome {
  const { title, titleLength } = input.page;
  if (!title) {
    return {
      earned: 0,
      finding: {
        id: 'title-missing',
        severity: 'medium',
        observed: title === null ? 'no <title> element' : 'empty <title></title>',
        why: 'The title is the headline of the page in search results and the main label AI answers use when they cite it.',
        fix: 'Add a <title> of 10-70 characters that names the page\'s subject (and the site), e.g. "<Topic> - <Brand>".',
      },
    };
  }
  if (titleLength >= 10 && titleLength <= 70) return { earned: 5 };
  return {
    earned: 3,
    finding: {
      id: 'title-length',
      severity: 'low',
      observed: `<title>${title}</title> (${titleLength} characters)`,
      why: titleLength < 10 ? 'A very short title says little about the page.' : 'Titles over about 70 characters are cut in search results.',
      fix: 'Rewrite the <title> to 10-70 characters, leading with the page\'s subject.',
    },
  };
}

function evalDescription(input: ScoreInput): Outcome {
  const { metaDescription, metaDescriptionLength } = input.page;
  if (!metaDescription) {
    return {
      earned: 0,
      finding: {
        id: 'description-missing',
        severity: 'low',
        observed: metaDescription === null ? 'no <meta name="description">' : '<meta name="description" content="">',
        why: 'Without a description, search engines and link previews pick arbitrary text from the page.',
        fix: 'Add <meta name="description" content="..."> with a 50-170 character summary of the page.',
      },
    };
  }
  if (metaDescriptionLength >= 50 && metaDescriptionLength <= 170) return { earned: 4 };
  return {
    earned: 2,
    finding: {
      id: 'description-length',
      severity: 'low',
      observed: `<meta name="description" content="${metaDescription}"> (${metaDescriptionLength} characters)`,
      why: metaDescriptionLength < 50 ? 'A very short description is usually replaced by text picked from the page.' : 'Descriptions over about 170 characters are cut in search results.',
      fix: 'Rewrite the meta description to 50-170 characters.',
    },
  };
}

function evalText(input: ScoreInput): Outcome {
  const { wordCount } = input.page;
  if (wordCount >= 250) return { earned: 10 };
  const partial = wordCount >= 80;
  return {
    earned: partial ? 5 : 0,
    finding: {
      id: partial ? 'thin-server-text' : 'little-server-text',
      severity: partial ? 'medium' : 'high',
      observed: `${wordCount} words of text in the HTML as served (${input.page.textLength} characters)`,
      why: 'Most AI fetchers (Common Crawl says so explicitly) do not run JavaScript, so text that only appears after scripts run is invisible to them; a page with little served text gives them little to index or quote.',
      fix: 'Render the main content on the server (SSR or static generation) so the HTML response carries the text; aim for at least 250 words of real content.',
    },
  };
}

function evalH1(input: ScoreInput): Outcome {
  const { h1Count } = input.page;
  if (h1Count === 1) return { earned: 3 };
  return {
    earned: h1Count > 1 ? 1 : 0,
    finding: {
      id: h1Count > 1 ? 'h1-multiple' : 'h1-missing',
      severity: 'low',
      observed: `${h1Count} <h1> elements`,
      why: 'One <h1> states what the page is about; none or several make the main topic harder to extract.',
      fix: h1Count > 1 ? 'Keep one <h1> for the page title and turn the others into <h2>.' : 'Add one <h1> with the page\'s main heading.',
    },
  };
}

function isWellFormedLang(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

function evalLang(input: ScoreInput): Outcome {
  const { lang } = input.page;
  if (lang !== null && isWellFormedLang(lang)) return { earned: 2 };
  return {
    earned: 0,
    finding: {
      id: lang === null ? 'lang-missing' : 'lang-invalid',
      severity: 'low',
      observed: lang === null ? '<html> has no lang attribute' : `<html lang="${lang}">`,
      why: 'The lang attribute tells crawlers which language the page is in, so it is served to readers of that language.',
      fix: 'Set <html lang="..."> to the page\'s language as a BCP 47 tag, e.g. lang="en" or lang="de-CH".',
    },
  };
}

function evalJsonLd(input: ScoreInput): Outcome {
  const { blocks, invalid } = input.page.jsonLd;
  if (blocks === 0) {
    return {
      earned: 0,
      finding: {
        id: 'jsonld-missing',
        severity: 'medium',
        observed: 'no <script type="application/ld+json"> block',
        why: 'JSON-LD states in machine-readable form who publishes the page and what it is (article, product, service), which search engines and AI systems use to understand and attribute it.',
        fix: 'Add a <script type="application/ld+json"> block describing the page with schema.org types that match its visible content.',
      },
    };
  }
  if (invalid === 0) return { earned: 6 };
  return {
    earned: invalid < blocks ? 3 : 0,
    finding: {
      id: 'jsonld-invalid',
      severity: 'medium',
      observed: `${invalid} of ${blocks} JSON-LD blocks are not valid JSON objects`,
      why: 'A JSON-LD block that does not parse is ignored entirely.',
      fix: 'Fix the JSON syntax of the broken block(s) (trailing commas, unescaped quotes, HTML comments inside the script) and validate them with a JSON-LD or rich-results validator.',
    },
  };
}

function evalKeyTypes(input: ScoreInput): Outcome {
  const keys = input.page.jsonLd.keyTypes;
  const identity = keys.includes('Organization') || keys.includes('WebSite');
  const content = keys.includes('Article') || keys.includes('Product') || keys.includes('Service') || keys.includes('FAQPage');
  const earned = (identity ? 2 : 0) + (content ? 2 : 0);
  if (earned === 4) return { earned };
  const missing = [!identity ? 'the publisher (Organization or WebSite)' : null, !content ? 'the content (Article, Product, Service or FAQPage)' : null].filter(Boolean);
  return {
    earned,
    finding: {
      id: 'jsonld-key-types',
      severity: 'low',
      observed: input.page.jsonLd.types.length > 0 ? `JSON-LD types: ${input.page.jsonLd.types.join(', ')}` : 'no JSON-LD types',
      why: 'Structured data that names the publisher and the kind of content helps crawlers attribute the page and present it correctly; it is not a ranking factor by itself.',
      fix: `Describe ${missing.join(' and ')} in JSON-LD, using the type that matches what the page visibly is.`,
    },
  };
}

function evalOpenGraph(input: ScoreInput): Outcome {
  const og = input.page.openGraph;
  const required: Array<[string, boolean]> = [['og:title', og.title], ['og:description', og.description], ['og:image', og.image]];
  const present = required.filter(([, p]) => p).length;
  if (present === 3) return { earned: 2 };
  const missing = required.filter(([, p]) => !p).map(([n]) => n);
  return {
    earned: present > 0 ? 1 : 0,
    finding: {
      id: 'open-graph-incomplete',
      severity: 'low',
      observed: `missing ${missing.join(', ')}`,
      why: 'Open Graph tags decide how the page looks when it is shared or previewed by chat assistants and social apps.',
      fix: `Add ${missing.map((m) => `<meta property="${m}" content="...">`).join(', ')} to the <head>${og.url ? '' : ', and og:url with the canonical address'}.`,
    },
  };
}

function evalHttps(input: ScoreInput): Outcome {
  const { finalUrlHttps, httpRedirectsToHttps } = input.https;
  if (!finalUrlHttps) {
    return {
      earned: 0,
      finding: {
        id: 'not-https',
        severity: 'medium',
        observed: `the page is served at ${input.finalUrl}`,
        why: 'Search engines prefer https addresses, and browsers mark http pages as not secure.',
        fix: 'Serve the site over https and redirect every http address to its https equivalent with a 301.',
      },
    };
  }
  if (httpRedirectsToHttps !== false) return { earned: 4 };
  let host = '';
  try {
    host = new URL(input.finalUrl).host;
  } catch {
    // finalUrl is always absolute; an empty host only weakens the message.
  }
  return {
    earned: 3,
    finding: {
      id: 'http-not-redirected',
      severity: 'low',
      observed: `GET http://${host}/ is served over http without redirecting to https`,
      why: 'An http copy of the site splits signals between two addresses and can be indexed instead of the https one.',
      fix: `Redirect http://${host}/* to https://${host}/* with a 301 (and consider HSTS).`,
    },
  };
}

function evalSitemap(input: ScoreInput): Outcome {
  const s = input.sitemapXml;
  if (s.isSitemap) return { earned: 2 };
  return {
    earned: 0,
    finding: {
      id: 'sitemap-missing',
      severity: 'low',
      observed:
        s.url === null
          ? 'no sitemap found'
          : s.status === null
            ? `GET ${s.url} got no HTTP answer`
            : `GET ${s.url} answered ${s.status}${s.status >= 200 && s.status < 300 ? ' without a <urlset> or <sitemapindex> document' : ''}`,
      why: 'A sitemap lists the pages you want crawled and when they changed, which helps crawlers find new and updated pages.',
      fix: 'Publish an XML sitemap at /sitemap.xml (or anywhere, announced with a "Sitemap: https://.../sitemap.xml" line in robots.txt).',
    },
  };
}

function evalLlmsTxt(input: ScoreInput): Outcome {
  const l = input.llmsTxt;
  if (l.level === 'valid') return { earned: 2 };
  const partial = l.level === 'partial';
  return {
    earned: partial ? 1 : 0,
    finding: {
      id: l.level === 'missing' || l.level === 'error' ? 'llms-txt-missing' : partial ? 'llms-txt-incomplete' : 'llms-txt-invalid',
      severity: 'info',
      observed: l.problems.join('; ') || `/llms.txt: ${l.level}`,
      why: 'llms.txt is a proposed (llmstxt.org), not a standard, Markdown index that helps language models find a site\'s key pages; no major crawler is documented to rely on it, hence its low weight.',
      fix: 'Serve /llms.txt as text/markdown: "# Site name", a "> one-line summary", then "## Section" headings with "- [Page](https://...): note" link lists.',
    },
  };
}

const EVALUATORS: Record<string, (input: ScoreInput) => Outcome> = {
  'fetch.ok': evalFetchOk,
  'crawl.search-allowed': evalSearchAllowed,
  'crawl.ai-answers-allowed': evalAiAnswersAllowed,
  'robots.state': evalRobotsState,
  'index.noindex': evalNoindex,
  'index.snippet': evalSnippet,
  'canonical.valid': evalCanonical,
  'meta.title': evalTitle,
  'meta.description': evalDescription,
  'content.text': evalText,
  'content.h1': evalH1,
  'content.lang': evalLang,
  'sd.jsonld': evalJsonLd,
  'sd.key-types': evalKeyTypes,
  'social.og': evalOpenGraph,
  'site.https': evalHttps,
  'site.sitemap': evalSitemap,
  'site.llms-txt': evalLlmsTxt,
};

/** Which blocking failures apply; any one caps the score at BLOCKING_SCORE_CAP. */
export function blockingFailures(input: ScoreInput): string[] {
  const out: string[] = [];
  if (input.status < 200 || input.status > 299) out.push(`the page answered ${input.status}`);
  if (input.page.noindexMeta || input.page.noindexHeader) out.push('the page carries noindex');
  if (!isAllowed(input, 'Googlebot')) {
    out.push(input.robots.tooComplex ? 'robots.txt is too costly to evaluate and counts as unreachable, which disallows everything' : input.robots.state === 'unreachable' ? 'robots.txt is unreachable, which disallows everything' : 'robots.txt disallows the page for Googlebot');
  }
  return out;
}

/** 0-point findings: the owner's declared choices and context worth knowing, never faults. */
function informationalFindings(input: ScoreInput): Finding[] {
  const out: Finding[] = [];
  const info = (f: Omit<Finding, 'rubric' | 'pointsLost' | 'severity'>, severity: Severity = 'info') =>
    out.push({ ...f, severity, rubric: null, pointsLost: 0 });

  if (input.robots.state === 'found') {
    const training = input.crawlers.filter((c) => c.role === 'ai-training' && !c.allowed);
    if (training.length > 0) {
      info({
        id: 'training-crawlers-blocked',
        observed: training.map(quoteVerdict).join('; '),
        why: 'These tokens control collection for AI model training only; blocking them is a legitimate choice and does not affect search or AI answer visibility.',
        fix: 'No change needed if this is intended. To allow training use, remove the matching Disallow rules for these tokens.',
      });
    }
    const userTriggered = USER_TRIGGERED_TOKENS.map((t) => crawler(input, t)).filter((c): c is ScoredCrawler => c !== undefined && !c.allowed);
    if (userTriggered.length > 0) {
      info({
        id: 'user-fetchers-blocked',
        observed: userTriggered.map(quoteVerdict).join('; '),
        why: 'These agents fetch a page when a user asks an assistant about it. Anthropic says Claude-User honours robots.txt; OpenAI and Perplexity say robots.txt may not apply to their user-triggered fetches, so the block may not hold.',
        fix: 'No change needed if intended. To let assistants open the page for their users, remove the Disallow rules for these tokens; to enforce a block, do it at the server or CDN.',
      });
    }
  }
  if (input.robots.contentSignals.length > 0) {
    info({
      id: 'content-signals',
      observed: input.robots.contentSignals.join('; '),
      why: 'Content-Signal lines (contentsignals.org) declare how content may be used after it is fetched (search, ai-input, ai-train). They express the owner\'s terms; they do not change what crawlers may fetch.',
      fix: 'No change needed. Check that the values match your intent: ai-input=no asks AI answer engines not to use the page as a source.',
    });
  }
  const { robots } = input.page;
  if (robots.noai || robots.noimageai) {
    const raw = uniqueRaw([...robots.meta, ...robots.header].filter((r) => r.directives.includes('noai') || r.directives.includes('noimageai')));
    info({
      id: 'noai',
      observed: raw.join('; '),
      why: 'noai / noimageai state that the content is not licensed for AI datasets. They are not standard and no crawler vendor documents honouring them.',
      fix: 'No change needed. To keep training crawlers out, disallow GPTBot, ClaudeBot, CCBot, Google-Extended, Applebot-Extended and Meta-ExternalAgent in robots.txt.',
    });
  }
  if (robots.noarchive || robots.nocache) {
    const raw = uniqueRaw([...robots.meta, ...robots.header].filter((r) => r.directives.includes('noarchive') || r.directives.includes('nocache')));
    info({
      id: 'noarchive',
      observed: raw.join('; '),
      why: 'noarchive / nocache ask search engines not to show a cached copy. Bing uses them to limit how page content is used in its AI answers.',
      fix: 'No change needed if intended; remove them to allow cached copies and fuller use in Bing\'s answers.',
    });
  }
  if (input.llmsFullTxt.state === 'found') {
    info({
      id: 'llms-full-txt',
      observed: `GET /llms-full.txt answered ${input.llmsFullTxt.status} (${input.llmsFullTxt.truncated ? 'more than ' : ''}${input.llmsFullTxt.bytesRead} bytes read)`,
      why: 'llms-full.txt is an informal companion to llms.txt with the full text of the listed pages; it has no specification and is not scored.',
      fix: 'No change needed. Keep it in step with the pages it copies.',
    });
  }
  if (input.page.truncated) {
    info(
      {
        id: 'page-truncated',
        observed: `the page is larger than 512 KB; only its first 512 KB were read${input.headTruncated ? ', and the cut falls inside the <head>' : ''}`,
        why: input.headTruncated
          ? 'Head metadata after the cut (title, robots, canonical, JSON-LD) was not seen, and crawlers with size limits may miss it too.'
          : 'Content after the first 512 KB was not examined; some crawlers also stop reading large pages.',
        fix: 'Move metadata to the top of the <head>, and reduce inline scripts, styles and data so the page is smaller.',
      },
      input.headTruncated ? 'medium' : 'info',
    );
  }
  const googlebot = crawler(input, 'Googlebot');
  if ((input.page.noindexMeta || input.page.noindexHeader) && googlebot && !googlebot.allowed && input.robots.state === 'found') {
    info(
      {
        id: 'noindex-hidden-by-robots',
        observed: `noindex on the page and ${quoteVerdict(googlebot)}`,
        why: 'A crawler that robots.txt keeps out never sees the page\'s noindex, so the address can still be indexed from links, without content.',
        fix: 'Choose one: to keep the page out of search, allow crawling so noindex is seen; to show it, remove both the Disallow and the noindex.',
      },
      'medium',
    );
  }
  return out;
}

function compareFindings(a: Finding, b: Finding): number {
  const s = SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity);
  if (s !== 0) return s;
  if (a.pointsLost !== b.pointsLost) return b.pointsLost - a.pointsLost;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Scores one site's facts. Every rubric item that loses points yields exactly one finding whose
 * pointsLost is what it lost; when a blocking failure caps the total, a `score-capped` finding carries
 * the rest, so the pointsLost of all findings always add up to 100 - score.
 */
export function scoreReport(input: ScoreInput): ScoreResult {
  const scoring: ScoringLine[] = [];
  const findings: Finding[] = [];
  let raw = 0;
  for (const item of RUBRIC) {
    const outcome = EVALUATORS[item.id](input);
    const earned = Math.max(0, Math.min(item.points, outcome.earned));
    raw += earned;
    scoring.push({ id: item.id, points: item.points, earned });
    if (outcome.finding && earned < item.points) {
      findings.push({ ...outcome.finding, rubric: item.id, pointsLost: item.points - earned });
    }
  }
  let score = raw;
  const blockers = blockingFailures(input);
  if (blockers.length > 0 && raw > BLOCKING_SCORE_CAP) {
    score = BLOCKING_SCORE_CAP;
    findings.push({
      id: 'score-capped',
      severity: 'info',
      rubric: null,
      pointsLost: raw - BLOCKING_SCORE_CAP,
      observed: `rubric items earned ${raw} points, but ${blockers.join(' and ')}`,
      why: `A page that search engines will not index cannot score above ${BLOCKING_SCORE_CAP}, however good the rest of it is.`,
      fix: 'Fix the critical findings above; the cap lifts as soon as none of them remains.',
    });
  }
  findings.push(...informationalFindings(input));
  findings.sort(compareFindings);
  // One member order for every finding, so serialised reports compare byte for byte.
  const ordered = findings.map(({ id, severity, rubric, pointsLost, observed, why, fix }) => ({ id, severity, rubric, pointsLost, observed, why, fix }));
  return { score, scoring, findings: ordered };
}
