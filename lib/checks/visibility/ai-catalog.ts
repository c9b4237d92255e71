// The AI Catalog of Agentic Resource Discovery (ARD, v0.9 draft, launched 2026-06 by Google, Microsoft and
// Hugging Face): one JSON document listing what a site offers agents (MCP servers, A2A agents, nested catalogs).
// Found as Lighthouse 13.5's `ard-schema` audit finds it, first that names one wins:
//   1. an `Agentmap:` line of robots.txt;
//   2. a `<link rel~="ai-catalog">` in the page;
//   3. a `Link: <…>; rel="ai-catalog"` header on the page's answer;
//   4. else `/.well-known/ai-catalog.json` of the page's origin.
// The catalog is an object whose `entries` list holds `{ identifier (a URN), displayName, mediaType, data | url }`.
// Entries typed as an MCP server card or an A2A agent card are checked with the same validators as the
// well-known cards (agent-surfaces.ts): inline `data` as it stands, a `url` on the page's origin fetched (at
// most AI_CATALOG_FOLLOW_MAX of them). Pure functions over what was fetched, run on the analysis thread;
// signal-fetches.ts fetches.

import { assessSurface, linkHeaderRelations, type AgentSurface, type SurfaceFile } from './agent-surfaces';
import { htmlTokens, isAsciiWhitespace } from './html-scan';
import { isHtml } from './llms-txt';
import { isSoftNotFound } from './soft-404';

const AI_CATALOG_PATH = '/.well-known/ai-catalog.json';
export const AI_CATALOG_ACCEPT = 'application/ai-catalog+json,application/json;q=0.9,*/*;q=0.5';
/** Card entries whose `url` is fetched, at most: the rest are listed as not followed. */
export const AI_CATALOG_FOLLOW_MAX = 2;
/** Problems listed for the catalog, at most (more than a well-known document: each entry may have its own). */
export const AI_CATALOG_PROBLEMS_MAX = 5;
/** Card entries listed, at most. */
export const AI_CATALOG_CARDS_MAX = 4;

type AiCatalogSource = 'robots-agentmap' | 'link-element' | 'link-header' | 'well-known';

/** Where the catalog is, and which of the four routes named it. */
export interface AiCatalogLocation {
  url: string;
  via: AiCatalogSource;
}

type CardKind = 'mcpServerCard' | 'a2aAgentCard';

// The card media types of the ARD draft, and the names its working group's later decision records give them.
const CARD_MEDIA_TYPES: Readonly<Record<string, CardKind>> = {
  'application/mcp-server-card+json': 'mcpServerCard',
  'application/mcp-server+json': 'mcpServerCard',
  'application/a2a-agent-card+json': 'a2aAgentCard',
};

/** One catalog entry that is an MCP server card or an A2A agent card, checked as the well-known card is. */
interface AiCatalogCard {
  identifier: string | null;
  kind: CardKind;
  /** `data`: the card is inline; `url`: fetched from its address; `not-followed`: on another origin or past the limit. */
  source: 'data' | 'url' | 'not-followed';
  /** The card as the well-known card would read; for `not-followed`, only its address and why. */
  surface: AgentSurface;
}

/** `site.agentSurfaces.aiCatalog`. */
export interface AiCatalog extends AgentSurface {
  discoveredVia: AiCatalogSource;
  cards: AiCatalogCard[];
}

/** The catalog as fetched, and the card addresses followed from it. */
export interface AiCatalogFiles {
  location: AiCatalogLocation;
  file: SurfaceFile;
  cards: SurfaceFile[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
// RFC 8141: `urn:`, a namespace identifier of 2-32 letters, digits and inner hyphens, `:`, then the specific string.
const URN = /^urn:[a-z0-9][a-z0-9-]{0,30}[a-z0-9]:\S+$/i;

function httpUrl(href: string, base: string): string | null {
  try {
    const url = new URL(href.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The first `Agentmap:` line of robots.txt, as written. */
function agentmapLine(robots: string): string | null {
  for (const line of robots.split(/\r\n|\r|\n/)) {
    const m = /^\s*agentmap\s*:\s*(\S+)/i.exec(line);
    if (m) return m[1];
  }
  return null;
}

/** The value of attribute `name` in one start tag's source, or null. */
function attribute(tag: string, name: string): string | null {
  const lower = tag.toLowerCase();
  let at = lower.indexOf(name);
  while (at >= 0) {
    const before = lower.charCodeAt(at - 1);
    let i = at + name.length;
    while (isAsciiWhitespace(lower.charCodeAt(i))) i++;
    if (isAsciiWhitespace(before) && lower[i] === '=') {
      i++;
      while (isAsciiWhitespace(lower.charCodeAt(i))) i++;
      const quote = tag[i];
      if (quote === '"' || quote === "'") {
        const end = tag.indexOf(quote, i + 1);
        return end < 0 ? null : tag.slice(i + 1, end);
      }
      let end = i;
      while (end < tag.length && !isAsciiWhitespace(tag.charCodeAt(end)) && tag[end] !== '>') end++;
      return tag.slice(i, end);
    }
    at = lower.indexOf(name, at + 1);
  }
  return null;
}

/** The href of the first `<link>` whose rel list holds `ai-catalog`, as `link[rel~="ai-catalog"]` selects it. */
function linkElementHref(html: string): string | null {
  for (const token of htmlTokens(html)) {
    if (token.kind !== 'start' || token.name !== 'link') continue;
    const tag = html.slice(token.start, token.end);
    const rel = attribute(tag, 'rel');
    if (rel !== null && rel.toLowerCase().split(/[\t\n\f\r ]+/).includes('ai-catalog')) {
      const href = attribute(tag, 'href');
      if (href !== null && href.trim() !== '') return href;
    }
  }
  return null;
}

/**
 * Where the AI Catalog is, by the four routes in Lighthouse's order; the well-known address when none names one.
 * @example aiCatalogLocation({ robots: 'Agentmap: /catalog.json', robotsOk: true, pageBody: '', pageLinks: [], pageUrl: 'https://s.test/a' }) // { url: 'https://s.test/catalog.json', via: 'robots-agentmap' }
 */
export function aiCatalogLocation(input: { robots: string | null; robotsOk: boolean; pageBody: string; pageLinks: readonly string[]; pageUrl: string }): AiCatalogLocation {
  const agentmap = input.robotsOk && input.robots ? agentmapLine(input.robots) : null;
  const fromRobots = agentmap && httpUrl(agentmap, new URL('/robots.txt', input.pageUrl).href);
  if (fromRobots) return { url: fromRobots, via: 'robots-agentmap' };
  const element = linkElementHref(input.pageBody);
  const fromElement = element && httpUrl(element, input.pageUrl);
  if (fromElement) return { url: fromElement, via: 'link-element' };
  const header = linkHeaderRelations(input.pageLinks, input.pageUrl).find((l) => l.rel === 'ai-catalog');
  const fromHeader = header && httpUrl(header.href, input.pageUrl);
  if (fromHeader) return { url: fromHeader, via: 'link-header' };
  return { url: new URL(AI_CATALOG_PATH, input.pageUrl).href, via: 'well-known' };
}

const SOURCE_WORDS: Record<AiCatalogSource, string> = {
  'robots-agentmap': 'the Agentmap line of robots.txt',
  'link-element': 'the page\'s <link rel="ai-catalog">',
  'link-header': 'the page\'s Link header (rel="ai-catalog")',
  'well-known': AI_CATALOG_PATH,
};

function parsed(file: SurfaceFile): Json | null {
  if (file.status === null || file.status < 200 || file.status > 299 || !file.body || isHtml(file.contentType, file.body)) return null;
  try {
    const doc: unknown = JSON.parse(file.body);
    return isObject(doc) ? doc : null;
  } catch {
    return null;
  }
}

const entriesOf = (doc: Json | null): unknown[] => (doc && Array.isArray(doc.entries) ? doc.entries : []);
const cardKind = (entry: Json): CardKind | null => (typeof entry.mediaType === 'string' ? (CARD_MEDIA_TYPES[entry.mediaType.split(';')[0].trim().toLowerCase()] ?? null) : null);

/**
 * The card addresses to fetch from a fetched catalog: entries typed as an MCP server card or an A2A agent card
 * that give a `url` on the page's origin, the first AI_CATALOG_FOLLOW_MAX of them.
 * @example aiCatalogFollowUrls(catalogFile, 'https://s.test/a') // ['https://s.test/mcp/card.json']
 */
export function aiCatalogFollowUrls(catalog: SurfaceFile, pageUrl: string): string[] {
  const origin = new URL(pageUrl).origin;
  const out: string[] = [];
  for (const entry of entriesOf(parsed(catalog))) {
    if (out.length >= AI_CATALOG_FOLLOW_MAX) break;
    if (!isObject(entry) || cardKind(entry) === null || entry.data !== undefined || !isText(entry.url)) continue;
    const url = httpUrl(entry.url, catalog.url);
    if (url !== null && new URL(url).origin === origin && !out.includes(url)) out.push(url);
  }
  return out;
}

/** What each entry lacks, one sentence per entry that has faults. */
function entryProblems(entry: unknown, n: number, base: string): string | null {
  if (!isObject(entry)) return `entry ${n} is not an object`;
  const faults: string[] = [];
  if (!isText(entry.identifier)) faults.push('has no "identifier"');
  else if (!URN.test(entry.identifier.trim())) faults.push(`has an "identifier" that is not a URN (urn:<namespace>:<name>): ${entry.identifier.slice(0, 80)}`);
  if (!isText(entry.displayName)) faults.push('has no "displayName"');
  if (!isText(entry.mediaType)) faults.push('has no "mediaType"');
  if (entry.data === undefined && entry.url === undefined) faults.push('has neither "data" nor "url"');
  else if (entry.data === undefined && (!isText(entry.url) || httpUrl(entry.url, base) === null)) faults.push('has a "url" that is not an http(s) address');
  return faults.length > 0 ? `entry ${n} ${faults.join(', ')}` : null;
}

function inlineCard(data: unknown, url: string): SurfaceFile {
  return { url, status: 200, contentType: 'application/json', body: JSON.stringify(data) ?? null, truncated: false };
}

/** The catalog's card entries, each checked as the well-known card of its kind. */
function cardsOf(entries: unknown[], files: AiCatalogFiles, origin: string): AiCatalogCard[] {
  const out: AiCatalogCard[] = [];
  for (const entry of entries) {
    if (out.length >= AI_CATALOG_CARDS_MAX) break;
    if (!isObject(entry)) continue;
    const kind = cardKind(entry);
    if (kind === null) continue;
    const identifier = isText(entry.identifier) ? entry.identifier.slice(0, 200) : null;
    if (entry.data !== undefined) {
      out.push({ identifier, kind, source: 'data', surface: { ...assessSurface(kind, inlineCard(entry.data, files.file.url), origin), httpStatus: null } });
      continue;
    }
    const url = isText(entry.url) ? httpUrl(entry.url, files.file.url) : null;
    if (url === null) continue;
    const fetched = files.cards.find((c) => c.url === url);
    if (fetched) {
      out.push({ identifier, kind, source: 'url', surface: assessSurface(kind, fetched, origin) });
      continue;
    }
    const why = new URL(url).origin === origin ? `not fetched: only the first ${AI_CATALOG_FOLLOW_MAX} cards are followed` : 'not fetched: on another origin than the page';
    out.push({ identifier, kind, source: 'not-followed', surface: { url, status: 'unreachable', valid: false, httpStatus: null, name: null, entries: null, problems: [why] } });
  }
  return out;
}

/**
 * `site.agentSurfaces.aiCatalog`: `found` (valid), `invalid` (published but not what ARD requires, or named by
 * robots.txt or the page but not there), `missing` (no catalog at the well-known address and none named) or
 * `unreachable` (no answer, 5xx), with its card entries checked.
 * @example assessAiCatalog({ location: { url: 'https://s.test/.well-known/ai-catalog.json', via: 'well-known' }, file: notFound, cards: [] }, 'https://s.test').status // 'missing'
 */
export function assessAiCatalog(files: AiCatalogFiles, origin: string, catchAll: string | null = null): AiCatalog {
  const { file, location } = files;
  const base = { url: file.url, httpStatus: file.status, name: null, entries: null, discoveredVia: location.via, cards: [] as AiCatalogCard[] };
  const invalid = (problems: string[]): AiCatalog => ({ ...base, status: 'invalid', valid: false, problems: problems.slice(0, AI_CATALOG_PROBLEMS_MAX) });
  if (file.status === null || file.status >= 500) return { ...base, status: 'unreachable', valid: false, problems: [] };
  // At the well-known address, the site's catch-all page is a soft 404 like any other surface's; a catalog that
  // robots.txt or the page names and that answers the catch-all is a broken promise (below).
  if (location.via === 'well-known' && isSoftNotFound(file, catchAll)) return { ...base, status: 'soft-404', valid: false, problems: [] };
  const absent = file.status < 200 || file.status > 299 || !file.body || isHtml(file.contentType, file.body);
  if (absent) {
    // A catalog the site points to but does not serve is a broken promise; no catalog where nobody said there is one is none.
    if (location.via === 'well-known') return { ...base, status: 'missing', valid: false, problems: [] };
    return invalid([`is named by ${SOURCE_WORDS[location.via]} but answered ${file.status >= 200 && file.status < 300 ? 'with an HTML page' : `HTTP ${file.status}`}`]);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(file.body!);
  } catch {
    return invalid([file.truncated ? 'is larger than the 64 KB read, so it could not be parsed' : 'is not valid JSON']);
  }
  if (!isObject(doc)) return invalid(['is not a JSON object']);
  if (!Array.isArray(doc.entries)) return invalid(['has no "entries" list']);
  const problems = doc.entries.map((e, i) => entryProblems(e, i + 1, file.url)).filter((p): p is string => p !== null);
  const cards = cardsOf(doc.entries, files, origin);
  const valid = problems.length === 0;
  const name = isText(doc.displayName) ? doc.displayName.slice(0, 200) : null;
  return { ...base, status: valid ? 'found' : 'invalid', valid, name, entries: doc.entries.length, problems: problems.slice(0, AI_CATALOG_PROBLEMS_MAX), cards };
}

/**
 * The catalog's problems and those of its card entries in words, for the finding; empty when all is well.
 * @example aiCatalogFaults(catalog) // ['https://s.test/.well-known/ai-catalog.json: entry 1 has no "displayName"']
 */
export function aiCatalogFaults(catalog: AiCatalog): string[] {
  const own = catalog.status === 'invalid' ? catalog.problems.map((p) => `${catalog.url} ${p}`) : [];
  const cards = catalog.cards
    .filter((c) => c.source !== 'not-followed' && c.surface.status !== 'found')
    .map((c) => `the ${c.kind === 'mcpServerCard' ? 'MCP server card' : 'A2A agent card'} ${c.identifier ?? ''} (${c.source === 'data' ? 'inline' : c.surface.url}) ${c.surface.status === 'invalid' ? c.surface.problems.join('; ') : c.surface.status === 'missing' ? `answered ${c.surface.httpStatus === null ? 'with no card' : `HTTP ${c.surface.httpStatus}`}` : 'did not answer'}`.replace('  ', ' '));
  return [...own, ...cards];
}
