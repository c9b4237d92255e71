// Page extraction for the AI Visibility Check: one bounded parse5 parse (bounded-parse.ts) and one iterative
// walk over the tree collect every `page` member of the report. Nothing here fetches or scores.

import type { DefaultTreeAdapterTypes } from 'parse5';
import { parseBounded, type ParseLimitHit } from './bounded-parse';
import { headBreak, type HeadBreak } from './head-break';
import { jsonLdProblems, type JsonLdProblem } from './jsonld-requirements';
import { isWhiteSpace, WordCounter } from './words';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** One robots rule set as served: a meta tag or (part of) an X-Robots-Tag header line. */
export interface RobotsDirectives {
  /** Lowercased bot name the rules are scoped to; null when they address every robot. */
  bot: string | null;
  /** Normalised directives, lowercased, `max-snippet:50` without spaces. */
  directives: string[];
  /** The tag or header line exactly as it can be quoted back to the site owner. */
  raw: string;
}

interface PageRobots {
  meta: RobotsDirectives[];
  header: RobotsDirectives[];
  nosnippet: boolean;
  /** Most restrictive max-snippet that applies to search crawlers; -1 means no limit. */
  maxSnippet: number;
  noarchive: boolean;
  nocache: boolean;
  noai: boolean;
  noimageai: boolean;
  /**
   * The earliest `unavailable_after:` date addressed to Google (all robots, googlebot, googlebot-news), as written;
   * null when none. Google documents it as dropping the page from its results after that date, so a date in the
   * past counts as noindex (noindexMeta / noindexHeader).
   */
  unavailableAfter: string | null;
  /** Whether unavailableAfter is in the past when the page was read. */
  unavailableAfterPassed: boolean;
}

export const KEY_JSON_LD_TYPES = ['Organization', 'WebSite', 'FAQPage', 'Article', 'Product', 'Service'] as const;
type KeyJsonLdType = (typeof KEY_JSON_LD_TYPES)[number];

interface PageJsonLd {
  blocks: number;
  invalid: number;
  /** Every schema.org @type found (top level, arrays, @graph, nested), sorted, without the schema.org prefix. */
  types: string[];
  /** Which key types are present, subtypes included (NewsArticle counts as Article), in KEY_JSON_LD_TYPES order. */
  keyTypes: KeyJsonLdType[];
  /** Organization, WebSite, Article, Product, FAQPage and BreadcrumbList entities lacking required properties (jsonld-requirements.ts). */
  problems: JsonLdProblem[];
}

interface PageOpenGraph {
  title: boolean;
  description: boolean;
  image: boolean;
  url: boolean;
  type: boolean;
}

export interface PageFacts {
  title: string | null;
  titleLength: number;
  metaDescription: string | null;
  metaDescriptionLength: number;
  canonical: string | null;
  /** `<link rel="canonical">` elements in the head (crawlers read a canonical only there). */
  canonicalCount: number;
  /** Different addresses among them, resolved: the same address written twice is one. */
  canonicalDistinct: number;
  canonicalIsSelf: boolean;
  /**
   * Whether the parser put a `<link rel="canonical">` in the body (written there, or after an element that ended
   * the head early): search engines ignore it there.
   */
  canonicalInBody: boolean;
  noindexMeta: boolean;
  noindexHeader: boolean;
  robots: PageRobots;
  jsonLd: PageJsonLd;
  openGraph: PageOpenGraph;
  lang: string | null;
  h1Count: number;
  textLength: number;
  wordCount: number;
  /** Visible text bytes (UTF-8, whitespace collapsed) over the HTML bytes read, 0-1, four decimals. */
  textToHtmlRatio: number;
  /** Not read to its end: cut at the byte limit, or its markup reached a parse limit (bounded-parse.ts). */
  truncated: boolean;
  /**
   * The element (or `#text`) that ended the <head> before the page's own `</head>` or `<body>`, and its line;
   * what followed it is read as the body reads it (no canonical or description). Null when the head is whole.
   */
  headBrokenAt: HeadBreak | null;
  /**
   * When the page was not read to its end (`truncated`), the members that may be missing what came after the
   * cut, in this order: title, metaDescription, canonical, robots, openGraph (only when the cut came before the
   * body and they were not found), jsonLd, h1Count, wordCount, textLength, textToHtmlRatio. Empty otherwise.
   */
  incomplete: IncompleteFact[];
}

/** The page members a cut can leave incomplete. */
export const INCOMPLETE_FACTS = ['title', 'metaDescription', 'canonical', 'robots', 'openGraph', 'jsonLd', 'h1Count', 'wordCount', 'textLength', 'textToHtmlRatio'] as const;
type IncompleteFact = (typeof INCOMPLETE_FACTS)[number];

/** What the page says that belongs in the report's `site` signals rather than in `page`. */
export interface PageExtras {
  /** The resolved href of the first `<link rel="alternate" type="text/markdown">`, or null. */
  markdownAlternate: string | null;
  /** TDMRep meta tags (`<meta name="tdm-reservation">`, `<meta name="tdm-policy">`), content as written. */
  tdmMeta: { reservation: string | null; policy: string | null };
  /** The parse limit the markup reached (the page is then `truncated`: only what came before was read); null when none. */
  parseLimit: ParseLimitHit | null;
}

export interface HeaderSource {
  headerAll(name: string): string[];
}

/**
 * Bot scopes whose noindex / snippet rules decide search visibility. A noindex scoped to any other bot
 * (e.g. `gptbot: noindex`) is recorded in robots.meta / robots.header but does not set noindexMeta or
 * noindexHeader, because it does not take the page out of a search index.
 */
export const SEARCH_ROBOT_SCOPES: ReadonlySet<string> = new Set(['googlebot', 'bingbot', 'msnbot', 'applebot']);

// Meta names treated as robots meta tags: the generic name plus crawler names that vendors document
// (or that site owners plausibly use) for `<meta name="<bot>">`.
const ROBOTS_META_NAMES: ReadonlySet<string> = new Set([
  'robots', 'googlebot', 'googlebot-news', 'googlebot-image', 'googlebot-video', 'bingbot', 'msnbot',
  'applebot', 'applebot-extended', 'google-extended', 'oai-searchbot', 'gptbot', 'chatgpt-user',
  'claudebot', 'claude-searchbot', 'claude-user', 'perplexitybot', 'perplexity-user', 'ccbot',
  'meta-externalagent', 'yandex', 'baiduspider', 'duckduckbot', 'slurp',
]);

// Directives whose own syntax contains a colon: `max-snippet: 50` must not be read as a bot named
// "max-snippet" (a common X-Robots-Tag parsing trap).
const VALUED_DIRECTIVES: ReadonlySet<string> = new Set([
  'max-snippet', 'max-image-preview', 'max-video-preview', 'unavailable_after',
]);

// Text of these elements is never shown as page text (nor counted in `textLength`). `title` is head metadata.
const NO_TEXT = new Set(['script', 'style', 'noscript', 'template', 'svg', 'title', 'head']);

// Elements that do not break a word: text on either side runs together ("foo<b>bar</b>" is one word).
// Every other element is treated as a boundary so "<li>a</li><li>b</li>" gives two words.
const INLINE = new Set([
  'a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i', 'kbd', 'mark', 'q',
  's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'ins', 'del', 'label', 'nobr',
]);

// Schema.org subtypes counted as their key type, so NewsArticle earns Article and LocalBusiness earns
// Organization. Not exhaustive; the common ones used on real sites.
const KEY_TYPE_OF: ReadonlyMap<string, KeyJsonLdType> = new Map<string, KeyJsonLdType>([
  ...(['Organization', 'Corporation', 'LocalBusiness', 'NGO', 'EducationalOrganization', 'GovernmentOrganization',
    'NewsMediaOrganization', 'OnlineBusiness', 'OnlineStore', 'MedicalOrganization', 'SportsOrganization',
    'Store', 'Restaurant', 'ProfessionalService'] as const).map((t) => [t, 'Organization'] as const),
  ...(['WebSite'] as const).map((t) => [t, 'WebSite'] as const),
  ...(['FAQPage'] as const).map((t) => [t, 'FAQPage'] as const),
  ...(['Article', 'NewsArticle', 'BlogPosting', 'TechArticle', 'ScholarlyArticle', 'Report', 'AnalysisNewsArticle',
    'ReportageNewsArticle', 'OpinionNewsArticle', 'SocialMediaPosting', 'LiveBlogPosting'] as const).map(
    (t) => [t, 'Article'] as const,
  ),
  ...(['Product', 'ProductGroup', 'IndividualProduct', 'ProductModel', 'SomeProducts', 'Vehicle', 'Car'] as const).map(
    (t) => [t, 'Product'] as const,
  ),
  ...(['Service', 'FinancialProduct', 'BroadcastService', 'CableOrSatelliteService', 'FoodService',
    'GovernmentService', 'TaxiService', 'WebAPI', 'LoanOrCredit', 'BankAccount', 'PaymentService'] as const).map(
    (t) => [t, 'Service'] as const,
  ),
]);

const OG_PROPS: Record<string, keyof PageOpenGraph> = {
  'og:title': 'title',
  'og:description': 'description',
  'og:image': 'image',
  'og:url': 'url',
  'og:type': 'type',
};

/** Parses one robots rule list (meta content or the part of a header line after its bot prefix). */
function parseDirectiveList(value: string): string[] {
  const out: string[] = [];
  for (const part of value.split(',')) {
    const d = normaliseDirective(part);
    if (d) out.push(d);
  }
  return out;
}

function normaliseDirective(part: string): string {
  const t = part.trim().toLowerCase();
  const colon = t.indexOf(':');
  if (colon < 0) return t.replace(/\s+/g, ' ');
  return `${t.slice(0, colon).trim()}:${t.slice(colon + 1).trim()}`;
}

/**
 * Splits one X-Robots-Tag header line into scoped rule sets. A `<bot>:` prefix scopes the rules after it
 * up to the next prefix or the end of that line; rules before any prefix address every robot. Each header
 * line is parsed on its own, because merging repeated headers (as fetch() does) changes their scope.
 */
export function parseXRobotsTag(line: string): RobotsDirectives[] {
  const raw = `X-Robots-Tag: ${line.trim()}`;
  const sets: RobotsDirectives[] = [];
  let current: RobotsDirectives | null = null;
  for (const part of line.split(',')) {
    const m = /^\s*([A-Za-z0-9_.-]+)\s*:(.*)$/.exec(part);
    const name = m?.[1].toLowerCase();
    if (m && name && !VALUED_DIRECTIVES.has(name)) {
      current = { bot: name, directives: [], raw };
      sets.push(current);
      const first = normaliseDirective(m[2]);
      if (first) current.directives.push(first);
      continue;
    }
    const d = normaliseDirective(part);
    if (!d) continue;
    if (!current) {
      current = { bot: null, directives: [], raw };
      sets.push(current);
    }
    current.directives.push(d);
  }
  return sets;
}

function attr(el: Element, name: string): string | null {
  for (const a of el.attrs) if (a.name === name) return a.value;
  return null;
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * The title as document.title gives it: the HTML standard (html.spec.whatwg.org, "document.title") strips and
 * collapses ASCII whitespace (infra.spec.whatwg.org, "strip and collapse ASCII whitespace") in the title element's
 * text: only tab, line feed, form feed, carriage return and space; an ideographic or a no-break space is kept.
 */
function collapseAsciiWhitespace(s: string): string {
  return s.replace(/[\t\n\f\r ]+/g, ' ').replace(/^ /, '').replace(/ $/, '');
}

/** A robots date (RFC 822, RFC 850 or ISO 8601, as Google accepts) in epoch milliseconds, or null. */
function robotsDate(value: string): number | null {
  const ms = Date.parse(value.replace(/^[a-z]+,\s*/, ''));
  return Number.isFinite(ms) ? ms : null;
}

const WEEKDAY = /^(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*$/;

/**
 * The unavailable_after dates of one rule list, as written and parsed. A date with a weekday ("Wednesday,
 * 25-Jun-25 15:00:00 GMT") was split at its comma with the rules, so a weekday alone is joined with the next part.
 */
function unavailableDates(directives: readonly string[]): Array<{ written: string; ms: number }> {
  const out: Array<{ written: string; ms: number }> = [];
  for (let i = 0; i < directives.length; i++) {
    if (!directives[i].startsWith('unavailable_after:')) continue;
    let written = directives[i].slice('unavailable_after:'.length);
    if (WEEKDAY.test(written) && i + 1 < directives.length) written = `${written}, ${directives[i + 1]}`;
    const ms = robotsDate(written);
    if (ms !== null) out.push({ written, ms });
  }
  return out;
}

/** Length in Unicode code points, so an emoji counts once. */
function charLength(s: string): number {
  let surrogates = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) surrogates++;
  }
  return s.length - surrogates;
}

/**
 * textLength and wordCount of text chunks as if joined, whitespace-collapsed and trimmed, in one pass
 * without building that string (it can be most of a 2 MiB page). Words are counted by words.ts, the one
 * definition every word count of the check uses.
 */
function measureText(chunks: readonly string[]): { length: number; words: number; bytes: number } {
  let length = 0;
  let bytes = 0;
  let started = false;
  let pendingSpace = false;
  const counter = new WordCounter();
  for (const chunk of chunks) {
    counter.add(chunk);
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (isWhiteSpace(c)) {
        if (started) pendingSpace = true;
        continue;
      }
      if (pendingSpace) {
        length++;
        bytes++;
        pendingSpace = false;
      }
      started = true;
      // A low surrogate completes a code point already counted.
      if (c < 0xdc00 || c > 0xdfff) length++;
      // UTF-8 size: a surrogate pair is 4 bytes, counted on its high half.
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : c >= 0xdc00 && c <= 0xdfff ? 0 : 3;
    }
  }
  return { length, words: counter.finish(), bytes };
}

function textOf(el: Element): string {
  let s = '';
  for (const c of el.childNodes) if (c.nodeName === '#text') s += (c as DefaultTreeAdapterTypes.TextNode).value;
  return s;
}

function stripSchemaPrefix(t: string): string {
  return t.replace(/^https?:\/\/schema\.org\//i, '').replace(/^schema:/i, '');
}

/** Collects every @type in a parsed JSON-LD value: arrays, @graph and nested entities alike. */
function collectTypes(root: unknown, into: Set<string>): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (v[i] !== null && typeof v[i] === 'object') stack.push(v[i]);
      continue;
    }
    const obj = v as Record<string, unknown>;
    // for...in rather than Object.entries: JSON.parse gives plain objects, and this loop runs over every
    // node of what can be a 500 KB product catalogue.
    for (const k in obj) {
      const x = obj[k];
      if (k === '@type') {
        if (typeof x === 'string') addType(x, into);
        else if (Array.isArray(x)) for (const t of x) if (typeof t === 'string') addType(t, into);
      } else if (x !== null && typeof x === 'object') {
        stack.push(x);
      }
    }
  }
}

function addType(t: string, into: Set<string>): void {
  const trimmed = t.trim();
  if (trimmed) into.add(stripSchemaPrefix(trimmed));
}

function isJsonLdType(type: string | null): boolean {
  if (type === null) return false;
  return type.split(';')[0].trim().toLowerCase() === 'application/ld+json';
}

/** Compares two absolute URLs as a crawler would: fragment dropped, scheme/host/port normalised by WHATWG URL. */
export function sameUrl(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    x.hash = '';
    y.hash = '';
    return x.href === y.href;
  } catch {
    return false;
  }
}

function withoutFragment(href: string | null): string | null {
  if (href === null) return null;
  const hash = href.indexOf('#');
  return hash < 0 ? href : href.slice(0, hash);
}

function resolveHttpUrl(href: string, base: string): string | null {
  try {
    const u = new URL(href.trim(), base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

// Marks the end of a block element's children on the walk stack, so its closing boundary is emitted.
const BLOCK_END = { nodeName: '#block-end' } as unknown as Node;
// Restore the "text counts" flag to on / off once an element's children have been walked.
const TEXT_ON = { nodeName: '#text-on' } as unknown as Node;
const TEXT_OFF = { nodeName: '#text-off' } as unknown as Node;
// Marks the end of the head's children.
const HEAD_END = { nodeName: '#head-end' } as unknown as Node;

/**
 * Extracts the report's `page` object from served HTML.
 * @param html the body as read (possibly cut at the byte limit)
 * @param pageUrl the final URL the page answered at; relative canonicals resolve against it (or `<base href>`)
 * @param headers raw response headers; repeated X-Robots-Tag lines must be kept apart
 * @param truncated whether the body was cut at the byte limit (the facts are also truncated when the markup
 *   reaches a parse limit, bounded-parse.ts)
 * @param textOut when given, receives the page's text chunks, the ones textLength and wordCount measure (for wordsOf)
 * @param now the time a past unavailable_after is judged against (epoch ms; the clock when absent)
 */
export function extractPage(html: string, pageUrl: string, headers: HeaderSource, truncated: boolean, textOut?: string[], now?: number): PageFacts {
  return extractPageWithExtras(html, pageUrl, headers, truncated, textOut, now).facts;
}

/**
 * extractPage, plus what the same walk finds for the site signals (markdown alternate, TDMRep meta tags).
 * @example extractPageWithExtras(html, 'https://site.test/', headers, false).extras.markdownAlternate // 'https://site.test/index.md'
 */
/** What one walk of the parsed page collects, element by element, before any fact is derived from it. */
interface PageWalk {
  title: string | null;
  metaDescription: string | null;
  baseHref: string | null;
  canonicalHrefs: string[];
  bodyCanonical: boolean;
  markdownHref: string | null;
  tdmMeta: PageExtras['tdmMeta'];
  jsonLdValues: unknown[];
  meta: RobotsDirectives[];
  jsonLdBlocks: number;
  jsonLdInvalid: number;
  types: Set<string>;
  og: PageOpenGraph;
  lang: string | null;
  h1Count: number;
  text: string[];
  bodyReached: boolean;
}

/** A `<link>`: a canonical (in the head only) and the first Markdown alternate. */
function readLink(el: Element, w: PageWalk, inHead: boolean): void {
  const rel = attr(el, 'rel');
  const rels = rel ? rel.toLowerCase().split(/\s+/) : [];
  if (rels.includes('canonical') && inHead) w.canonicalHrefs.push(attr(el, 'href') ?? '');
  else if (rels.includes('canonical')) w.bodyCanonical = true;
  if (w.markdownHref === null && rels.includes('alternate') && (attr(el, 'type') ?? '').split(';')[0].trim().toLowerCase() === 'text/markdown') {
    w.markdownHref = attr(el, 'href');
  }
}

/** A `<meta>`: the description (in the head only), TDMRep tags, robots directives and Open Graph properties. */
function readMeta(el: Element, w: PageWalk, inHead: boolean): void {
  const metaName = attr(el, 'name');
  const content = attr(el, 'content');
  if (metaName !== null) {
    const n = metaName.trim().toLowerCase();
    if (n === 'description') {
      if (w.metaDescription === null && inHead) w.metaDescription = collapse(content ?? '');
    } else if (n === 'tdm-reservation' || n === 'tdm-policy') {
      const key = n === 'tdm-reservation' ? 'reservation' : 'policy';
      if (w.tdmMeta[key] === null && content !== null) w.tdmMeta[key] = content;
    } else if (ROBOTS_META_NAMES.has(n)) {
      w.meta.push({
        bot: n === 'robots' ? null : n,
        directives: parseDirectiveList(content ?? ''),
        raw: `<meta name="${metaName}" content="${content ?? ''}">`,
      });
    }
  }
  // Some sites write og tags with name= instead of property=; crawlers read both.
  const prop = (attr(el, 'property') ?? metaName ?? '').trim().toLowerCase();
  const ogKey = OG_PROPS[prop];
  if (ogKey && content !== null && content.trim()) w.og[ogKey] = true;
}

/** A JSON-LD `<script>`: counted, parsed, its types collected; one that does not parse is counted invalid. */
function readJsonLd(el: Element, w: PageWalk): void {
  w.jsonLdBlocks++;
  try {
    const value: unknown = JSON.parse(textOf(el));
    if (value === null || typeof value !== 'object') throw new Error('not an object');
    collectTypes(value, w.types);
    w.jsonLdValues.push(value);
  } catch {
    w.jsonLdInvalid++;
  }
}

/**
 * Walks the parsed page once, collecting its metadata and its visible text. Iterative (pages can nest deeper
 * than the call stack likes); whether text counts is one flag, and the few elements that change it push a
 * marker that restores it once their children are done.
 */
function walkPage(doc: Node): PageWalk {
  const w: PageWalk = {
    title: null, metaDescription: null, baseHref: null, canonicalHrefs: [], bodyCanonical: false, markdownHref: null, tdmMeta: { reservation: null, policy: null },
    jsonLdValues: [], meta: [], jsonLdBlocks: 0, jsonLdInvalid: 0, types: new Set<string>(),
    og: { title: false, description: false, image: false, url: false, type: false }, lang: null, h1Count: 0, text: [], bodyReached: false,
  };
  const { text } = w;
  const nodes: Node[] = [doc];
  let countText = false;
  let inHead = false;
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const name = node.nodeName;
    if (name === '#text') {
      if (countText) text.push((node as DefaultTreeAdapterTypes.TextNode).value);
      continue;
    }
    if (node === BLOCK_END) {
      text.push(' ');
      continue;
    }
    if (node === HEAD_END) {
      inHead = false;
      continue;
    }
    if (node === TEXT_ON || node === TEXT_OFF) {
      countText = node === TEXT_ON;
      continue;
    }
    if (name === '#comment' || name === '#documentType') continue;

    let childCount = countText;
    if (name !== '#document') {
      const el = node as Element;
      if (el.namespaceURI !== HTML_NS) continue; // svg/math: no page metadata, and svg text is excluded
      switch (el.tagName) {
        case 'html': {
          const l = attr(el, 'lang');
          if (l !== null && l.trim()) w.lang = l.trim();
          break;
        }
        case 'body':
          childCount = true;
          if (el.childNodes.length > 0) w.bodyReached = true;
          break;
        case 'head':
          // Popped after the head's children: what the parser put in the body is read as body.
          inHead = true;
          nodes.push(HEAD_END);
          break;
        case 'title':
          if (w.title === null) w.title = collapseAsciiWhitespace(textOf(el));
          break;
        case 'base':
          if (w.baseHref === null) w.baseHref = attr(el, 'href');
          break;
        case 'h1':
          w.h1Count++;
          break;
        case 'link':
          readLink(el, w, inHead);
          break;
        case 'meta':
          readMeta(el, w, inHead);
          break;
        case 'script':
          if (isJsonLdType(attr(el, 'type'))) readJsonLd(el, w);
          continue;
        case 'svg':
          continue;
      }
      if (NO_TEXT.has(el.tagName)) childCount = false;
      if (childCount && !INLINE.has(el.tagName)) {
        text.push(' ');
        nodes.push(BLOCK_END);
      }
    }
    const children = (node as DefaultTreeAdapterTypes.ParentNode).childNodes;
    if (children.length === 0) continue;
    if (childCount !== countText) {
      nodes.push(countText ? TEXT_ON : TEXT_OFF);
      countText = childCount;
    }
    for (let i = children.length - 1; i >= 0; i--) nodes.push(children[i]);
  }
  return w;
}

/** The page's robots directives (meta tags and X-Robots-Tag lines) as the report's robots facts. */
function robotsFacts(meta: RobotsDirectives[], header: RobotsDirectives[], now: number): { robots: PageFacts['robots']; noindexMeta: boolean; noindexHeader: boolean } {
  const appliesToSearch = (r: RobotsDirectives) => r.bot === null || SEARCH_ROBOT_SCOPES.has(r.bot);
  // Google documents unavailable_after; other search engines do not, so it is read only where it addresses Google.
  const toGoogle = (r: RobotsDirectives) => r.bot === null || r.bot === 'googlebot' || r.bot === 'googlebot-news';
  let unavailableAfter: string | null = null;
  let unavailableAfterMs = Infinity;
  const expiredSets = new Set<RobotsDirectives>();
  for (const r of [...meta, ...header]) {
    if (!toGoogle(r)) continue;
    for (const { written, ms } of unavailableDates(r.directives)) {
      if (ms < unavailableAfterMs) {
        unavailableAfterMs = ms;
        unavailableAfter = written;
      }
      if (ms <= now) expiredSets.add(r);
    }
  }
  const unavailableAfterPassed = unavailableAfterMs <= now;
  const expired = (r: RobotsDirectives) => expiredSets.has(r);
  const noindex = (r: RobotsDirectives) => (appliesToSearch(r) && r.directives.some((d) => d === 'noindex' || d === 'none')) || expired(r);
  const all = [...meta, ...header];
  const searchDirectives = all.filter(appliesToSearch).flatMap((r) => r.directives);
  const anyDirectives = all.flatMap((r) => r.directives);

  let maxSnippet = -1;
  for (const d of searchDirectives) {
    if (!d.startsWith('max-snippet:')) continue;
    const n = Number.parseInt(d.slice('max-snippet:'.length), 10);
    if (Number.isFinite(n) && n >= 0 && (maxSnippet === -1 || n < maxSnippet)) maxSnippet = n;
  }
  return {
    noindexMeta: meta.some(noindex),
    noindexHeader: header.some(noindex),
    robots: {
      meta,
      header,
      nosnippet: searchDirectives.includes('nosnippet'),
      maxSnippet,
      noarchive: anyDirectives.includes('noarchive'),
      nocache: anyDirectives.includes('nocache'),
      noai: anyDirectives.includes('noai'),
      noimageai: anyDirectives.includes('noimageai'),
      unavailableAfter,
      unavailableAfterPassed,
    },
  };
}

/**
 * extractPage, plus what the same walk finds for the site signals (markdown alternate, TDMRep meta tags).
 * @example extractPageWithExtras(html, 'https://site.test/', headers, false).extras.markdownAlternate // 'https://site.test/index.md'
 */
export function extractPageWithExtras(
  html: string,
  pageUrl: string,
  headers: HeaderSource,
  truncated: boolean,
  textOut?: string[],
  now: number = Date.now(),
): { facts: PageFacts; extras: PageExtras } {
  const { document: doc, limitHit } = parseBounded(html);
  const { title, metaDescription, baseHref, canonicalHrefs, bodyCanonical, markdownHref, tdmMeta, jsonLdValues, meta, jsonLdBlocks, jsonLdInvalid, types, og, lang, h1Count, text, bodyReached } =
    walkPage(doc);

  const header: RobotsDirectives[] = [];
  for (const line of headers.headerAll('x-robots-tag')) header.push(...parseXRobotsTag(line));

  const base = (baseHref !== null && resolveHttpUrl(baseHref, pageUrl)) || pageUrl;
  const canonical = canonicalHrefs.length > 0 && canonicalHrefs[0].trim() ? resolveHttpUrl(canonicalHrefs[0], base) : null;
  // Compared as sameUrl compares: a fragment does not make another address.
  const canonicalDistinct = new Set(canonicalHrefs.map((href) => (href.trim() ? withoutFragment(resolveHttpUrl(href, base)) : null) ?? `invalid:${href}`)).size;
  const { robots, noindexMeta, noindexHeader } = robotsFacts(meta, header, now);

  const measured = measureText(text);
  if (textOut) for (const chunk of text) textOut.push(chunk);
  const typeList = [...types].sort();
  const keyTypeSet = new Set(typeList.map((t) => KEY_TYPE_OF.get(t)).filter((t): t is KeyJsonLdType => t !== undefined));

  const facts: PageFacts = {
    title,
    titleLength: title === null ? 0 : charLength(title),
    metaDescription,
    metaDescriptionLength: metaDescription === null ? 0 : charLength(metaDescription),
    canonical,
    canonicalCount: canonicalHrefs.length,
    canonicalDistinct,
    canonicalIsSelf: canonical !== null && sameUrl(canonical, pageUrl),
    canonicalInBody: bodyCanonical,
    noindexMeta,
    noindexHeader,
    robots,
    jsonLd: {
      blocks: jsonLdBlocks,
      invalid: jsonLdInvalid,
      types: typeList,
      keyTypes: KEY_JSON_LD_TYPES.filter((t) => keyTypeSet.has(t)),
      problems: jsonLdProblems(jsonLdValues),
    },
    openGraph: og,
    lang,
    h1Count,
    textLength: measured.length,
    wordCount: measured.words,
    textToHtmlRatio: textToHtmlRatio(measured.bytes, html),
    truncated: truncated || limitHit !== null,
    headBrokenAt: headBreak(html),
    incomplete: [],
  };
  if (facts.truncated) {
    const missing = new Set<IncompleteFact>(['jsonLd', 'h1Count', 'wordCount', 'textLength', 'textToHtmlRatio']);
    if (!bodyReached) {
      if (title === null) missing.add('title');
      if (metaDescription === null) missing.add('metaDescription');
      if (canonicalHrefs.length === 0) missing.add('canonical');
      missing.add('robots');
      missing.add('openGraph');
    }
    facts.incomplete = INCOMPLETE_FACTS.filter((f) => missing.has(f));
  }
  const markdownAlternate = markdownHref === null || !markdownHref.trim() ? null : resolveHttpUrl(markdownHref, base);
  return { facts, extras: { markdownAlternate, tdmMeta, parseLimit: limitHit } };
}

/** Text bytes over HTML bytes, to four decimals so the report's bytes do not depend on float noise. */
function textToHtmlRatio(textBytes: number, html: string): number {
  const htmlBytes = Buffer.byteLength(html, 'utf8');
  if (htmlBytes === 0) return 0;
  return Math.round(Math.min(1, textBytes / htmlBytes) * 10_000) / 10_000;
}
