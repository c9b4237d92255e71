// What agents can read beyond the page (visibility check v2): Markdown for agents, the links of llms.txt,
// whether the sitemap lists the page, Content-Signal usage preferences per robots.txt group, and
// licensing signals (TDMRep, RSL). Pure functions over what was fetched: check.ts and signal-fetches.ts
// fetch, these read, on the analysis thread like the rest of the parsing. Every loop here moves forward
// over its input, so the work stays linear in the (capped) bytes a site sent.

import { decodeXmlText, xmlTags } from './xml-tags';
import { CRAWLERS, effectiveToken, type CrawlerRole } from './crawlers';
import { isHtml } from './llms-txt';
import { appliedGroups, patternMatches, type RobotsAccess, type RobotsTxt } from './robots';
import { wordsOf } from './words';

// ---------------------------------------------------------------------------------------------
// Markdown for agents
// ---------------------------------------------------------------------------------------------

/** `site.markdown`. */
export interface MarkdownOffer {
  /** The page URL answers `Accept: text/markdown` with text/markdown, or the page links an alternate text/markdown. */
  offered: boolean;
  /** The content type the page URL answered to `Accept: text/markdown`; null when that request got no answer. */
  contentType: string | null;
  /** The href of `<link rel="alternate" type="text/markdown">`, resolved; null when the page has none. */
  alternate: string | null;
  /**
   * Whether the text/markdown answer is this page: it carries the page's title, or most of its words are the
   * page's. Null when the page URL did not answer text/markdown with 2xx (nothing to compare).
   */
  matchesPage: boolean | null;
}

/** A Markdown answer with fewer distinct words than this is judged by the title alone (an error page is short). */
const MARKDOWN_MATCH_MIN_WORDS = 20;
/** The share of a Markdown answer's distinct words that must be words of the page. */
const MARKDOWN_MATCH_SHARE = 0.5;

/** The media type of a Content-Type value, lowercased, parameters dropped. */
function mediaType(contentType: string | null): string | null {
  if (contentType === null) return null;
  const t = contentType.split(';')[0].trim().toLowerCase();
  return t === '' ? null : t;
}

/**
 * Whether Markdown is offered to agents, from the negotiated answer and the page's alternate link.
 * @example markdownOffer({ status: 200, contentType: 'text/markdown; charset=utf-8' }, null).offered // true
 */
export function markdownOffer(
  negotiated: { status: number | null; contentType: string | null; body?: string | null },
  alternate: string | null,
  page?: { title: string | null; text: readonly string[] },
): MarkdownOffer {
  const contentType = negotiated.status === null ? null : negotiated.contentType;
  const ok = negotiated.status !== null && negotiated.status >= 200 && negotiated.status < 300;
  const markdown = ok && mediaType(contentType) === 'text/markdown';
  const matchesPage = markdown && page !== undefined && typeof negotiated.body === 'string' ? markdownIsPage(negotiated.body, page) : null;
  return { offered: (markdown && matchesPage !== false) || alternate !== null, contentType, alternate, matchesPage };
}

const collapseLower = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * Whether a Markdown answer is the page: it contains the page's title (whitespace and case aside), or at least
 * MARKDOWN_MATCH_SHARE of its distinct words (MARKDOWN_MATCH_MIN_WORDS or more) occur in the page's text.
 * @example markdownIsPage('# Widgets guide\n\nAll about widgets.', { title: 'Widgets guide', text: ['…'] }) // true
 */
export function markdownIsPage(markdown: string, page: { title: string | null; text: readonly string[] }): boolean {
  const title = page.title === null ? '' : collapseLower(page.title);
  if (title.length >= 3 && collapseLower(markdown).includes(title)) return true;
  const mdWords = new Set(wordsOf([markdown]));
  if (mdWords.size < MARKDOWN_MATCH_MIN_WORDS) return false;
  const pageWords = new Set(wordsOf(page.text));
  let shared = 0;
  for (const w of mdWords) if (pageWords.has(w)) shared++;
  return shared >= MARKDOWN_MATCH_SHARE * mdWords.size;
}

// ---------------------------------------------------------------------------------------------
// llms.txt links
// ---------------------------------------------------------------------------------------------

/** At most this many links of /llms.txt are followed. */
export const LLMS_LINKS_MAX = 5;

// `[name](url)`, as llms-txt.ts reads it: no bracket in either part, so the scan stays linear.
const MARKDOWN_LINKS = /\[[^[\]]+\]\(([^\s()[\]][^)[\]]*)\)/g;

/**
 * The first LLMS_LINKS_MAX distinct http(s) links of an llms.txt body, resolved against its address, in
 * file order. A link's optional title (`[a](url "title")`) is dropped.
 * @example llmsTxtLinkTargets('# S\n- [A](/a.md)\n', 'https://site.test/llms.txt') // ['https://site.test/a.md']
 */
export function llmsTxtLinkTargets(body: string, base: string): string[] {
  const out: string[] = [];
  for (const line of body.split(/\r\n|\r|\n/)) {
    MARKDOWN_LINKS.lastIndex = 0;
    for (let m = MARKDOWN_LINKS.exec(line); m !== null; m = MARKDOWN_LINKS.exec(line)) {
      const href = m[1].trim().split(/\s/)[0];
      let url: URL;
      try {
        url = new URL(href, base);
      } catch {
        continue;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
      url.hash = '';
      if (!out.includes(url.href)) out.push(url.href);
      if (out.length >= LLMS_LINKS_MAX) return out;
    }
  }
  return out;
}

/**
 * One followed llms.txt link as fetched: `refused` when the SSRF guard would not fetch it, `notSent` when the
 * check's own request limits held it back (not the site's fault: neither checked nor broken).
 */
export interface LlmsLinkFetch {
  url: string;
  status: number | null;
  contentType: string | null;
  /** The first bytes of the answer (enough to recognise an HTML page). */
  body: string | null;
  refused: boolean;
  notSent?: boolean;
}

export type LlmsLinkOutcome = 'ok' | 'http-error' | 'html-not-markdown' | 'no-answer' | 'refused' | 'not-sent';

interface LlmsLinkResult {
  url: string;
  status: number | null;
  outcome: LlmsLinkOutcome;
}

/** `site.llmsTxtLinks`. */
export interface LlmsTxtLinks {
  checked: number;
  broken: number;
  /** Every link checked, in file order, with what it answered. */
  links: LlmsLinkResult[];
}

// The llms.txt proposal offers Markdown copies of pages at `.md` addresses; these promise a text file.
const TEXT_EXTENSION = /\.(?:md|markdown|mdx|txt)$/i;

/**
 * Classifies each followed link. Broken: a 4xx/5xx answer, an HTML page where the address promises a
 * Markdown or text file, no answer at all, or an address the SSRF guard refuses (private or internal:
 * no agent on the internet can open it either, so it counts as broken; it is never requested).
 * @example assessLlmsLinks([{ url: 'https://s.test/a.md', status: 200, contentType: 'text/html', body: '', refused: false }]).broken // 1
 */
export function assessLlmsLinks(fetched: readonly LlmsLinkFetch[]): LlmsTxtLinks {
  const links = fetched.map((f): LlmsLinkResult => {
    let outcome: LlmsLinkOutcome;
    if (f.notSent) outcome = 'not-sent';
    else if (f.refused) outcome = 'refused';
    else if (f.status === null) outcome = 'no-answer';
    else if (f.status >= 400) outcome = 'http-error';
    else if (TEXT_EXTENSION.test(pathOf(f.url)) && isHtml(f.contentType, f.body ?? '')) outcome = 'html-not-markdown';
    else outcome = 'ok';
    return { url: f.url, status: f.status, outcome };
  });
  const checked = links.filter((l) => l.outcome !== 'not-sent');
  return { checked: checked.length, broken: checked.filter((l) => l.outcome !== 'ok').length, links };
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------
// Sitemap entries
// ---------------------------------------------------------------------------------------------

/** One pass over a sitemap: its `<loc>` values in order, and whether its root is a sitemap index. */
export interface SitemapEntries {
  index: boolean;
  locs: string[];
}

const LOC_NAME = /^(?:[A-Za-z_][\w.-]*:)?loc$/;
const INDEX_NAME = /^(?:[A-Za-z_][\w.-]*:)?sitemapindex$/i;

/**
 * The `<loc>` entries of a sitemap body (namespace prefixes allowed, entities decoded, CDATA kept
 * as text), in one forward scan: each step continues after what it read, so a hostile 64 KiB file costs
 * 64 KiB of work. Comments and processing instructions are skipped whole.
 * @example sitemapEntries('<urlset><url><loc>https://s.test/a?x=1&amp;y=2</loc></url></urlset>').locs // ['https://s.test/a?x=1&y=2']
 */
export function sitemapEntries(xml: string): SitemapEntries {
  const locs: string[] = [];
  let index: boolean | null = null;
  for (const tag of xmlTags(xml)) {
    if (tag.close) continue;
    index ??= INDEX_NAME.test(tag.qualified);
    if (!LOC_NAME.test(tag.qualified) || tag.selfClose) continue;
    const close = xml.indexOf('<', tag.end);
    if (close < 0) break;
    let text: string;
    if (xml.startsWith('<![CDATA[', close)) {
      const cdataEnd = xml.indexOf(']]>', close + 9);
      if (cdataEnd < 0) break;
      text = xml.slice(close + 9, cdataEnd);
    } else {
      text = decodeXmlText(xml.slice(tag.end, close));
    }
    const loc = text.trim();
    if (loc !== '') locs.push(loc);
  }
  return { index: index ?? false, locs };
}

/**
 * The address of the first child of a sitemap index, resolved against the index's own address; null when
 * the body is not an index or names no usable http(s) child.
 * @example firstSitemapChild('<sitemapindex><sitemap><loc>https://s.test/a.xml</loc></sitemap></sitemapindex>', 'https://s.test/sitemap.xml') // 'https://s.test/a.xml'
 */
export function firstSitemapChild(body: string | null, base: string | null): string | null {
  if (!body || base === null) return null;
  const { index, locs } = sitemapEntries(body);
  if (!index || locs.length === 0) return null;
  try {
    const url = new URL(locs[0], base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Compares sitemap entries as crawlers do: WHATWG-normalised (scheme and host case, default port), fragment dropped. */
function normalisedUrl(s: string): string | null {
  try {
    const u = new URL(s);
    u.hash = '';
    return u.href;
  } catch {
    return null;
  }
}

/** A sitemap as the page-listing question needs it. */
export interface SitemapBody {
  isSitemap: boolean;
  body: string | null;
  truncated: boolean;
}

/**
 * Whether the sitemap lists `pageUrl`: true when an entry equals it, false when the whole (untruncated)
 * sitemap was read and none does, null when that cannot be known: no sitemap, a file cut at its cap
 * before an entry matched, or an index whose first child (the only one read) does not list the page
 * while other children exist. For an index, `child` is its first child as fetched.
 * @example sitemapListsPage('https://s.test/a', { isSitemap: true, body: '<urlset><url><loc>https://s.test/a</loc></url></urlset>', truncated: false }, null) // true
 */
export function sitemapListsPage(pageUrl: string, sitemap: SitemapBody, child: SitemapBody | null): boolean | null {
  if (!sitemap.isSitemap || !sitemap.body) return null;
  const target = normalisedUrl(pageUrl);
  if (target === null) return null;
  const top = sitemapEntries(sitemap.body);
  if (!top.index) {
    if (top.locs.some((l) => normalisedUrl(l) === target)) return true;
    return sitemap.truncated ? null : false;
  }
  if (child === null || !child.isSitemap || !child.body) return null;
  const entries = sitemapEntries(child.body);
  if (entries.index) return null;
  if (entries.locs.some((l) => normalisedUrl(l) === target)) return true;
  const onlyChild = top.locs.length === 1 && !sitemap.truncated;
  return onlyChild && !child.truncated ? false : null;
}

// ---------------------------------------------------------------------------------------------
// Content-Signal (contentsignals.org) per robots.txt group
// ---------------------------------------------------------------------------------------------

const CONTENT_SIGNAL_KEYS = ['search', 'ai-input', 'ai-train'] as const;
type ContentSignalKey = (typeof CONTENT_SIGNAL_KEYS)[number];
type ContentSignalValue = 'yes' | 'no' | null;
type ContentSignals = Record<ContentSignalKey, ContentSignalValue>;

/** One entry of `site.contentUsage`: the signals that apply to one user-agent of robots.txt. */
export interface ContentUsage {
  /** The user-agent token as written in the group (`*` for the global group and for lines before any group). */
  userAgent: string;
  signals: ContentSignals;
  /** The Content-Signal line(s) these came from. */
  lines: number[];
}

/**
 * Reads one Content-Signal value: comma-separated `key=value` pairs. Only the three defined keys and
 * the values yes/no count; anything else (`use=`, a misspelt key, `maybe`) neither grants nor restricts.
 */
function parseSignalValue(text: string): Partial<ContentSignals> {
  const colon = text.indexOf(':');
  const out: Partial<ContentSignals> = {};
  for (const part of text.slice(colon + 1).split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim().toLowerCase();
    if ((CONTENT_SIGNAL_KEYS as readonly string[]).includes(key) && (value === 'yes' || value === 'no')) {
      out[key as ContentSignalKey] = value;
    }
  }
  return out;
}

/** Two lines for the same key in one group: `no` wins, the restrictive reading. */
function merge(into: ContentSignals, add: Partial<ContentSignals>): void {
  for (const key of CONTENT_SIGNAL_KEYS) {
    const v = add[key];
    if (v === undefined) continue;
    if (into[key] === null || v === 'no') into[key] = v;
  }
}

const emptySignals = (): ContentSignals => ({ search: null, 'ai-input': null, 'ai-train': null });

/** `site.contentUsage` lists at most this many user-agents, each with at most CONTENT_USAGE_MAX_LINES line numbers. */
export const CONTENT_USAGE_MAX_AGENTS = 30;
export const CONTENT_USAGE_MAX_LINES = 10;

/**
 * Content-Signal lines per user-agent, in the order their groups' signals first appear. A line belongs to
 * the group it sits in (the groups of robots.txt, RFC 9309), so it applies to that group's user-agents; a
 * line before any group is read as addressing every crawler (`*`). Lines are merged per group first, so a
 * group naming thousands of agents over thousands of lines costs their sum, not their product.
 * @example contentUsage(parseRobotsTxt('User-agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n'))
 *   // [{ userAgent: '*', signals: { search: 'yes', 'ai-input': null, 'ai-train': 'no' }, lines: [2] }]
 */
export function contentUsage(robots: RobotsTxt | null): ContentUsage[] {
  if (robots === null) return [];
  const perGroup = new Map<number | null, { signals: ContentSignals; lines: number[] }>();
  for (const line of robots.contentSignalLines) {
    let group = perGroup.get(line.group);
    if (!group) {
      group = { signals: emptySignals(), lines: [] };
      perGroup.set(line.group, group);
    }
    merge(group.signals, parseSignalValue(line.text));
    if (group.lines.length < CONTENT_USAGE_MAX_LINES) group.lines.push(line.line);
  }
  const byAgent = new Map<string, ContentUsage>();
  for (const [index, group] of perGroup) {
    const agents = index === null ? ['*'] : robots.groups[index].userAgents.map((ua) => ua.token).filter((t) => t !== '');
    for (const agent of agents) {
      const key = agent.toLowerCase();
      let entry = byAgent.get(key);
      if (!entry) {
        if (byAgent.size >= CONTENT_USAGE_MAX_AGENTS) continue;
        entry = { userAgent: agent, signals: emptySignals(), lines: [] };
        byAgent.set(key, entry);
      }
      merge(entry.signals, group.signals);
      for (const n of group.lines) if (entry.lines.length < CONTENT_USAGE_MAX_LINES && !entry.lines.includes(n)) entry.lines.push(n);
    }
  }
  return [...byAgent.values()].map((e) => ({ ...e, lines: e.lines.sort((a, b) => a - b) }));
}

/**
 * The use each crawler role exists for, in Content-Signal terms: search crawlers build search indexes
 * (`search`), AI answer agents fetch pages to ground answers (`ai-input`), training crawlers collect for
 * model training (`ai-train`).
 */
const SIGNAL_OF_ROLE: Record<CrawlerRole, ContentSignalKey> = { search: 'search', 'ai-answers': 'ai-input', 'ai-training': 'ai-train' };

/** One contradiction between a Content-Signal `no` and the robots.txt rules for this page. */
export interface ContentSignalConflict {
  key: ContentSignalKey;
  /** The crawlers robots.txt lets fetch the page although the signal that applies to them says `no` for their one use. */
  tokens: string[];
  /** The Content-Signal line(s) saying no. */
  lines: number[];
}

/**
 * Where the signals and the rules contradict each other. A contradiction is a `key=no` that applies to a
 * crawler (it sits in the group that crawler follows, fallback included) while robots.txt allows that
 * crawler to fetch the page, and the crawler's documented purpose is exactly that use. Such crawlers
 * are documented to obey robots.txt, not Content-Signal, so the page is used the way the owner said it
 * must not be. Not contradictions: `yes` for a use whose crawlers are disallowed (a permission nobody can
 * act on harms nothing), a `no` in one group while a crawler follows another group (the signal does not
 * address it), and user-triggered fetchers (their vendors say robots.txt may not apply to them).
 * @example contentSignalConflicts(robotsFromResponse(200, 'User-agent: *\nContent-Signal: search=no\nAllow: /\n'), [{ token: 'Googlebot', allowed: true }])
 *   // [{ key: 'search', tokens: ['Googlebot'], lines: [2] }]
 */
export function contentSignalConflicts(access: RobotsAccess, verdicts: ReadonlyArray<{ token: string; allowed: boolean }>): ContentSignalConflict[] {
  if (access.state !== 'found' || access.robots.contentSignalLines.length === 0) return [];
  const robots = access.robots;
  const groupIndex = new Map(robots.groups.map((g, i) => [g, i]));
  // Each line parsed once; the crawler loop below then only filters.
  const parsed = robots.contentSignalLines.map((l) => ({ group: l.group, line: l.line, signals: parseSignalValue(l.text) }));
  const conflicts = new Map<ContentSignalKey, ContentSignalConflict & { seen: Set<number> }>();
  for (const crawler of CRAWLERS) {
    if (crawler.userTriggered) continue;
    const verdict = verdicts.find((v) => v.token === crawler.token);
    if (!verdict?.allowed) continue;
    const key = SIGNAL_OF_ROLE[crawler.role];
    const groups = new Set(appliedGroups(robots, effectiveToken(access, crawler)).map((a) => groupIndex.get(a.group)));
    // A line outside any group addresses every crawler; one inside addresses the group's crawlers.
    const lines = parsed.filter((l) => (l.group === null || groups.has(l.group)) && l.signals[key] === 'no');
    if (lines.length === 0) continue;
    const entry = conflicts.get(key) ?? { key, tokens: [], lines: [], seen: new Set<number>() };
    entry.tokens.push(crawler.token);
    for (const l of lines) entry.seen.add(l.line);
    conflicts.set(key, entry);
  }
  return CONTENT_SIGNAL_KEYS.flatMap((k) => {
    const c = conflicts.get(k);
    return c ? [{ key: c.key, tokens: c.tokens, lines: [...c.seen].sort((a, b) => a - b).slice(0, CONTENT_USAGE_MAX_LINES) }] : [];
  });
}

// ---------------------------------------------------------------------------------------------
// Licensing: TDMRep and RSL
// ---------------------------------------------------------------------------------------------

/** `site.licensing`. */
export interface Licensing {
  /** TDMRep `tdm-reservation`: 1 rights reserved, 0 not reserved; null when no TDMRep source states it. */
  tdmReservation: 0 | 1 | null;
  /** TDMRep `tdm-policy`, the address of the machine-readable policy; null when absent. */
  tdmPolicy: string | null;
  /** Where the TDMRep values came from (the meta tag beats the header, which beats the file); null when none. */
  tdmSource: 'meta' | 'header' | 'file' | null;
  /** The first `License:` line of robots.txt (RSL 1.0), as written; null when absent. */
  rslLicense: string | null;
}

export interface TdmStatement {
  reservation: 0 | 1 | null;
  policy: string | null;
}

function reservationOf(value: unknown): 0 | 1 | null {
  if (value === 1 || value === '1') return 1;
  if (value === 0 || value === '0') return 0;
  return null;
}

/**
 * The `/.well-known/tdmrep.json` rule for one path: the file is an array of `{ location, tdm-reservation,
 * tdm-policy }` and the first rule whose location matches wins. Locations are path patterns with `*`
 * wildcards, matched from the start of the path like robots.txt rules.
 * @example tdmFromFile('[{"location":"/","tdm-reservation":1}]', '/guide') // { reservation: 1, policy: null }
 */
export function tdmFromFile(body: string | null, path: string): TdmStatement | null {
  if (!body) return null;
  let rules: unknown;
  try {
    rules = JSON.parse(body);
  } catch {
    return null;
  }
  if (!Array.isArray(rules)) return null;
  for (const rule of rules) {
    if (rule === null || typeof rule !== 'object') continue;
    const r = rule as Record<string, unknown>;
    if (typeof r.location !== 'string') continue;
    const location = r.location.trim() || '/';
    if (!patternMatches(path, location.startsWith('/') ? location : `/${location}`)) continue;
    const reservation = reservationOf(r['tdm-reservation']);
    if (reservation === null) return null;
    return { reservation, policy: typeof r['tdm-policy'] === 'string' && r['tdm-policy'].trim() ? r['tdm-policy'].trim() : null };
  }
  return null;
}

/**
 * TDMRep as headers or meta tags state it (same names: `tdm-reservation`, `tdm-policy`).
 * @example tdmFromPairs('1', 'https://s.test/policy.json') // { reservation: 1, policy: 'https://s.test/policy.json' }
 */
export function tdmFromPairs(reservation: string | null, policy: string | null): TdmStatement | null {
  const r = reservation === null ? null : reservationOf(reservation.trim());
  if (r === null) return null;
  return { reservation: r, policy: policy?.trim() || null };
}

/**
 * The first `License:` line of robots.txt (RSL 1.0 puts one, global, anywhere in the file), its value as
 * written; comments dropped.
 * @example rslLicense('User-agent: *\nLicense: https://s.test/license.xml\n') // 'https://s.test/license.xml'
 */
export function rslLicense(robotsBody: string | null): string | null {
  if (!robotsBody) return null;
  for (const raw of robotsBody.split(/\r\n|\r|\n/)) {
    const hash = raw.indexOf('#');
    const line = (hash < 0 ? raw : raw.slice(0, hash)).trim();
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'license') continue;
    const value = line.slice(colon + 1).trim();
    if (value !== '') return value;
  }
  return null;
}

/**
 * The licensing signals of one page, TDMRep precedence applied (meta tag over header over file).
 * @example licensing({ file: null, header: { reservation: 1, policy: null }, meta: null }, null).tdmSource // 'header'
 */
export function licensing(tdm: { file: TdmStatement | null; header: TdmStatement | null; meta: TdmStatement | null }, rsl: string | null): Licensing {
  const [source, statement] = tdm.meta ? (['meta', tdm.meta] as const) : tdm.header ? (['header', tdm.header] as const) : tdm.file ? (['file', tdm.file] as const) : ([null, null] as const);
  return { tdmReservation: statement?.reservation ?? null, tdmPolicy: statement?.policy ?? null, tdmSource: source, rslLicense: rsl };
}
