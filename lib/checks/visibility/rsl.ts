// The RSL 1.0 licence a site names (robots.txt `License:`, or a `Link: <…>; rel="license"` header): an XML
// document `<rsl xmlns="https://rslstandard.org/rsl">` of `<content url="…">` elements, each with a
// `<license>` of `<permits type="usage">`, `<prohibits type="usage">` and a `<payment type="…">` holding an
// `<amount currency="…">`. Read in one forward scan over the tags (no XML library, no entity expansion), on
// the analysis thread; the terms that apply are those of the first `<content>` whose `url` covers the page
// (a path pattern with robots.txt matching, or a full address), else the first `<content>`.

import { patternMatches } from './robots';
import { decodeXmlText, xmlTags } from './xml-tags';

const RSL_NAMESPACE = 'https://rslstandard.org/rsl';
/** Usage tokens listed per licence, at most (RSL 1.0 defines eight). */
export const RSL_USAGES_MAX = 8;

/** `site.licensing.rsl`. */
export interface RslReport {
  url: string;
  status: 'found' | 'missing' | 'invalid' | 'unreachable';
  valid: boolean;
  httpStatus: number | null;
  /** `<permits type="usage">` tokens of the licence that applies (ai-train, ai-input, search, all…). */
  permits: string[];
  prohibits: string[];
  payment: { type: string; amount: string | null; currency: string | null } | null;
  /** Why it is invalid, in words; null when valid or not fetched. */
  problem: string | null;
}

interface ContentTerms {
  url: string;
  permits: string[];
  prohibits: string[];
  payment: RslReport['payment'];
}

const usageList = (text: string) =>
  text
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '');

/**
 * The terms of an RSL document: whether its root is `<rsl>` in the RSL namespace, and each `<content>`'s
 * usage permits, prohibits and payment (only `type="usage"` lists: `user` and `geo` lists restrict who and
 * where, not what for).
 * @example parseRsl('<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><permits type="usage">search</permits></license></content></rsl>').contents[0].permits // ['search']
 */
export function parseRsl(xml: string): { root: boolean; contents: ContentTerms[] } {
  const contents: ContentTerms[] = [];
  let root: boolean | null = null;
  let current: ContentTerms | null = null;
  let list: { into: 'permits' | 'prohibits'; from: number } | null = null;
  let amount: { currency: string | null; from: number } | null = null;
  for (const tag of xmlTags(xml)) {
    if (root === null && !tag.close) {
      // A namespace may be declared with a prefix (`<rsl:rsl xmlns:rsl="…">`) as well as by default.
      root = tag.name === 'rsl' && Object.entries(tag.attrs).some(([k, v]) => (k === 'xmlns' || k.startsWith('xmlns:')) && v.trim() === RSL_NAMESPACE);
      if (!root) break;
      continue;
    }
    if (!tag.close && tag.name === 'content') {
      current = { url: (tag.attrs.url ?? '').trim(), permits: [], prohibits: [], payment: null };
      contents.push(current);
      if (tag.selfClose) current = null;
      continue;
    }
    if (current === null) continue;
    if (tag.close && tag.name === 'content') {
      current = null;
      continue;
    }
    if ((tag.name === 'permits' || tag.name === 'prohibits') && !tag.selfClose) {
      if (!tag.close) list = (tag.attrs.type ?? 'usage').toLowerCase() === 'usage' ? { into: tag.name, from: tag.end } : null;
      else if (list !== null) {
        const text = xml.slice(list.from, xml.lastIndexOf('<', tag.end - 1));
        current[list.into].push(...usageList(decodeXmlText(text)).slice(0, RSL_USAGES_MAX - current[list.into].length));
        list = null;
      }
      continue;
    }
    if (tag.name === 'payment' && !tag.close && current.payment === null) {
      current.payment = { type: (tag.attrs.type ?? 'free').trim().toLowerCase() || 'free', amount: null, currency: null };
      continue;
    }
    if (tag.name === 'amount' && current.payment !== null && current.payment.amount === null) {
      if (!tag.close) amount = { currency: tag.attrs.currency?.trim() || null, from: tag.end };
      else if (amount !== null) {
        current.payment.amount = decodeXmlText(xml.slice(amount.from, xml.lastIndexOf('<', tag.end - 1))).trim().slice(0, 32) || null;
        current.payment.currency = amount.currency;
        amount = null;
      }
    }
  }
  return { root: root === true, contents };
}

/** Whether a `<content url>` covers the page: a full address (robots.txt-style wildcards in its path) or a path pattern. */
function covers(pattern: string, pageUrl: URL): boolean {
  if (pattern === '') return false;
  let path = pattern;
  if (!pattern.startsWith('/') && !pattern.startsWith('*')) {
    try {
      const u = new URL(pattern.replaceAll('*', '%2A'));
      if (u.origin !== pageUrl.origin) return false;
      path = u.pathname.replaceAll('%2A', '*') + u.search;
    } catch {
      return false;
    }
  }
  return patternMatches(pageUrl.pathname + pageUrl.search, path);
}

/** The fetched licence as the analysis reads it. */
export interface RslFile {
  url: string;
  status: number | null;
  contentType: string | null;
  body: string | null;
}

/**
 * `site.licensing.rsl`: the licence the site names, its terms for this page. `missing` when the address
 * answers 4xx, `unreachable` when it does not answer or answers 5xx, `invalid` when it answers something other
 * than an RSL document (an HTML page, another XML root, no `<content>`).
 * @example assessRsl({ url: 'https://s.test/license.xml', status: 404, contentType: 'text/html', body: '' }, 'https://s.test/a').status // 'missing'
 */
export function assessRsl(file: RslFile, pageUrl: string): RslReport {
  const base = { url: file.url, httpStatus: file.status, permits: [], prohibits: [], payment: null };
  if (file.status === null || file.status >= 500) return { ...base, status: 'unreachable', valid: false, problem: null };
  if (file.status < 200 || file.status > 299) return { ...base, status: 'missing', valid: false, problem: null };
  const parsed = parseRsl((file.body ?? '').replace(/^\uFEFF/, ''));
  if (!parsed.root) return { ...base, status: 'invalid', valid: false, problem: `its root element is not <rsl xmlns="${RSL_NAMESPACE}">` };
  if (parsed.contents.length === 0) return { ...base, status: 'invalid', valid: false, problem: 'it has no <content> element' };
  const page = new URL(pageUrl);
  const terms = parsed.contents.find((c) => covers(c.url, page)) ?? parsed.contents[0];
  return { ...base, status: 'found', valid: true, permits: terms.permits, prohibits: terms.prohibits, payment: terms.payment, problem: null };
}
