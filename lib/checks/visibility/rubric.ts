// The published 100-point rubric of the AI Visibility Check, and the pure scoring of one site's facts
// against it. Facts in, { score, scoring, findings } out: no I/O, no clock, so the same facts always give
// the same bytes. Timing (TTFB) is reported by the check but deliberately not scored: a single sample
// from our location would make the score of an unchanged site move between runs.

// The items live in rubric-items/, one file per group; RUBRIC_ITEMS below is their one list, in published
// order, and the source of truth for the published rubric (RUBRIC), the scoring and the docs.

import { SEVERITY_ORDER, severityFor, type Severity } from '@/lib/checks/severity';
import { CRAWLERS } from './crawlers';
import { PARSE_MAX_DEPTH, PARSE_MAX_NODES, PARSE_MAX_REOPENED_FORMATTING } from './bounded-parse';
import { headBrokenFinding } from './head-broken-finding';
import { unreadFinding } from './not-measured';
import { PAGE_READ_MAX_BYTES } from './published';
import { ACCESS_ITEMS } from './rubric-items/access';
import { AGENT_ITEMS } from './rubric-items/agents';
import { CONTENT_ITEMS } from './rubric-items/content';
import { INDEXABILITY_ITEMS } from './rubric-items/indexability';
import { agentSignalFindings } from './rubric-items/agent-signals';
import { softNotFoundFindings } from './rubric-items/soft-404';
import { aiCatalogFindings } from './rubric-items/ai-catalog';
import { serverAccessFindings } from './rubric-items/server-access';
import { crawler, isAllowed, quoteVerdict, uniqueRaw } from './rubric-items/shared';
import { SITE_ITEMS } from './rubric-items/site';
import { STRUCTURED_DATA_ITEMS } from './rubric-items/structured-data';
import type { Finding, PublishedRubricItem, RubricItem, ScoredCrawler, ScoredSignals, ScoreInput, ScoreResult, ScoringLine } from './rubric-items/types';

export { assessLlmsTxt } from './llms-txt';
export type { Finding, PublishedRubricItem, ScoredCrawler, ScoredSignals, ScoreInput, ScoreResult, ScoringLine };

export const RUBRIC_VERSION = '4.0.0';
export const SCORE_MAX = 100;

/**
 * Blocking failures (the page answers non-2xx, it carries noindex for search crawlers, or robots.txt
 * disallows it for Googlebot, including a 5xx/unreachable robots.txt, which RFC 9309 makes a full
 * disallow) cap the total at this value. Like Lighthouse's is-crawlable audit, which is weighted so
 * failing it alone fails the SEO category, a page search engines will not index cannot score in the
 * upper range however polished the rest is: 40 keeps it in the failing band (below 50), under a
 * plain unblocked page that lets every search and AI-answer crawler in (51 from fetch, access, robots.txt,
 * noindex and snippets alone under rubric 2.0.0). Applied after summing, so scoring[] still shows what each item earned.
 */
export const BLOCKING_SCORE_CAP = 40;

export { SEVERITY_ORDER };

/**
 * Every rubric item, in published order: the one list the published rubric, the scoring and the docs read.
 * @example RUBRIC_ITEMS.reduce((sum, item) => sum + item.points, 0) // 100
 */
const RUBRIC_ITEMS: readonly RubricItem[] = [
  ...ACCESS_ITEMS,
  ...INDEXABILITY_ITEMS,
  ...CONTENT_ITEMS,
  ...STRUCTURED_DATA_ITEMS,
  ...AGENT_ITEMS,
  ...SITE_ITEMS,
];

/**
 * The published rubric: each item's id, category, points and criterion, as the report and the GET
 * description carry it.
 * @example RUBRIC[0] // { id: 'fetch.ok', category: 'access', points: 8, criterion: 'The page answers 200 …' }
 */
export const RUBRIC: readonly PublishedRubricItem[] = RUBRIC_ITEMS.map(({ id, category, points, criterion }) => ({ id, category, points, criterion }));

/** What a fetch-only check cannot see; returned with every report as `limits`. */
export const VISIBILITY_LIMITS: readonly string[] = [
  'Only the HTML as served is read. Content that JavaScript renders in the browser is not seen; Google renders pages, most AI fetchers do not.',
  'The page is requested once more as each crawler, with its published user agent, and once as a desktop browser, but from our server, not the vendor\'s network. Rules that go by IP address, network or verified-bot signatures (reverse DNS, published IP ranges, signed requests) are not seen: a site may let our probe in and still refuse the real GPTBot, or the reverse.',
  'Logged-in, paywalled, cookie-, geography- or experiment-dependent variants of the page are not seen.',
  'Crawler behaviour is not observed: whether a crawler honours robots.txt, how often it crawls, how long it caches robots.txt (up to 24 hours), or whether a user-triggered fetcher ignores robots.txt, as some vendors say theirs may.',
  'Nothing is known about outcomes: whether the page is indexed, ranked, cited in AI answers or used for training. The score implies no ranking, traffic or citation result.',
  'Only this page is examined. Other pages are not crawled: the sitemap is read only to see whether it lists this page (its first 64 KB; of a sitemap index, only the first child), and only the first 5 links of llms.txt are requested, to see that they answer, not what they say.',
  'Robots rules and headers on other hosts (CDN, image or script hosts) and blocked CSS or JavaScript resources are not checked.',
  'Licensing or legal signals other than robots.txt, Content-Signal (robots.txt lines and the response header), IETF aipref Content-Usage (a draft: header and robots.txt rule), TDMRep (tdmrep.json, header, meta tag), the RSL licence named by robots.txt or a Link header (its usage permits, prohibits and payment; not user or geography limits, license servers or RSS and HTML-embedded licences), robots meta tags and X-Robots-Tag are not read: not the TDM policy document, ai.txt, or contracts.',
  'Agent surfaces are the well-known documents of the page\'s own origin and the page\'s Link header; documents elsewhere (an API catalog on another host, a card a Link points to) are not fetched. WebMCP tools are read only when the page is rendered: those registered while the page loads and the forms that declare one, never called; tools registered after a click or in a frame are not seen. Payment challenges are read from the answers the check already got, not by paying.',
  'Response time is one sample from our location and varies; it is reported but not scored.',
  `Pages larger than ${PAGE_READ_MAX_BYTES / 1024 / 1024} MiB are read only up to ${PAGE_READ_MAX_BYTES / 1024 / 1024} MiB; content after that point is not seen, and the report names the facts that may be incomplete.`,
  `Markup is read only until it builds ${PARSE_MAX_NODES.toLocaleString('en-US')} nodes, nests elements ${PARSE_MAX_DEPTH} deep, or makes the parser reopen unclosed formatting elements (<b>, <i>, <a>, <font>…) ${PARSE_MAX_REOPENED_FORMATTING.toLocaleString('en-US')} times; content after that point is not seen and the page is reported as truncated.`,
];

const PAGE_MB = PAGE_READ_MAX_BYTES / 1024 / 1024;

const USER_TRIGGERED_TOKENS = CRAWLERS.filter((c) => c.userTriggered).map((c) => c.token);

/**
 * Which blocking failures apply; any one caps the score at BLOCKING_SCORE_CAP.
 * @example blockingFailures(input) // ['the page carries noindex']
 */
function blockingFailures(input: ScoreInput): string[] {
  const out: string[] = [];
  if (input.status < 200 || input.status > 299) out.push(`the page answered ${input.status}`);
  if (input.page.noindexMeta || input.page.noindexHeader) out.push('the page carries noindex');
  if (!isAllowed(input, 'Googlebot')) {
    out.push(input.robots.tooComplex ? 'robots.txt is too costly to evaluate and counts as unreachable, which disallows everything' : input.robots.state === 'unreachable' ? 'robots.txt is unreachable, which disallows everything' : 'robots.txt disallows the page for Googlebot');
  }
  return out;
}

/** Adds one 0-point finding (info unless a severity is given). */
type Info = (f: Omit<Finding, 'rubric' | 'pointsLost' | 'severity'>, severity?: Severity) => void;

/** What the owner chose: crawlers kept out, usage and licensing terms, AI opt-outs, the full-text companion file. */
function ownerChoiceFindings(input: ScoreInput, info: Info): void {
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
        why: 'These agents fetch a page when a user asks an assistant about it. Anthropic says Claude-User honours robots.txt; OpenAI, Perplexity and Google say robots.txt may not apply to their user-triggered fetches (Google-Agent among them), so the block may not hold.',
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
  const lic = input.signals.licensing;
  if (lic.tdmReservation !== null || lic.rslLicense !== null) {
    const parts = [
      lic.tdmReservation === null ? null : `TDMRep tdm-reservation ${lic.tdmReservation} (${lic.tdmSource === 'file' ? '/.well-known/tdmrep.json' : lic.tdmSource === 'header' ? 'tdm-reservation header' : '<meta name="tdm-reservation">'})${lic.tdmPolicy ? `, tdm-policy ${lic.tdmPolicy}` : ''}`,
      lic.rslLicense === null ? null : `robots.txt License: ${lic.rslLicense} (RSL)`,
    ];
    info({
      id: 'licensing-signals',
      observed: parts.filter(Boolean).join('; '),
      why: `The site states machine-readable licensing terms: ${lic.tdmReservation === 1 ? 'TDMRep tdm-reservation 1 reserves text and data mining rights (the EU DSM Directive\'s opt-out), ' : lic.tdmReservation === 0 ? 'TDMRep tdm-reservation 0 states that text and data mining rights are not reserved, ' : ''}${lic.rslLicense !== null ? 'an RSL license file tells AI systems the terms (and any payment) under which the content may be used, ' : ''}an owner's choice that does not change what crawlers may fetch.`,
      fix: 'No change needed. Check that these terms agree with robots.txt and any Content-Signal lines.',
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
}

/** Where reading stopped short: a page past the size cap, markup past the parser's limits, robots.txt lines skipped. */
function readingLimitFindings(input: ScoreInput, info: Info): void {
  if (input.bytesTruncated ?? input.page.truncated) {
    info(
      {
        id: 'page-truncated',
        observed: `the page is larger than ${PAGE_MB} MiB; only its first ${PAGE_MB} MiB were read${input.headTruncated ? ', and the cut falls inside the <head>' : ''}; these may be incomplete: ${input.page.incomplete.join(', ')}`,
        why: input.headTruncated
          ? 'Head metadata after the cut (title, robots, canonical, JSON-LD) was not seen, and crawlers with size limits may miss it too.'
          : `Content after the first ${PAGE_MB} MiB was not examined, so the counts above cover only what came before; some crawlers also stop reading large pages.`,
        fix: 'Move metadata to the top of the <head>, and reduce inline scripts, styles and data so the page is smaller.',
      },
      input.headTruncated ? 'medium' : 'info',
    );
  }
  if (input.parseLimit) {
    const { limit, max } = input.parseLimit;
    const count = max.toLocaleString('en-US');
    info(
      {
        id: 'page-markup-too-complex',
        observed:
          limit === 'depth'
            ? `the page's markup nests elements more than ${count} deep; it was read only up to that point`
            : limit === 'nodes'
              ? `the page's markup builds more than ${count} nodes; it was read only up to that point`
              : `the page's markup makes HTML parsers reopen unclosed formatting elements (<b>, <i>, <a>, <font>…) more than ${count} times; it was read only up to that point`,
        why:
          limit === 'reopened-formatting'
            ? 'An HTML parser recreates every formatting element left open inside each block that follows, so a few unclosed tags make browsers and crawlers build a tree far larger than the page. Content after the point where reading stopped was not examined; crawlers with limits of their own may stop early too.'
            : 'Content after the point where reading stopped was not examined; crawlers with limits of their own may stop early too.',
        fix:
          limit === 'depth'
            ? 'Close elements where they end and flatten deeply nested layout (tables inside tables, wrappers inside wrappers).'
            : 'Close formatting elements (</b>, </i>, </a>, </font>) where they end, and remove repeated or generated markup so the page builds fewer elements.',
      },
      'medium',
    );
  }
  const ignored = input.robots.state === 'found' ? (input.robots.ignoredLines ?? []) : [];
  if (ignored.length > 0) {
    const said: Record<string, string> = {
      'rule-before-user-agent': 'a rule before any User-agent line',
      'pattern-not-a-path': 'a pattern that starts with neither / nor *',
      'unknown-directive': 'a directive no crawler reads',
    };
    info({
      id: 'robots-lines-ignored',
      observed: ignored.map((l) => `line ${l.line}: ${said[l.reason]}`).join('; '),
      why: 'Crawlers skip these robots.txt lines, so what they were written to do does not happen: a rule outside a User-agent group belongs to no crawler, and a path pattern must start with /.',
      fix: 'Put each Allow/Disallow under the User-agent line it is for, start every pattern with / (or *), and remove or correct lines with unknown directives (check the spelling).',
    });
  }
}

/** Where what agents get is not what the page says: a Markdown answer that is not the page, a head ended early, a hidden noindex. */
function mismatchFindings(input: ScoreInput, info: Info): void {
  const markdown = input.signals.markdown;
  if (markdown.offered && markdown.matchesPage === false) {
    info(
      {
        id: 'markdown-not-the-page',
        observed: `"Accept: text/markdown" on the page's address answered ${markdown.contentType} without the page's title or most of its words; the page also links ${markdown.alternate}`,
        why: 'Agents that negotiate Markdown get this answer, not the page; only those that follow the alternate link get the Markdown copy.',
        fix: 'Answer "Accept: text/markdown" with the page\'s own Markdown (the alternate copy), or with the HTML page.',
      },
      'low',
    );
  }
  const broken = input.page.headBrokenAt;
  if (broken) {
    const { finding, severity } = headBrokenFinding(broken);
    info(finding, severity);
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
}

/** 0-point findings: the owner's declared choices and context worth knowing, never faults. */
function informationalFindings(input: ScoreInput): Finding[] {
  const out: Finding[] = [];
  const info = (f: Omit<Finding, 'rubric' | 'pointsLost' | 'severity'>, severity: Severity = 'info') =>
    out.push({ ...f, severity, rubric: null, pointsLost: 0 });

  ownerChoiceFindings(input, info);
  readingLimitFindings(input, info);
  mismatchFindings(input, info);
  return out;
}

/**
 * The report's finding order: most severe first (the score cap last of its severity), then most points lost, then by id.
 * @example findings.sort(compareFindings)
 */
export function compareFindings(a: Finding, b: Finding): number {
  const s = SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity);
  if (s !== 0) return s;
  // The cap is the consequence of the critical findings, so it follows them however many points it carries.
  const cap = Number(a.id === 'score-capped') - Number(b.id === 'score-capped');
  if (cap !== 0) return cap;
  if (a.pointsLost !== b.pointsLost) return b.pointsLost - a.pointsLost;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Scores one site's facts. Every rubric item that loses points yields exactly one finding whose
 * pointsLost is what it lost; when a blocking failure caps the total, a `score-capped` finding carries
 * the rest, so the pointsLost of all findings always add up to 100 - score. An absence in a part of the page
 * that was not read loses nothing: its finding is `not-measured` (not-measured.ts).
 * @example scoreReport(input).score // 0..100
 */
export function scoreReport(input: ScoreInput): ScoreResult {
  const scoring: ScoringLine[] = [];
  const findings: Finding[] = [];
  let raw = 0;
  for (const item of RUBRIC_ITEMS) {
    const outcome = item.evaluate(input, item.points);
    // An absence in a page not read to its end is not measured: full points, and a finding that says why.
    const unread = outcome.finding && outcome.earned < item.points ? unreadFinding(input, outcome.finding) : null;
    const earned = unread ? item.points : Math.max(0, Math.min(item.points, outcome.earned));
    raw += earned;
    scoring.push({ id: item.id, points: item.points, earned });
    if (unread) findings.push({ ...unread, rubric: item.id, pointsLost: 0 });
    else if (outcome.finding && earned < item.points) {
      const pointsLost = item.points - earned;
      findings.push({ ...outcome.finding, severity: severityFor(outcome.finding.severity, pointsLost), rubric: item.id, pointsLost });
    }
  }
  let score = raw;
  const blockers = blockingFailures(input);
  if (blockers.length > 0 && raw > BLOCKING_SCORE_CAP) {
    score = BLOCKING_SCORE_CAP;
    findings.push({
      id: 'score-capped',
      severity: 'critical',
      rubric: null,
      pointsLost: raw - BLOCKING_SCORE_CAP,
      observed: `rubric items earned ${raw} points, but ${blockers.join(' and ')}`,
      why: `A page that search engines will not index cannot score above ${BLOCKING_SCORE_CAP}, however good the rest of it is.`,
      fix: 'Fix the other critical findings; the cap lifts as soon as none of them remains.',
    });
  }
  findings.push(...informationalFindings(input), ...serverAccessFindings(input), ...agentSignalFindings(input), ...softNotFoundFindings(input), ...aiCatalogFindings(input));
  findings.sort(compareFindings);
  // One member order for every finding, so serialised reports compare byte for byte.
  const ordered = findings.map(({ id, severity, rubric, pointsLost, observed, why, fix, state }) => ({ id, severity, rubric, pointsLost, observed, why, fix, ...(state ? { state } : {}) }));
  return { score, scoring, findings: ordered };
}
